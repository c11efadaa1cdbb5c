"""Per-column statistics of a view read in row blocks, from one pass (cached on the source).

Means and squared deviations are merged block by block with Chan et al.'s update, so the
deviations are as accurate as numpy's two-pass ones. Used for the dataset summary of a
streamed view and for its preprocessing (:mod:`core.data.stream_stats`). Sources are
duck-typed (``shape``, ``blocks()``): this module imports no other part of core.data.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ColumnStats", "column_stats", "source_summary"]


@dataclass
class ColumnStats:
    """Per-column facts of one view, from one pass over its row blocks."""

    n: int
    mean: np.ndarray
    m2: np.ndarray  # sum of squared deviations from the mean
    lo: np.ndarray
    hi: np.ndarray
    nnz: np.ndarray  # non-zeros per column (tf-idf's document frequency)
    zero_rows: int
    integer_valued: bool
    sparse: bool

    def std(self, ddof: int = 0) -> np.ndarray:
        return np.sqrt(self.m2 / max(self.n - ddof, 1))

    @property
    def density(self) -> float:
        return float(self.nnz.sum()) / float(max(self.n * self.mean.size, 1))


def column_stats(source: object) -> ColumnStats:
    """The :class:`ColumnStats` of ``source`` (cached on it: one pass per source)."""
    cached = getattr(source, "_column_stats", None)
    if cached is not None:
        return cached
    d = source.shape[1]
    n, mean, m2 = 0, np.zeros(d), np.zeros(d)
    lo, hi = np.full(d, np.inf), np.full(d, -np.inf)
    nnz, zero_rows, integer = np.zeros(d, dtype=np.int64), 0, True
    for _, _, block in source.blocks():
        b = np.asarray(block, dtype=np.float64)
        k = b.shape[0]
        b_mean = b.mean(axis=0)
        b_m2 = ((b - b_mean) ** 2).sum(axis=0)
        delta = b_mean - mean
        total = n + k
        mean = mean + delta * (k / total)
        m2 = m2 + b_m2 + delta**2 * (n * k / total)
        n = total
        np.minimum(lo, b.min(axis=0), out=lo)
        np.maximum(hi, b.max(axis=0), out=hi)
        nz = b != 0
        nnz += nz.sum(axis=0)
        zero_rows += int(np.count_nonzero(~nz.any(axis=1)))
        integer = integer and bool(np.all(np.mod(b, 1) == 0))
    stats = ColumnStats(n, mean, m2, lo, hi, nnz, zero_rows, integer, _is_sparse(source))
    source._column_stats = stats
    return stats


def _is_sparse(source: object) -> bool:
    return bool(getattr(source, "sparse", False))


def source_summary(name: str, source: object) -> dict[str, object]:
    """What ``core.data.dataset.view_summary`` gives for an in-memory view, from one pass."""
    s = column_stats(source)
    n, d = source.shape
    return {
        "name": name,
        "shape": [int(n), int(d)],
        "storage": "sparse" if s.sparse else "dense",
        "density": s.density,
        "zero_rows": s.zero_rows,
        "min": float(s.lo.min()),
        "max": float(s.hi.max()),
        "integer_valued": s.integer_valued,
        "streamed": True,
    }
