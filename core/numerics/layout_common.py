"""What the t-SNE and UMAP layouts share: the callback type, cancellation, placement weights."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["Callback", "EmbeddingCancelled"]

#: ``callback(iteration, layout)``: a copy of the current layout; returning True cancels.
Callback = Callable[[int, np.ndarray], bool | None]


class EmbeddingCancelled(RuntimeError):
    """The callback asked to stop."""


def _nearest(
    X: np.ndarray, ref: np.ndarray, k: int, chunk: int = 2048
) -> tuple[np.ndarray, np.ndarray]:
    """Indices and normalised inverse-distance weights of the k nearest rows of ``ref``.

    The ranking needs only ``|r|^2 - 2 x.r`` (``|x|^2`` is the same for the whole row), built
    in place in one BLAS product per chunk; ``|x|^2`` is added to the k kept distances only.
    """
    k = min(k, ref.shape[0])
    ref_sq = np.einsum("ij,ij->i", ref, ref)
    idx = np.empty((X.shape[0], k), dtype=np.int64)
    w = np.empty((X.shape[0], k))
    for s in range(0, X.shape[0], chunk):
        xb = X[s : s + chunk]
        d2 = xb @ ref.T
        d2 *= -2.0
        d2 += ref_sq
        part = (
            np.argpartition(d2, k - 1, axis=1)[:, :k]
            if k < ref.shape[0]
            else (np.broadcast_to(np.arange(k), (xb.shape[0], k)).copy())
        )
        kept = np.take_along_axis(d2, part, axis=1) + np.einsum("ij,ij->i", xb, xb)[:, None]
        dist = np.sqrt(np.maximum(kept, 0.0))
        inv = 1.0 / (dist + 1e-9 + 0.05 * dist.mean(axis=1, keepdims=True))
        idx[s : s + chunk] = part
        w[s : s + chunk] = inv / inv.sum(axis=1, keepdims=True)
    return idx, w
