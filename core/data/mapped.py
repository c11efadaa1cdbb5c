"""Open a large file memory-mapped in place: the dataset panel fills in seconds.

The isolated reader (:mod:`core.data.isolated_load`) reads a file in a child, writes a
store and summarises it: for 1M x 1000 float32 values that is a 4 GB read, a 4 GB write and
two passes before anything shows (61 s). Files whose views are stored as plain arrays can
instead be mapped where they are: an uncompressed ``.npz`` (``np.savez``: each member a
``.npy`` at an offset), a dataset store, an ``.h5ad`` whose ``X`` is a contiguous dense
dataset. No C reader parses untrusted structure on the way (the zip directory is read by
Python's ``zipfile``, HDF5 offsets by h5py on a file it only lists), so no child is needed.

What is deferred: the NaN/Inf pass (``meta["finite_check"] = "deferred"``) and the exact
summary. :func:`sampled_summary` describes evenly spread row ranges at once;
:func:`exact_summary` then makes one pass over row blocks (bounded memory), which also
finds a non-finite value; every solver checks its input anyway.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import numpy as np

from core.data.blocks import ArraySource, HDF5Source, NpySource
from core.data.dataset import DataError, MultiViewDataset, holding_dtype, view_summary

__all__ = [
    "MAP_ABOVE",
    "exact_summary",
    "open_mapped",
    "sampled_summary",
]

#: files smaller than this are read by the isolated reader as before (a copy is cheap)
MAP_ABOVE = 256 << 20
SAMPLE_ROWS = 20_000


def _map(src: object) -> np.ndarray | None:
    if isinstance(src, NpySource):  # also an .npz member (NpzMemberSource)
        return np.memmap(src.path, dtype=src.dtype, mode="r", offset=src._offset,
                         shape=src.shape)  # fmt: skip
    if isinstance(src, HDF5Source) and not src.matlab:  # MATLAB stores views transposed
        import h5py

        with h5py.File(src.path, "r") as f:
            dset = f[src.name]
            offset = dset.id.get_offset()
            if dset.chunks is not None or dset.compression or offset is None:
                return None
        return np.memmap(src.path, dtype=src.dtype, mode="r", offset=offset, shape=src.shape)
    return None


def open_mapped(
    path: str | os.PathLike[str], min_bytes: int = MAP_ABOVE
) -> MultiViewDataset | None:
    """The dataset in ``path`` with its views memory-mapped from the file, or None when the
    file is small, cannot be mapped (compressed, chunked, sparse, MATLAB's transposed
    layout), or its views would need a conversion (e.g. float64 data held as float32)."""
    from core.data.streamed import open_streamed

    p = Path(path)
    try:
        size = sum(f.stat().st_size for f in p.iterdir()) if p.is_dir() else p.stat().st_size
    except OSError:
        return None
    if size < min_bytes:
        return None
    try:
        ds = open_streamed(p)
    except DataError:
        return None
    maps = [_map(v) for v in ds.views]
    if any(m is None for m in maps) or any(m.dtype != holding_dtype(maps) for m in maps):
        return None
    meta = {**ds.meta, "finite_check": "deferred", "mapped": True}
    meta.pop("streamed", None)
    return replace(ds, views=maps, meta=meta)


def _row_ranges(n: int, rows: int, pieces: int = 40) -> np.ndarray:
    """About ``rows`` row indices in ``pieces`` evenly spread contiguous runs (sequential
    reads of the file, not one page per row)."""
    if n <= rows:
        return np.arange(n)
    run = max(1, rows // pieces)
    starts = np.linspace(0, n - run, pieces).astype(np.int64)
    return np.unique((starts[:, None] + np.arange(run)[None, :]).ravel())


def sampled_summary(ds: MultiViewDataset, rows: int = SAMPLE_ROWS) -> dict[str, object]:
    """``ds.summary()`` with the per-view facts (density, range, all-zero rows) taken from
    about ``rows`` rows; says so in its warnings. Labels and ids are exact."""
    idx = _row_ranges(ds.n_samples, rows)
    views = []
    for name, v in zip(ds.view_names, ds.views, strict=True):
        info = view_summary(name, np.asarray(v[idx]))
        info["shape"] = [int(v.shape[0]), int(v.shape[1])]
        info["zero_rows"] = round(info["zero_rows"] * ds.n_samples / idx.size)
        info["sampled_rows"] = int(idx.size)
        views.append(info)
    summary = ds.summary(views)
    summary["warnings"] = [
        *ds.warnings,
        f"summary from {idx.size:,} of {ds.n_samples:,} rows (memory-mapped file); the exact "
        "one follows",
    ]
    return summary


def exact_summary(ds: MultiViewDataset) -> dict[str, object]:
    """``ds.summary()`` from one pass over row blocks per view (bounded memory); a NaN or
    Inf raises DataError naming the view, row and column (the check deferred at opening)."""
    views = []
    for i, (name, v) in enumerate(zip(ds.view_names, ds.views, strict=True)):
        if hasattr(v, "indptr"):
            views.append(view_summary(name, v))
            continue
        src = ArraySource(v, label=f"view {i + 1} ({name})")
        views.append(src.view_summary(name))  # column_stats checks every block
        views[-1].pop("streamed", None)
    return ds.summary(views)
