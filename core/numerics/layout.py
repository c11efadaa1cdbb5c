"""2-D layouts of multi-view data for display: t-SNE (openTSNE) at every size, UMAP optional.

* :func:`representation` turns the (preprocessed) views into one dense ``n x <=50`` matrix:
  each view is scaled to unit total norm (so every view weighs the same), reduced with a
  truncated SVD when it is sparse or wide, concatenated, and reduced again to <= 50 dims.
  Sparse views are never densified.
* :func:`tsne_embedding` runs openTSNE in chunks of 25 iterations (Orange's pattern): after
  each chunk ``callback(iteration, embedding)`` receives a copy of the current layout and may
  return True to cancel, which raises :class:`EmbeddingCancelled`.
* :func:`approximate_embedding`: t-SNE of a random subsample, every other sample placed at
  the distance-weighted mean of its nearest embedded samples. The placement is recomputed for
  each intermediate frame, so the whole layout animates; 1M points are on screen in seconds.
* :func:`large_embedding` (above :data:`MAX_EXACT` samples): that placement as the start of
  a t-SNE of all samples (approximate neighbours, no early exaggeration), refined live.
* :func:`embed` picks by size (and ``method="umap"``: :mod:`core.numerics.layout_umap`);
  :func:`knn_preservation` measures how much of the data's neighbourhoods a layout keeps.

No Qt here: the GUI calls these from a worker thread.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

# Imported here, not lazily: importing sklearn.decomposition takes ~2 s with the GIL held,
# which would freeze a GUI if it happened in a worker thread mid-session.
from openTSNE import TSNEEmbedding, affinity, initialization
from sklearn.decomposition import PCA, TruncatedSVD
from sklearn.neighbors import NearestNeighbors

from core.numerics.layout_common import Callback, EmbeddingCancelled, _nearest
from core.numerics.layout_umap import umap_embedding

__all__ = [
    "EmbeddingCancelled",
    "approximate_embedding",
    "embed",
    "knn_preservation",
    "large_embedding",
    "layout_kind",
    "representation",
    "tsne_embedding",
]


#: Above this many samples :func:`embed` uses :func:`large_embedding`.
MAX_EXACT = 20_000
CHUNK = 25
#: Iterations of the subsample t-SNE (250 early exaggeration + 500), the frames' numbering.
SUBSAMPLE_ITER = 750
#: Iterations of the full-n t-SNE in :func:`large_embedding` (after the placement).
LARGE_ITER = 150
#: From this many samples the large layout finds neighbours with pynndescent when installed.
PYNNDESCENT_FROM = 200_000
#: The PCA of a dense view takes its mean and directions from at most this many random rows.
PCA_SAMPLE = 50_000


def _pca_cov(
    x: np.ndarray,
    k: int,
    scale: float = 1.0,
    block: int = 65536,
    sample: int | None = None,
    random_state: int = 0,
) -> np.ndarray:
    """PCA of ``scale * x`` through the d x d covariance, accumulated over row blocks.

    matmul + eigh release the GIL (a LAPACK SVD of a tall matrix through scipy holds it for
    seconds, freezing a GUI thread), and the blocks keep memory at ``n x k`` plus one block:
    no centred or float64 copy of a 1M-row view. Above ``sample`` rows (default
    :data:`PCA_SAMPLE`) the mean and the directions come from that many random rows; every
    row is still projected. The covariance of all rows was n d² flops, most of the layout's
    time before its first frame at 1M (2 min of CPU for a 600-feature view), while the 50
    leading directions of a display layout are settled long before.
    """
    n, d = x.shape
    sample = PCA_SAMPLE if sample is None else sample
    fit = x
    if n > sample:
        rows = np.sort(np.random.default_rng(random_state).choice(n, size=sample, replace=False))
        fit = np.asarray(x[rows], dtype=np.float64)
    mean = fit.mean(axis=0, dtype=np.float64)
    cov = np.zeros((d, d))
    for s in range(0, fit.shape[0], block):
        b = np.asarray(fit[s : s + block], dtype=np.float64) - mean
        cov += b.T @ b
    del fit
    _, v = np.linalg.eigh(cov)
    v = v[:, ::-1][:, :k]
    v *= np.where(v[np.argmax(np.abs(v), axis=0), np.arange(v.shape[1])] < 0, -1.0, 1.0)
    v *= scale
    out = np.empty((n, v.shape[1]))
    for s in range(0, n, block):
        out[s : s + block] = (np.asarray(x[s : s + block], dtype=np.float64) - mean) @ v
    return out


def _reduce(
    x: np.ndarray | sp.spmatrix, k: int, random_state: int, scale: float = 1.0
) -> np.ndarray:
    """``scale * x`` reduced to <= k centred dimensions (PCA / truncated SVD)."""
    n, d = x.shape
    k = max(1, min(k, d, n - 1))
    if sp.issparse(x):
        if d <= k + 1:
            dense = x.toarray() * scale
            return dense - dense.mean(axis=0)
        return TruncatedSVD(n_components=k, random_state=random_state).fit_transform(x * scale)
    if d <= k:
        x = np.asarray(x, dtype=np.float64) * scale
        return x - x.mean(axis=0)
    if d <= 2000:
        return _pca_cov(x, k, scale, random_state=random_state)
    x = np.asarray(x, dtype=np.float64) * scale
    return PCA(n_components=k, svd_solver="randomized", random_state=random_state).fit_transform(x)


def _norm(x: np.ndarray, block: int = 65536) -> float:
    """Frobenius norm in float64 without a float64 copy of the whole array."""
    total = 0.0
    for s in range(0, x.shape[0], block):
        b = np.asarray(x[s : s + block], dtype=np.float64)
        total += float(np.einsum("ij,ij->", b, b))
    return total**0.5


def representation(
    views: Sequence[np.ndarray | sp.spmatrix], n_components: int = 50, random_state: int = 0
) -> np.ndarray:
    """One dense ``n x <=n_components`` float64 matrix summarising all views equally."""
    if not views:
        raise ValueError("no views to embed")
    n = views[0].shape[0]
    # the views' reductions side by side, written in place (no list + hstack copy); from
    # PYNNDESCENT_FROM samples in float32 (1M x 150: 0.6 GB, not 1.2 + 1.2 GB of float64)
    dtype = np.float32 if n >= PYNNDESCENT_FROM and len(views) > 1 else np.float64
    if any(callable(getattr(v, "blocks", None)) for v in views):  # read in row blocks
        from core.numerics.stream_layout import streamed_parts

        x = np.hstack(streamed_parts(views, n_components, random_state)).astype(dtype, copy=False)
        width, views = x.shape[1], []
    else:
        x = np.empty((n, sum(min(v.shape[1], n_components + 1) for v in views)), dtype=dtype)
        width = 0
    for v in views:
        norm = float(sp.linalg.norm(v)) if sp.issparse(v) else _norm(v)
        part = _reduce(v, n_components, random_state, 1.0 / norm if norm > 0 else 1.0)
        x[:, width : width + part.shape[1]] = part
        width += part.shape[1]
        del part
    x = x[:, :width]
    if x.shape[1] > n_components:
        x = _reduce(x, n_components, random_state)
    return np.ascontiguousarray(x, dtype=np.float64)


def tsne_embedding(
    X: np.ndarray,
    *,
    callback: Callback | None = None,
    n_jobs: int = 1,
    random_state: int = 0,
    perplexity: float = 30.0,
    early_iter: int = 250,
    n_iter: int = 500,
) -> np.ndarray:
    """openTSNE t-SNE (PCA initialisation), reported every 25 iterations via ``callback``.

    ``callback(iteration, embedding)`` gets a copy; returning True raises
    :class:`EmbeddingCancelled`. Returns the final ``n x 2`` embedding.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    n = X.shape[0]
    if n < 4:
        return np.zeros((n, 2)) if n else np.empty((0, 2))
    return np.array(_tsne(X, callback, n_jobs, random_state, perplexity, early_iter, n_iter))


