"""Row-block sources: views read a block of rows at a time, never whole.

A view that does not fit in memory as float64 is handed to a solver as a
:class:`RowBlockSource`: an array-like with ``shape``, ``dtype`` and ``blocks(rows)``,
which yields ``(start, stop, block)`` with ``block`` a ``(stop - start) x d`` array (float32
for float32 data, else float64).
The anchor and graph passes (``core.numerics.streaming``) make one sweep over the blocks
each; only the n x m anchor graph and the labels are held in memory.

Two sources exist:

- :class:`ArraySource` around any array that slices by rows cheaply: an ``np.memmap``
  or an in-memory array (used by the tests to compare the streamed and in-memory paths).
- :class:`NpySource` for a ``.npy`` file (e.g. a view of a ``core.data.store`` folder), read
  with plain file reads so the process never maps more than a block.
- :class:`HDF5Source` around a dataset of an HDF5 file (MATLAB v7.3 ``.mat``, our own
  ``.h5``); MATLAB stores an n x d matrix column-major, i.e. as an HDF5 dataset of shape
  (d, n), read here as ``dset[:, start:stop].T``.

Every block is checked for NaN/Inf as it is read, with the position named in the error.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from core.data.dataset import DataError

__all__ = [
    "ArraySource",
    "HDF5Source",
    "NpySource",
    "RowBlockSource",
    "RowSubsetSource",
    "is_source",
    "npy_source",
    "row_subset",
]

DEFAULT_BLOCK_BYTES = 64 << 20  # a float64 block of about 64 MB


class RowBlockSource:
    """A view of ``shape`` (n, d) that is read in row blocks (subclasses define ``_read``)."""

    shape: tuple[int, int]
    dtype: np.dtype
    label: str = "view"

    @property
    def ndim(self) -> int:
        return 2

    def block_rows(self, budget_bytes: int = DEFAULT_BLOCK_BYTES) -> int:
        """Rows per block so that a float64 block stays within ``budget_bytes``."""
        return int(max(1, min(self.shape[0], budget_bytes // max(8 * self.shape[1], 1))))

    def _read(self, start: int, stop: int) -> np.ndarray:
        raise NotImplementedError

    @property
    def compute_dtype(self) -> np.dtype:
        """float32 for float32 data (BLAS at twice the speed, half the bytes), else float64."""
        return np.dtype(np.float32 if self.dtype == np.float32 else np.float64)

    def read(self, start: int, stop: int) -> np.ndarray:
        """Rows ``start:stop`` as a C-contiguous array of ``compute_dtype``, checked finite."""
        return self._checked(self._read(start, stop), start)

    def _checked(self, raw: np.ndarray, start: int) -> np.ndarray:
        if sp.issparse(raw):
            raw = raw.toarray()
        block = np.ascontiguousarray(raw, dtype=self.compute_dtype)
        bad = ~np.isfinite(block)
        if bad.any():
            r, c = (int(i) for i in np.argwhere(bad)[0])
            kind = "NaN" if np.isnan(block[bad]).any() else "Inf"
            raise DataError(
                f"{self.label} has a non-finite value ({kind}) at row {start + r}, column {c}"
            )
        return block

    def view_summary(self, name: str) -> dict[str, object]:
        """``core.data.dataset.view_summary`` from one pass over the blocks (cached)."""
        from core.data.column_stats import source_summary

        return source_summary(name, self)

    def blocks(self, rows: int | None = None) -> Iterator[tuple[int, int, np.ndarray]]:
        """Yield ``(start, stop, block)`` over all rows, ``rows`` at a time."""
        n = self.shape[0]
        step = int(rows or self.block_rows())
        for start in range(0, n, step):
            stop = min(n, start + step)
            yield start, stop, self.read(start, stop)

    def __getitem__(self, rows: object) -> np.ndarray:
        """Rows by slice or index array (the index array is sorted; read block by block)."""
        if isinstance(rows, slice):
            start, stop, step = rows.indices(self.shape[0])
            return self.read(start, stop)[::step]
        idx = np.asarray(rows, dtype=np.int64)
        out = np.empty((idx.size, self.shape[1]))
        order = np.argsort(idx, kind="stable")
        sorted_idx = idx[order]
        for start, stop, block in self.blocks():
            lo, hi = np.searchsorted(sorted_idx, [start, stop])
            out[order[lo:hi]] = block[sorted_idx[lo:hi] - start]
        return out


class ArraySource(RowBlockSource):
    """Any 2-D array sliced by rows: a memory map (out-of-core) or an in-memory array."""

    def __init__(self, array: np.ndarray, label: str = "view", block_rows: int | None = None):
        if array.ndim != 2:
            raise DataError(f"{label}: expected a 2-D matrix, got shape {array.shape}")
        self.array = array
        self.shape = (int(array.shape[0]), int(array.shape[1]))
        self.dtype = np.dtype(array.dtype)
        self.label = label
        self._rows = block_rows

    def block_rows(self, budget_bytes: int = DEFAULT_BLOCK_BYTES) -> int:
        return self._rows or super().block_rows(budget_bytes)

    def _read(self, start: int, stop: int) -> np.ndarray:
        return self.array[start:stop]


class HDF5Source(RowBlockSource):
    """A dataset of an HDF5 file; ``matlab=True`` for v7.3 ``.mat`` (stored transposed).

    The file is opened per pass (not held open), so the source can be pickled to a child
    process and the file is never locked between runs.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        name: str,
        *,
        matlab: bool = True,
        block_rows: int | None = None,
    ):
        import h5py

        self.path, self.name, self.matlab = Path(path), name, matlab
        self.label = f"{self.path.name}:{name}"
        with h5py.File(self.path, "r") as f:
            if name not in f or not isinstance(f[name], h5py.Dataset):
                raise DataError(f"{self.path}: no numeric dataset named {name!r}")
            dset = f[name]
            if dset.ndim != 2 or dset.dtype.kind not in "biuf":
                raise DataError(
                    f"{self.label}: expected a 2-D numeric matrix, got {dset.dtype} {dset.shape}"
                )
            shape = dset.shape[::-1] if matlab else dset.shape
            self.dtype = np.dtype(dset.dtype)
        self.shape = (int(shape[0]), int(shape[1]))
        self._rows = block_rows

    def block_rows(self, budget_bytes: int = DEFAULT_BLOCK_BYTES) -> int:
        return self._rows or super().block_rows(budget_bytes)

    def _read(self, start: int, stop: int) -> np.ndarray:
        import h5py

        with h5py.File(self.path, "r") as f:
            dset = f[self.name]
            return dset[:, start:stop].T if self.matlab else dset[start:stop]

    def blocks(self, rows: int | None = None) -> Iterator[tuple[int, int, np.ndarray]]:
        import h5py

        n = self.shape[0]
        step = int(rows or self.block_rows())
        with h5py.File(self.path, "r") as f:  # one open per pass, not per block
            dset = f[self.name]
            for start in range(0, n, step):
                stop = min(n, start + step)
                raw = dset[:, start:stop].T if self.matlab else dset[start:stop]
                yield start, stop, self._checked(raw, start)


