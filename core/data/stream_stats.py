"""One pass over a row-block view: its summary, the ``auto`` choice and the preprocessing.

In memory, :mod:`core.data.preprocessing` learns each view's statistics (column means and
deviations, ranges, document frequencies) from the whole matrix. A view read in row blocks
gets the same statistics from one pass (:func:`column_stats`, merged block by block with
Chan et al.'s update, so the deviations are as accurate as numpy's two-pass ones); then
:class:`PreprocessedSource` applies them to each block as it is read
(``ViewTransform.apply``, the same transform that new samples get). The same pass fills the
dataset panel's summary (``core.data.column_stats.source_summary``).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator, Sequence

import numpy as np

from core.data.blocks import DEFAULT_BLOCK_BYTES, RowBlockSource, RowSubsetSource
from core.data.column_stats import column_stats, fitted_transform
from core.data.dataset import DataError
from core.data.preprocessing import PREPROCESSORS, ViewTransform, per_view_methods

__all__ = [
    "COPY_ABOVE",
    "SPILL_MARGIN",
    "VIEW_ABOVE",
    "PreprocessedSource",
    "preprocess_in_blocks",
    "preprocess_spilled",
    "preprocess_streamed",
]

#: a preprocessed copy of mapped views larger than this is not made in memory: it goes to
#: disk (:func:`preprocess_spilled`), or, without room there, a method that reads row blocks
#: preprocesses the blocks as each pass reads them from the (shared) map
COPY_ABOVE = 1 << 30
#: disk space left free after a copy on disk (bytes)
SPILL_MARGIN = 2 << 30
#: within a copy on disk, views whose copy takes at most this many bytes stay in memory
VIEW_ABOVE = 64 << 20


class PreprocessedSource(RowBlockSource):
    """A row-block view with a fitted transform applied to each block."""

    def __init__(
        self, inner: RowBlockSource, transform: ViewTransform, keep: np.ndarray | None = None
    ):
        self.inner, self.transform, self.keep = inner, transform, keep
        self.shape, self.dtype, self.label = inner.shape, inner.dtype, inner.label

    def block_rows(self, budget_bytes: int = DEFAULT_BLOCK_BYTES) -> int:
        return self.inner.block_rows(budget_bytes)

    def _apply(self, block: np.ndarray, start: int) -> np.ndarray:
        out = np.ascontiguousarray(self.transform.apply(block), dtype=self.compute_dtype)
        if self.keep is not None:  # samples missing this view: zero rows, as in memory
            out[~self.keep[start : start + out.shape[0]]] = 0.0
        return out

    def _read(self, start: int, stop: int) -> np.ndarray:
        return self._apply(self.inner.read(start, stop), start)

    def blocks(self, rows: int | None = None) -> Iterator[tuple[int, int, np.ndarray]]:
        # the inner source checked the raw block; fitted statistics keep finite values finite
        for start, stop, block in self.inner.blocks(rows):
            yield start, stop, self._apply(block, start)


def preprocess_streamed(
    sources: Sequence[RowBlockSource],
    methods: str | Sequence[str],
    auto_rule: str = "general",
    observed: np.ndarray | None = None,
) -> tuple[list[PreprocessedSource], list[ViewTransform]]:
    """``core.data.preprocessing.transform_views`` for row-block views, without reading them
    whole: each view's statistics (and ``auto`` choice) from one pass over the samples that
    have it, applied block by block as the method reads them; the other rows are zero."""
    methods = per_view_methods(methods, len(sources))
    out, fitted = [], []
    for v, (x, method) in enumerate(zip(sources, methods, strict=True)):
        if method not in PREPROCESSORS:
            raise DataError(f"unknown preprocessing {method!r}; choose from {PREPROCESSORS}")
        keep = None if observed is None or observed[:, v].all() else observed[:, v]
        s = column_stats(x if keep is None else RowSubsetSource(x, np.flatnonzero(keep)))
        try:
            t = fitted_transform(s, method, auto_rule)
        except DataError as exc:
            raise DataError(f"{x.label}: {exc}") from exc
        out.append(PreprocessedSource(x, t, keep))
        fitted.append(t)
    return out, fitted


def preprocess_in_blocks(
    views: Sequence[object], copy_above: int | None = None
) -> list[object] | None:
    """Row-block sources over memory-mapped ``views`` whose preprocessed copy would take more
    than ``copy_above`` bytes (default :data:`COPY_ABOVE`), else None (copy them as usual).

    A solver that reads row blocks (FMDC, DTLL) then preprocesses each block as it reads it
    from the map: the process holds no copy of the data, and the map's pages are the page
    cache, shared with every other process that maps the file (issue 13: at 1M x 1000 float32
    the copy was 4 GB in the app's solver child)."""
    import numpy as np

    from core.data.blocks import ArraySource

    limit = COPY_ABOVE if copy_above is None else copy_above
    if not views or not all(_file_mapped(v) for v in views):
        return None
    size = sum(int(np.prod(v.shape)) * max(np.dtype(v.dtype).itemsize, 4) for v in views)
    if size <= limit:
        return None
    return [ArraySource(v, label=f"view {i + 1}") for i, v in enumerate(views)]


def _file_mapped(x: object) -> bool:
    """Whether ``x`` is (a view of) a memory map of a file: reading it costs no copy."""
    import mmap

    import numpy as np

    while isinstance(x, np.ndarray):
        if isinstance(x, np.memmap) or isinstance(x.base, mmap.mmap):
            return True
        x = x.base
    return False


def preprocess_spilled(
    views: Sequence[object],
    methods: Sequence[str],
    auto_rule: str = "general",
    folder: str | None = None,
    copy_above: int | None = None,
) -> tuple[list[object], list[ViewTransform]] | None:
    """The in-memory preprocessing of memory-mapped ``views`` whose copy would exceed
    ``copy_above`` bytes (default :data:`COPY_ABOVE`), with the large
    outputs on disk; None when that does not apply (views not mapped, small, or too little
    free disk: the caller reads them in row blocks or copies them as before)."""
    from core.data.preprocessing import transform_views
    from core.data.spill import spill_outputs

    limit = COPY_ABOVE if copy_above is None else copy_above
    if not views or not all(_file_mapped(v) for v in views):
        return None
    sizes = [int(np.prod(v.shape)) * max(np.dtype(v.dtype).itemsize, 4) for v in views]
    if sum(sizes) <= limit:
        return None
    try:
        free = shutil.disk_usage(folder or tempfile.gettempdir()).free
    except OSError:
        return None
    if free < sum(sizes) + SPILL_MARGIN:
        return None
    with spill_outputs(folder, above=VIEW_ABOVE):
        out, fitted = transform_views(list(views), list(methods), auto_rule)
    return list(out), fitted
