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
from core.data.column_stats import choose_auto_from_stats, column_stats, fitted_stats
from core.data.dataset import DataError
from core.data.preprocess_stats import apply_stats
from core.data.preprocessing import PREPROCESSORS

__all__ = ["PreprocessedSource", "preprocess_streamed"]


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
        chosen = choose_auto_from_stats(s, auto_rule) if method == "auto" else method
        try:
            stats, name = fitted_stats(s, chosen)
        except DataError as exc:
            raise DataError(f"{x.label}: {exc}") from exc
        out.append(PreprocessedSource(x, stats))
        names.append(f"auto: {name}" if method == "auto" else name)
        fitted.append(stats)
    return out, names, fitted