class NpySource(RowBlockSource):
    """A 2-D C-order ``.npy`` file read block by block with plain reads (no memory map).

    Reads go through the page cache but are not mapped into the process, so its resident
    memory stays one block whatever the file size (a memory map would count every page
    touched in the RSS until the map is dropped).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        block_rows: int | None = None,
        *,
        offset: int = 0,
        label: str | None = None,
    ):
        self.path = Path(path)
        self.label = label or self.path.name
        try:
            with open(self.path, "rb") as f:
                f.seek(offset)  # an uncompressed .npz member starts inside the archive
                major, _ = np.lib.format.read_magic(f)
                read_header = (
                    np.lib.format.read_array_header_1_0
                    if major == 1
                    else np.lib.format.read_array_header_2_0
                )
                shape, fortran, dtype = read_header(f)
                self._offset = f.tell()
        except (OSError, ValueError) as exc:
            raise DataError(f"{self.label}: cannot open as a .npy matrix ({exc})") from exc
        if len(shape) != 2 or fortran or dtype.kind not in "biuf":
            raise DataError(
                f"{self.label}: expected a 2-D C-order numeric matrix, got {dtype} {shape}"
                + (" in Fortran order" if fortran else "")
            )
        self.shape = (int(shape[0]), int(shape[1]))
        self.dtype = np.dtype(dtype)
        self._rows = block_rows

    def block_rows(self, budget_bytes: int = DEFAULT_BLOCK_BYTES) -> int:
        return self._rows or super().block_rows(budget_bytes)

    def _read(self, start: int, stop: int) -> np.ndarray:
        d = self.shape[1]
        with open(self.path, "rb") as f:
            f.seek(self._offset + start * d * self.dtype.itemsize)
            flat = np.fromfile(f, dtype=self.dtype, count=(stop - start) * d)
        return flat.reshape(stop - start, d)


class RowSubsetSource(RowBlockSource):
    """Some rows of another source (sorted, distinct), renumbered from 0: the samples that
    have a view, when views are incomplete. Read through the inner source's blocks, so a
    pass still reads the file once, in order."""

    def __init__(self, inner: RowBlockSource, rows: np.ndarray):
        rows = np.asarray(rows, dtype=np.int64).ravel()
        if rows.size and (np.any(np.diff(rows) <= 0) or rows[0] < 0 or rows[-1] >= inner.shape[0]):
            raise DataError(f"{inner.label}: row subset must be sorted, distinct and in range")
        self.inner, self.rows = inner, rows
        self.shape = (int(rows.size), int(inner.shape[1]))
        self.dtype, self.label = inner.dtype, inner.label
        self.sparse = bool(getattr(inner, "sparse", False))

    def block_rows(self, budget_bytes: int = DEFAULT_BLOCK_BYTES) -> int:
        return self.inner.block_rows(budget_bytes)

    def _read(self, start: int, stop: int) -> np.ndarray:
        sel = self.rows[start:stop]
        if sel.size == 0:
            return np.empty((0, self.shape[1]), dtype=self.compute_dtype)
        return self.inner.read(int(sel[0]), int(sel[-1]) + 1)[sel - sel[0]]

    def blocks(self, rows: int | None = None) -> Iterator[tuple[int, int, np.ndarray]]:
        for start, stop, block in self.inner.blocks(rows):
            lo, hi = (int(i) for i in np.searchsorted(self.rows, [start, stop]))
            if hi > lo:
                yield lo, hi, block[self.rows[lo:hi] - start]


def row_subset(x: object, rows: np.ndarray) -> object:
    """``x[rows]``: a :class:`RowSubsetSource` for a row-block source (nothing read)."""
    return RowSubsetSource(x, rows) if is_source(x) else x[rows]


def npy_source(path: str | os.PathLike[str], block_rows: int | None = None) -> NpySource:
    """A ``.npy`` file (2-D, numeric, C order) as a row-block source."""
    return NpySource(path, block_rows=block_rows)


def is_source(x: object) -> bool:
    """Whether ``x`` is a row-block source (read in blocks, never whole)."""
    return isinstance(x, RowBlockSource)
