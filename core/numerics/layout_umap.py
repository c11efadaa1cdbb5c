"""UMAP layout (umap-learn, an optional extra: ``pip install "mvc-studio[layout]"``).

umap-learn has no callback for intermediate epochs, so above :data:`PREVIEW_FROM` samples a
UMAP of a 2,500-sample subsample, with every other sample placed at its neighbours' mean, is
shown first and then starts the UMAP of all samples (as the large t-SNE layout does). umap-learn
is imported lazily (its import takes seconds) and only in the layout's process or thread; its
numba kernels run under the thread-safe threading layer that ``core.numerics.jit.config`` picks.
"""

from __future__ import annotations

import importlib.util

import numpy as np

from core.numerics.layout_common import Callback, EmbeddingCancelled, _nearest

__all__ = ["INSTALL_HINT", "PREVIEW_FROM", "umap_available", "umap_embedding"]

PREVIEW_FROM = 20_000  # as core.numerics.layout.MAX_EXACT: above it a preview comes first
INSTALL_HINT = 'UMAP needs umap-learn: pip install "mvc-studio[layout]" (or pip install umap-learn)'


def umap_available() -> bool:
    """True when umap-learn can be imported (checked without importing it)."""
    return importlib.util.find_spec("umap") is not None


def _umap(X: np.ndarray, n_neighbors: int, min_dist: float, random_state: int, init) -> np.ndarray:
    import umap

    model = umap.UMAP(
        n_neighbors=min(n_neighbors, X.shape[0] - 1),
        min_dist=min_dist,
        init=init,
        random_state=random_state,  # deterministic, and so one thread (n_jobs=1)
        n_jobs=1,
    )
    return np.asarray(model.fit_transform(X), dtype=np.float64)


def umap_embedding(
    X: np.ndarray,
    *,
    callback: Callback | None = None,
    random_state: int = 0,
    n_neighbors: int = 15,
    min_dist: float = 0.1,
    n_subsample: int = 2500,
) -> np.ndarray:
    """UMAP of ``X`` (deterministic: ``random_state`` fixes it, one thread).

    Above :data:`PREVIEW_FROM` samples ``callback(0, preview)`` first receives the subsample
    layout with every sample placed; returning True raises :class:`EmbeddingCancelled`.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    n = X.shape[0]
    if n < 4:
        return np.zeros((n, 2)) if n else np.empty((0, 2))
    init: str | np.ndarray = "spectral"
    if n > max(PREVIEW_FROM, n_subsample):
        rng = np.random.default_rng(random_state)
        sub = np.sort(rng.choice(n, size=n_subsample, replace=False))
        small = _umap(X[sub], n_neighbors, min_dist, random_state, "spectral")
        idx, w = _nearest(X, X[sub], 5)
        init = np.einsum("nk,nkd->nd", w, small[idx])
        init += rng.normal(scale=0.01 * float(np.std(small)), size=init.shape)
        init[sub] = small
        if callback is not None and callback(0, init.copy()):
            raise EmbeddingCancelled("UMAP cancelled")
    return _umap(X, n_neighbors, min_dist, random_state, init)
