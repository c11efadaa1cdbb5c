"""Per-column statistics of a view read in row blocks, from one pass (cached on the source).

Means and squared deviations are merged block by block with Chan et al.'s update, so the
deviations are as accurate as numpy's two-pass ones. Used for the dataset summary of a
streamed view and for its preprocessing (:mod:`core.data.stream_stats`). Sources are
duck-typed (``shape``, ``blocks()``), so ``core.data.blocks`` can use this module without
an import circle.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from core.data.dataset import DataError
from core.data.preprocessing import (
    ViewTransform,
    choose_auto_from_facts,
    inverse_document_frequency,
    is_histogram,
    std_spread,
)

__all__ = [
    "ColumnStats",
    "choose_auto_from_stats",
    "column_stats",
    "fitted_transform",
    "source_summary",
]


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
    row_sum_lo: float = np.inf  # the smallest and largest sum of a non-zero row
    row_sum_hi: float = 0.0

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
    row_lo, row_hi = np.inf, 0.0
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
        sums = b.sum(axis=1)
        sums = sums[sums > 0]  # all-zero rows: absent samples, empty documents
        if sums.size:
            row_lo, row_hi = min(row_lo, float(sums.min())), max(row_hi, float(sums.max()))
    stats = ColumnStats(
        n, mean, m2, lo, hi, nnz, zero_rows, integer, _is_sparse(source), row_lo, row_hi
    )
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


class _StatsFacts:
    """``core.data.preprocessing.ViewFacts`` of a view read in row blocks, from its stats."""

    def __init__(self, s: ColumnStats) -> None:
        self.sparse = s.sparse
        self.empty = int(s.nnz.sum()) == 0 if s.sparse else s.n * s.mean.size == 0
        self.nonnegative = bool(s.lo.min() >= 0) if s.lo.size else True
        self.integer_valued = s.integer_valued
        self.density = s.density
        self.binary = (
            not self.empty
            and self.nonnegative
            and self.integer_valued
            and bool(s.hi.size)
            and float(s.hi.max()) == 1.0
        )
        self.histogram = (
            not self.sparse
            and not self.empty
            and self.nonnegative
            and is_histogram(s.row_sum_lo, s.row_sum_hi)
        )
        self._s = s

    def spread(self) -> float:
        return std_spread(self._s.std())


def choose_auto_from_stats(s: ColumnStats, rule: str) -> str:
    """The ``auto`` choice of ``core.data.preprocessing`` (the same rules), from column stats."""
    return choose_auto_from_facts(_StatsFacts(s), rule)


def fitted_transform(s: ColumnStats, method: str, auto_rule: str = "general") -> ViewTransform:
    """The :class:`~core.data.preprocessing.ViewTransform` that ``fit_view`` would give for
    ``method`` (``auto``: chosen by ``auto_rule``), from one pass's column statistics."""
    kind = choose_auto_from_stats(s, auto_rule) if method == "auto" else method
    return replace(_fitted(s, kind), auto=method == "auto")


def _fitted(s: ColumnStats, kind: str) -> ViewTransform:
    d, n = s.mean.size, s.n
    if kind == "zscore":
        if s.sparse:
            note = "unit variance, not centred: sparse view"
            return ViewTransform(kind, note=note, scale=s.std(ddof=1), fitted_on=n)
        return ViewTransform(kind, shift=s.mean, scale=s.std(ddof=1), fitted_on=n)
    if kind == "minmax":
        if s.sparse:  # the min/max over blocks include the implicit zeros, as scipy's do
            if np.any(s.lo < 0):
                scale = np.maximum(np.abs(s.lo), np.abs(s.hi))
                note = "max-abs scaling: sparse view with negatives"
                return ViewTransform(kind, note=note, scale=scale, fitted_on=n)
            return ViewTransform(kind, scale=s.hi, fitted_on=n)
        return ViewTransform(kind, shift=s.lo, scale=s.hi - s.lo, fitted_on=n)
    if kind == "maxscale":
        top = float(s.hi.max()) if d else 0.0
        if top <= 0 and d:
            top = float(max(abs(s.lo.min()), abs(s.hi.max())))
        note = "" if top else "all-zero view left unchanged"
        return ViewTransform(kind, note=note, top=top, fitted_on=n)
    if kind == "tfidf":
        if d and s.lo.min() < 0:
            raise DataError("tf-idf needs non-negative counts; this view has negative values")
        return ViewTransform(kind, idf=inverse_document_frequency(n, s.nnz), fitted_on=n)
    return ViewTransform(kind, fitted_on=n)  # none, l2: row-wise or nothing