def _tsne(
    X: np.ndarray,
    callback: Callback | None,
    n_jobs: int,
    random_state: int,
    perplexity: float,
    early_iter: int,
    n_iter: int,
) -> TSNEEmbedding:
    n = X.shape[0]
    perplexity = float(min(perplexity, max((n - 1) / 3.0, 1.0)))
    aff = affinity.PerplexityBasedNN(
        X, perplexity=perplexity, n_jobs=n_jobs, random_state=random_state, verbose=False
    )
    init = initialization.pca(X, random_state=random_state, verbose=False)
    emb = TSNEEmbedding(init, aff, n_jobs=n_jobs, random_state=random_state, verbose=False)
    if callback is not None and callback(0, np.array(emb)):
        raise EmbeddingCancelled("t-SNE cancelled")
    schedule = [(12.0, 0.5)] * (early_iter // CHUNK) + [(1.0, 0.8)] * (n_iter // CHUNK)
    for step, (exaggeration, momentum) in enumerate(schedule, start=1):
        emb.optimize(
            n_iter=CHUNK,
            exaggeration=exaggeration,
            momentum=momentum,
            inplace=True,
            verbose=False,
        )
        if callback is not None and callback(step * CHUNK, np.array(emb)):
            raise EmbeddingCancelled("t-SNE cancelled")
    return emb


def approximate_embedding(
    X: np.ndarray,
    *,
    n_subsample: int = 2500,
    k: int = 5,
    callback: Callback | None = None,
    n_jobs: int = 1,
    random_state: int = 0,
    refine_iter: int = 0,
) -> np.ndarray:
    """Fast layout for large n: t-SNE of a subsample, the rest placed from their neighbours.

    Each non-embedded sample goes to the inverse-distance weighted mean of its ``k`` nearest
    embedded samples (in the representation space), plus a tiny deterministic jitter so
    duplicates do not stack. Intermediate frames reach ``callback`` for all n samples.
    ``refine_iter > 0`` then optimises the placed samples against the fixed subsample
    layout with openTSNE's own ``transform`` (its t-SNE gradient for new points) for that
    many iterations.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    n = X.shape[0]
    if n <= n_subsample:
        return tsne_embedding(X, callback=callback, n_jobs=n_jobs, random_state=random_state)
    rng = np.random.default_rng(random_state)
    sub = np.sort(rng.choice(n, size=n_subsample, replace=False))
    idx, w = _nearest(X, X[sub], k)
    jitter = rng.normal(size=(n, 2))

    def place(small: np.ndarray) -> np.ndarray:
        full = np.einsum("nk,nkd->nd", w, small[idx])
        spread = float(np.std(small)) if small.size else 0.0
        full += jitter * (0.01 * spread)
        full[sub] = small
        return full

    inner = None
    if callback is not None:

        def inner(it: int, small: np.ndarray) -> bool | None:
            return callback(it, place(small))

    sub_x = X[sub]
    emb = _tsne(sub_x, inner, n_jobs, random_state, 30.0, 250, 500)
    full = place(np.array(emb))
    if refine_iter > 0:
        rest = np.setdiff1d(np.arange(n), sub, assume_unique=True)
        moved = emb.transform(X[rest], initialization="median", n_iter=refine_iter)
        full[rest] = np.asarray(moved)
    return full


def _knn_method(n: int) -> str:
    """Annoy (bundled with openTSNE) unless pynndescent is installed and n is large: its
    numba kernels are several times faster once compiled, but compiling costs ~30 s."""
    if n >= PYNNDESCENT_FROM:
        try:
            import pynndescent  # noqa: F401
        except ImportError:
            return "annoy"
        return "pynndescent"
    return "annoy"


def large_embedding(
    X: np.ndarray,
    *,
    callback: Callback | None = None,
    n_jobs: int = 1,
    random_state: int = 0,
    n_subsample: int = 2500,
    perplexity: float = 10.0,
    n_iter: int = LARGE_ITER,
    knn_method: str = "auto",
) -> np.ndarray:
    """t-SNE of all samples, started from a subsample layout: fast first frame, then refined.

    1. :func:`approximate_embedding`: t-SNE of ``n_subsample`` samples, every sample placed at
       its neighbours' mean; frames for all n samples (iterations 0 to 750) within seconds.
    2. openTSNE affinities of all n samples from approximate neighbours (Annoy, or
       pynndescent when installed and n is large); no frames (the kNN search has no callback).
    3. openTSNE (FFT gradients) on all n samples from the placement, ``n_iter`` iterations
       without early exaggeration (the placement is already spread out, Kobak & Berens 2019),
       a frame every 25 iterations (numbered 750 + i).

    At 20k samples this keeps nearly the 10-NN of exact t-SNE (docs/benchmarks/layout_quality.md).
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    n = X.shape[0]
    if n <= n_subsample:
        return tsne_embedding(X, callback=callback, n_jobs=n_jobs, random_state=random_state)
    init = approximate_embedding(
        X, n_subsample=n_subsample, callback=callback, n_jobs=n_jobs, random_state=random_state
    )
    method = _knn_method(n) if knn_method == "auto" else knn_method
    perplexity = float(min(perplexity, max((n - 1) / 3.0, 1.0)))
    aff = affinity.PerplexityBasedNN(
        X, perplexity=perplexity, method=method, n_jobs=n_jobs, random_state=random_state,
        verbose=False,
    )  # fmt: skip
    emb = TSNEEmbedding(
        init, aff, n_jobs=n_jobs, random_state=random_state, verbose=False,
        negative_gradient_method="fft",
    )  # fmt: skip
    for step in range(1, n_iter // CHUNK + 1):
        emb.optimize(n_iter=CHUNK, exaggeration=1.0, momentum=0.8, inplace=True, verbose=False)
        if callback is not None and callback(SUBSAMPLE_ITER + step * CHUNK, np.array(emb)):
            raise EmbeddingCancelled("t-SNE cancelled")
    return np.array(emb)


def layout_kind(n: int, method: str = "tsne", max_exact: int = MAX_EXACT) -> str:
    """Which layout :func:`embed` computes for n samples: 'tsne', 'large' or 'umap'."""
    if method == "umap":
        return "umap"
    if method != "tsne":
        raise ValueError(f"layout method must be 'tsne' or 'umap', got {method!r}")
    return "tsne" if n <= max_exact else "large"


def embed(
    X: np.ndarray,
    *,
    method: str = "tsne",
    callback: Callback | None = None,
    n_jobs: int = 1,
    random_state: int = 0,
    max_exact: int = MAX_EXACT,
) -> np.ndarray:
    """The display layout: exact t-SNE up to ``max_exact`` samples, :func:`large_embedding`
    above; ``method="umap"`` uses umap-learn (:mod:`core.numerics.layout_umap`)."""
    kind = layout_kind(X.shape[0], method, max_exact)
    if kind == "umap":
        return umap_embedding(X, callback=callback, random_state=random_state)
    if kind == "tsne":
        return tsne_embedding(X, callback=callback, n_jobs=n_jobs, random_state=random_state)
    return large_embedding(
        X,
        n_subsample=min(max_exact, 2500),
        callback=callback,
        n_jobs=n_jobs,
        random_state=random_state,
    )


def knn_preservation(
    x: np.ndarray, y: np.ndarray, k: int = 10, probes: int = 2000, random_state: int = 0
) -> float:
    """Share of each point's ``k`` nearest neighbours in ``x`` that stay among its ``k``
    nearest in the layout ``y``, averaged over ``probes`` random points (all when fewer)."""
    n = x.shape[0]
    if y.shape[0] != n:
        raise ValueError(f"x has {n} rows but the layout has {y.shape[0]}")
    k = min(k, n - 1)
    idx = np.random.default_rng(random_state).choice(n, size=min(probes, n), replace=False)
    near = []
    for data in (x, y):
        got = NearestNeighbors(n_neighbors=k + 1).fit(data).kneighbors(data[idx])[1]
        near.append([set(row[row != i][:k]) for row, i in zip(got, idx, strict=True)])
    hits = sum(len(a & b) for a, b in zip(*near, strict=True))
    return hits / (k * len(idx))
