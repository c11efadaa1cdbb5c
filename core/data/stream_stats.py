"""One pass over a row-block view: its summary, the ``auto`` choice and the preprocessing.

In memory, :mod:`core.data.preprocessing` learns each view's statistics (column means and
deviations, ranges, document frequencies) from the whole matrix. A view read in row blocks
gets the same statistics from one pass (:func:`column_stats`, merged block by block with
Chan et al.'s update, so the deviations are as accurate as numpy's two-pass ones); then
:class:`PreprocessedSource` applies them to each block as it is read
(``core.data.preprocess_stats.apply_stats``, the same function that transforms new samples
like fitted ones). The same pass fills the dataset panel's summary
(``core.data.column_stats.source_summary``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from core.data.blocks import DEFAULT_BLOCK_BYTES, RowBlockSource
from core.data.column_stats import ColumnStats, column_stats
from core.data.dataset import DataError
from core.data.preprocess_stats import apply_stats
from core.data.preprocessing import AUTO_RULES, PREPROCESSORS, SCALE_SPREAD_LIMIT, std_spread

__all__ = ["PreprocessedSource", "preprocess_streamed"]


def _is_count(s: ColumnStats) -> bool:
    return s.lo.min() >= 0 and s.integer_valued and (s.sparse or s.density < 0.5)


def _general(s: ColumnStats) -> str:
    if s.sparse:
        return "l2"
    if s.lo.min() < 0:
        return "zscore"
    if s.density < 0.5 or std_spread(s.std()) <= SCALE_SPREAD_LIMIT:
        return "l2"
    return "zscore"


def _choose(s: ColumnStats, rule: str) -> str:
    """``core.data.preprocessing.AUTO_RULES`` decided from column statistics."""
    if rule not in AUTO_RULES:
        raise DataError(f"unknown auto preprocessing rule {rule!r}; choose from {list(AUTO_RULES)}")
    if rule == "zscore":
        return "zscore"
    if rule == "raw_counts":
        return "none" if s.sparse or _is_count(s) else "zscore"
    if rule == "tfidf_text":
        if _is_count(s):
            return "tfidf"
        if s.sparse and s.lo.min() >= 0:
            return "l2"
    return _general(s)


def _fitted(s: ColumnStats, method: str) -> tuple[dict[str, np.ndarray], str]:
    """The statistics ``apply_stats`` needs for ``method``, and the name ``preprocess`` gives."""
    d = s.mean.size
    if method == "zscore":
        shift = np.zeros(d) if s.sparse else s.mean
        name = "zscore (unit variance, not centred: sparse view)" if s.sparse else "zscore"
        return {"kind": np.str_("zscore"), "scale": s.std(ddof=1), "shift": shift}, name
    if method == "minmax":
        if s.sparse:  # the min/max over blocks include the implicit zeros, as scipy's do
            neg = np.any(s.lo < 0)
            scale = np.maximum(np.abs(s.lo), np.abs(s.hi)) if neg else s.hi
            name = "minmax (max-abs scaling: sparse view with negatives)" if neg else "minmax"
            return {"kind": np.str_("minmax"), "scale": scale, "shift": np.zeros(d)}, name
        return {"kind": np.str_("minmax"), "shift": s.lo, "scale": s.hi - s.lo}, "minmax"
    if method == "maxscale":
        top = float(s.hi.max())
        if top <= 0:
            top = float(max(abs(s.lo.min()), abs(s.hi.max())))
        return {"kind": np.str_("maxscale"), "top": np.float64(top or 1.0)}, "maxscale"
    if method == "tfidf":
        if s.lo.min() < 0:
            raise DataError("tf-idf needs non-negative counts; this view has negative values")
        return {"kind": np.str_("tfidf"), "idf": np.log(s.n / np.maximum(s.nnz, 1))}, "tfidf"
    return {"kind": np.str_(method)}, method  # none, l2: row-wise or nothing


class PreprocessedSource(RowBlockSource):
    """A row-block view with fitted preprocessing statistics applied to each block."""

    def __init__(self, inner: RowBlockSource, stats: dict[str, np.ndarray]):
        self.inner, self.stats = inner, stats
        self.shape, self.dtype, self.label = inner.shape, inner.dtype, inner.label

    def block_rows(self, budget_bytes: int = DEFAULT_BLOCK_BYTES) -> int:
        return self.inner.block_rows(budget_bytes)

    def _read(self, start: int, stop: int) -> np.ndarray:
        return apply_stats(self.inner.read(start, stop), self.stats)

    def blocks(self, rows: int | None = None) -> Iterator[tuple[int, int, np.ndarray]]:
        for start, stop, block in self.inner.blocks(rows):
            yield start, stop, self._checked(apply_stats(block, self.stats), start)


def preprocess_streamed(
    sources: Sequence[RowBlockSource], methods: str | Sequence[str], auto_rule: str = "general"
) -> tuple[list[PreprocessedSource], list[str], list[dict[str, np.ndarray]]]:
    """``core.data.preprocessing.preprocess`` for row-block views, without reading them whole.

    Returns the preprocessed sources, the names of what was done (as ``preprocess`` names
    them) and the fitted statistics (for assigning new samples later).
    """
    if isinstance(methods, str):
        methods = [methods] * len(sources)
    if len(methods) != len(sources):
        raise DataError(f"{len(methods)} preprocessing choices for {len(sources)} views")
    out, names, fitted = [], [], []
    for x, method in zip(sources, methods, strict=True):
        if method not in PREPROCESSORS:
            raise DataError(f"unknown preprocessing {method!r}; choose from {PREPROCESSORS}")
        s = column_stats(x)
        chosen = _choose(s, auto_rule) if method == "auto" else method
        try:
            stats, name = _fitted(s, chosen)
        except DataError as exc:
            raise DataError(f"{x.label}: {exc}") from exc
        out.append(PreprocessedSource(x, stats))
        names.append(f"auto: {name}" if method == "auto" else name)
        fitted.append(stats)
    return out, names, fitted
