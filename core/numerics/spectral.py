"""Spectral embeddings of anchor graphs and k-means on embeddings (common spec §4, §7)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import svds
from sklearn.cluster import KMeans

from core.numerics.linalg import row_normalize

__all__ = ["kmeans_labels", "stacked_anchor_embedding", "top_left_singular_vectors"]


def top_left_singular_vectors(
    a: sp.spmatrix | np.ndarray, k: int, rng: np.random.Generator
) -> np.ndarray:
    """Top-k left singular vectors of a tall matrix (n x p), deterministic given rng.

    Uses the small p x p Gram matrix when p is small, ARPACK (seeded v0) otherwise.
    """
    n, p = a.shape
    k = min(k, min(n, p))
    if p <= 2000 or k >= min(n, p) - 1:
        gram = a.T @ a
        gram = gram.toarray() if sp.issparse(gram) else np.asarray(gram)
        vals, vecs = np.linalg.eigh((gram + gram.T) / 2)
        top = np.argsort(vals)[::-1][:k]
        s = np.sqrt(np.maximum(vals[top], 1e-300))
        u = np.asarray(a @ vecs[:, top]) / s
    else:
        v0 = rng.uniform(-1, 1, size=min(n, p))
        u, s, _ = svds(sp.csr_matrix(a), k=k, v0=v0)
        u = u[:, np.argsort(s)[::-1]]
    # fix signs so results do not depend on the eigensolver's choice
    signs = np.sign(u[np.argmax(np.abs(u), axis=0), np.arange(u.shape[1])])
    return u * np.where(signs == 0, 1, signs)


def stacked_anchor_embedding(
    zhats: Sequence[sp.csr_matrix], weights: Sequence[float], k: int, rng: np.random.Generator
) -> np.ndarray:
    """Top-k left singular vectors of [√w_1 Ẑ_1, …, √w_V Ẑ_V] (Gram = Σ w_v S_v)."""
    q = sp.hstack([np.sqrt(w) * z for w, z in zip(weights, zhats, strict=True)]).tocsr()
    return top_left_singular_vectors(q, k, rng)


def kmeans_labels(
    f: np.ndarray,
    n_clusters: int,
    rng: np.random.Generator,
    *,
    n_init: int = 10,
    normalize: bool = True,
    max_iter: int = 100,
    subsample: int = 20_000,
) -> np.ndarray:
    """k-means++ (best of n_init, seeded) on the rows of an embedding, row-normalised first.

    Above ``subsample`` rows the n_init restarts run on a random subsample of that size and
    the best centres are refined by one Lloyd run on all rows, so the cost stays linear in n
    with one full run instead of n_init (FMDC's start at n = 100k: 4.0 s -> about 1 s).
    """
    x = row_normalize(f) if normalize else f
    seed = int(rng.integers(0, 2**31 - 1))
    if x.shape[0] <= subsample:
        km = KMeans(
            n_clusters, init="k-means++", n_init=n_init, max_iter=max_iter, random_state=seed
        )
        return km.fit_predict(x).astype(np.int64)
    rows = np.sort(rng.choice(x.shape[0], subsample, replace=False))
    best = KMeans(
        n_clusters, init="k-means++", n_init=n_init, max_iter=max_iter, random_state=seed
    ).fit(x[rows])
    km = KMeans(n_clusters, init=best.cluster_centers_, n_init=1, max_iter=max_iter)
    return km.fit_predict(x).astype(np.int64)
