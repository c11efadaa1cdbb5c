"""Spectral embeddings of anchor graphs and of sparse sample graphs (common spec §4)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.linalg import eigsh, svds

from core.numerics.linalg import row_normalize
from core.numerics.threads import blas_single

__all__ = ["graph_spectral_embedding", "stacked_anchor_embedding", "top_left_singular_vectors"]

DENSE_EIG_MAX = 3000  # dense eigh up to this n (rgmvc spec §8)


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
        lo = max(p - k, 0)
        vals, vecs = scipy.linalg.eigh((gram + gram.T) / 2, subset_by_index=[lo, p - 1])
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


def graph_spectral_embedding(w: sp.csr_matrix, c: int, rng: np.random.Generator) -> np.ndarray:
    """Top-c eigenvectors of D^{-1/2} W D^{-1/2} of a sparse sample graph, rows L2-normalised
    (normalised spectral clustering, as RG-MVC's post-processing: rgmvc spec §8)."""
    n = w.shape[0]
    deg = np.asarray(w.sum(axis=1)).ravel()
    inv = np.where(deg > 0, 1.0 / np.sqrt(np.maximum(deg, 1e-300)), 0.0)
    lap = sp.diags(inv) @ w @ sp.diags(inv)
    if n <= DENSE_EIG_MAX or c >= n - 1:
        dense = lap.toarray()
        # only the top c eigenpairs (all n of them cost 10x more at n = 3000), on one
        # thread (n = 2000 on the loaded 2-core machine: 1.1 s against 9.5 s with two)
        lo = max(n - c, 0)
        with blas_single():
            vals, vecs = scipy.linalg.eigh((dense + dense.T) / 2, subset_by_index=[lo, n - 1])
        h = vecs[:, np.argsort(vals)[::-1][:c]]
    else:
        v0 = rng.uniform(-1, 1, size=n)
        vals, vecs = eigsh(sp.csr_matrix(lap), k=c, which="LA", v0=v0)
        h = vecs[:, np.argsort(vals)[::-1]]
    return row_normalize(h)
