"""Row-block sources over files: HDF5 datasets, sparse CSR parts, ``.npz`` members.

Beside :mod:`core.data.blocks` (the base class, ``HDF5Source`` for a dense HDF5 dataset,
``NpySource`` for a ``.npy`` file) these read a view of a file a block of rows at a time:

- :class:`CsrSource`: a CSR matrix stored as three 1-D arrays (``data``, ``indices``,
  ``indptr``) in an HDF5 group (AnnData's ``csr_matrix`` encoding of ``X``) or as ``.npy``
  files of a dataset store. A block reads ``indptr[start:stop + 1]``, then only the slice of
  ``data`` / ``indices`` between its ends.
- :class:`NpzMemberSource`: an uncompressed member of an ``.npz`` archive (``np.savez``):
  the member is a ``.npy`` file stored as is inside the zip, read at its offset.

Blocks come out dense (``(stop - start) x d``, checked finite): the anchor and graph passes
multiply them by dense anchors anyway. The files are opened per pass, never held open, so a
source pickles to a child process.
"""

from __future__ import annotations

import os
import struct
import zipfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from core.data.blocks import DEFAULT_BLOCK_BYTES, NpySource, RowBlockSource
from core.data.dataset import DataError

__all__ = ["CsrSource", "NpzMemberSource", "npz_member_offset"]


class CsrSource(RowBlockSource):
    """A CSR view stored as ``data`` / ``indices`` / ``indptr`` arrays in a file.

    Parameters
    ----------
    path : path of an HDF5 file (``group`` names the group holding the three datasets) or of a
        dataset store folder (``group`` is the file prefix, e.g. ``view0`` for ``view0_data.npy``).
    shape : (n, d) of the matrix.
    """

    sparse = True

    def __init__(
        self,
        path: str | os.PathLike[str],
        group: str,
        shape: tuple[int, int],
        *,
        hdf5: bool = True,
        block_rows: int | None = None,
        parts: tuple[str, str, str] = ("data", "indices", "indptr"),
    ):
        self.path, self.group, self.hdf5, self.parts = Path(path), group, hdf5, parts
        self.label = f"{self.path.name}:{group}"
        self.shape = (int(shape[0]), int(shape[1]))
        with self._open() as (data, _, indptr):
            self.dtype = np.dtype(data.dtype)
            if self.dtype.kind not in "biuf":
                raise DataError(f"{self.label}: non-numeric values ({self.dtype})")
            if indptr.shape[0] != self.shape[0] + 1:
                raise DataError(
                    f"{self.label}: indptr has {indptr.shape[0]} entries for {self.shape[0]} rows"
                )
        self._rows = block_rows

    def block_rows(self, budget_bytes: int = DEFAULT_BLOCK_BYTES) -> int:
        return self._rows or super().block_rows(budget_bytes)

    def _open(self):
        return _CsrParts(self.path, self.group, self.hdf5, getattr(self, "parts", None))

    def _slice(self, parts, start: int, stop: int) -> sp.csr_matrix:
        data, indices, indptr = parts
        ptr = np.asarray(indptr[start : stop + 1], dtype=np.int64)
        lo, hi = int(ptr[0]), int(ptr[-1])
        if hi < lo or np.any(np.diff(ptr) < 0):
            raise DataError(f"{self.label}: indptr decreases between rows {start} and {stop}")
        idx = np.asarray(indices[lo:hi], dtype=np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= self.shape[1]):
            raise DataError(
                f"{self.label}: a column index outside 0..{self.shape[1] - 1} "
                f"in rows {start}-{stop}"
            )
        return sp.csr_matrix(
            (np.asarray(data[lo:hi]), idx, ptr - lo), shape=(stop - start, self.shape[1])
        )

    def read_sparse(self, start: int, stop: int) -> sp.csr_matrix:
        """Rows ``start:stop`` as CSR (not densified)."""
        with self._open() as parts:
            return self._slice(parts, start, stop)

    def _read(self, start: int, stop: int) -> np.ndarray:
        return self.read_sparse(start, stop).toarray()

    def blocks(self, rows: int | None = None) -> Iterator[tuple[int, int, np.ndarray]]:
        n = self.shape[0]
        step = int(rows or self.block_rows())
        with self._open() as parts:  # one open per pass, not per block
            for start in range(0, n, step):
                stop = min(n, start + step)
                yield start, stop, self._checked(self._slice(parts, start, stop), start)


class _CsrParts:
    """Context manager giving (data, indices, indptr) array-likes of an HDF5 group or a store."""

    def __init__(self, path: Path, group: str, hdf5: bool, parts: tuple[str, ...] | None = None):
        self.path, self.group, self.hdf5, self._file = path, group, hdf5, None
        self.names = parts or ("data", "indices", "indptr")

    def __enter__(self):
        names = self.names
        if not self.hdf5:
            try:
                return tuple(
                    np.load(self.path / f"{self.group}_{p}.npy", mmap_mode="r") for p in names
                )
            except (OSError, ValueError) as exc:
                raise DataError(
                    f"{self.path}: cannot open sparse view {self.group} ({exc})"
                ) from exc
        import h5py

        try:
            self._file = h5py.File(self.path, "r")
        except OSError as exc:
            raise DataError(f"{self.path.name}: cannot open as HDF5 ({exc})") from exc
        node = self._file.get(self.group)
        if node is None or not all(p in node for p in names):
            self._file.close()
            raise DataError(
                f"{self.path.name}: {self.group} is not a CSR group ({'/'.join(names)})"
            )
        return tuple(node[p] for p in names)

    def __exit__(self, *exc: object) -> None:
        if self._file is not None:
            self._file.close()


def npz_member_offset(path: str | os.PathLike[str], member: str) -> int:
    """Byte offset of an uncompressed member's content inside a zip (``.npz``) file.

    Raises DataError for a compressed member: it cannot be read at an offset.
    """
    p = Path(path)
    try:
        with zipfile.ZipFile(p) as zf:
            info = zf.getinfo(member)
    except (OSError, zipfile.BadZipFile, KeyError) as exc:
        raise DataError(f"{p.name}: no readable member {member!r} ({exc})") from exc
    if info.compress_type != zipfile.ZIP_STORED:
        raise DataError(
            f"{p.name}: {member} is compressed, so it cannot be read in row blocks or mapped; "
            "save the archive with np.savez (not savez_compressed), or as .h5"
        )
    with open(p, "rb") as f:  # the local header's name and extra lengths may differ from
        f.seek(info.header_offset)  # the central directory's (zip64 extra fields)
        head = f.read(30)
    if head[:4] != b"PK\x03\x04":
        raise DataError(f"{p.name}: damaged zip header for {member}")
    name_len, extra_len = struct.unpack("<HH", head[26:30])
    return info.header_offset + 30 + name_len + extra_len


class NpzMemberSource(NpySource):
    """A 2-D array stored uncompressed in an ``.npz`` archive, read at its offset."""

    def __init__(self, path: str | os.PathLike[str], member: str, block_rows: int | None = None):
        label = f"{Path(path).name}:{member.removesuffix('.npy')}"
        offset = npz_member_offset(path, member)
        super().__init__(path, block_rows, offset=offset, label=label)

    def memmap(self) -> np.ndarray:
        """The member as a read-only memory map (no copy)."""
        return np.memmap(self.path, dtype=self.dtype, mode="r", offset=self._offset,
                         shape=self.shape)  # fmt: skip
