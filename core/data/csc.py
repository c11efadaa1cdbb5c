"""Column-major sparse views (MATLAB v7.3 sparse matrices, AnnData ``csc_matrix``) read by rows.

A CSC matrix keeps each column's entries together: the rows of one block are spread over the
whole file. Scanning every column for each block would read all non-zeros once per block and
pass, so the first pass converts the matrix once into a row-major copy on disk (CSR as three
``.npy`` files, :func:`csc_to_csr`), reading the file a chunk of non-zeros at a time: memory
stays O(chunk + n), never O(nnz). The copy is written to a folder named after the file (path,
size, modification time, variable) under the temporary directory, built next to it and
renamed into place (atomic), and reused by later runs until the file changes; after that
every pass reads row blocks from it (:class:`core.data.sources.CsrSource`). Measured:
docs/out_of_core.md.

MATLAB stores a sparse n x d matrix column by column (``jc`` column pointers, ``ir`` row
indices, ``data``); a d x n matrix (samples as columns) is already row-major for the view and
is read directly as CSR (see :mod:`core.data.streamed`).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

from core.data.blocks import RowBlockSource
from core.data.dataset import DataError
from core.data.sources import CsrSource

__all__ = ["CHUNK", "CscSource", "csc_to_csr", "csr_cache_dir"]

#: non-zeros read per chunk while converting (about 100 MB of working memory)
CHUNK = 1 << 21


def csr_cache_dir() -> Path:
    """Where row-major copies of column-major views are kept (``MVC_CSR_CACHE`` to move it)."""
    return Path(os.environ.get("MVC_CSR_CACHE") or Path(tempfile.gettempdir()) / "mvc-csr")


class CscSource(RowBlockSource):
    """A CSC view in an HDF5 group, read by rows through a one-time row-major copy.

    Parameters
    ----------
    path : the HDF5 file (MATLAB v7.3 ``.mat``, ``.h5ad``).
    group : the group holding the three arrays.
    shape : (n, d) of the view: n samples are the CSC's rows.
    parts : names of (values, row indices, column pointers): ``("data", "ir", "jc")`` in
        MATLAB files, ``("data", "indices", "indptr")`` in AnnData.
    """

    sparse = True

    def __init__(
        self,
        path: str | os.PathLike[str],
        group: str,
        shape: tuple[int, int],
        parts: tuple[str, str, str] = ("data", "ir", "jc"),
        *,
        block_rows: int | None = None,
    ):
        import h5py

        self.path, self.group, self.parts = Path(path), group, parts
        self.label = f"{self.path.name}:{group.lstrip('/')}"
        self.shape = (int(shape[0]), int(shape[1]))
        self._rows = block_rows
        with h5py.File(self.path, "r") as f:
            node = f[group]
            pointers = node[parts[2]]
            if pointers.shape != (self.shape[1] + 1,):
                raise DataError(
                    f"{self.label}: {parts[2]} has {pointers.shape[0]} entries for "
                    f"{self.shape[1]} columns"
                )
            values = node.get(parts[0])
            self.dtype = np.dtype(values.dtype if values is not None else np.float64)
            self.nnz = int(values.shape[0]) if values is not None else 0
        if self.dtype.kind not in "biuf":
            raise DataError(f"{self.label}: non-numeric values ({self.dtype})")
        self._csr: CsrSource | None = None

    def block_rows(self, budget_bytes: int = 64 << 20) -> int:
        return self._rows or super().block_rows(budget_bytes)

    def _key(self) -> str:
        st = self.path.stat()
        text = f"{self.path.resolve()}|{st.st_size}|{st.st_mtime_ns}|{self.group}|{self.parts}"
        return hashlib.sha1(text.encode()).hexdigest()[:20]

    def row_major(self) -> CsrSource:
        """The row-major copy (made on first use, then reused)."""
        if self._csr is None:
            folder = csr_cache_dir() / self._key()
            if not (folder / "csr_indptr.npy").exists():
                csc_to_csr(self.path, self.group, self.shape, self.parts, folder)
            self._csr = CsrSource(folder, "csr", self.shape, hdf5=False, block_rows=self._rows)
            self._csr.label = self.label
        return self._csr

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_csr": None}  # a child process opens the copy itself

    def _read(self, start: int, stop: int) -> np.ndarray:
        return self.row_major()._read(start, stop)

    def read_sparse(self, start: int, stop: int):
        """Rows ``start:stop`` as CSR."""
        return self.row_major().read_sparse(start, stop)

    def blocks(self, rows: int | None = None):
        return self.row_major().blocks(rows or self.block_rows())


def csc_to_csr(
    path: Path, group: str, shape: tuple[int, int], parts: tuple[str, str, str], folder: Path
) -> Path:
    """Write the CSC matrix ``group`` of ``path`` as CSR ``.npy`` files in ``folder``.

    Two passes over the non-zeros, ``CHUNK`` at a time: count the entries of each row, then
    place each chunk's entries at their row's next free slots (columns stay sorted within a
    row: the chunks come in column order). The folder appears whole or not at all.

    Raises
    ------
    DataError
        Pointers that decrease or do not end at the number of values, or row indices out of
        range (a damaged or truncated file), named with the file and variable.
    """
    import h5py

    n, d = shape
    where = f"{Path(path).name}:{group.lstrip('/')}"
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        with h5py.File(path, "r") as f:
            node = f[group]
            ptr = np.asarray(node[parts[2]][()], dtype=np.int64).ravel()
            values, rows = node.get(parts[0]), node.get(parts[1])
            nnz = int(ptr[-1]) if ptr.size else 0
            stored = 0 if rows is None else int(rows.shape[0])
            if ptr[0] != 0 or np.any(np.diff(ptr) < 0) or nnz != stored or (
                values is not None and values.shape[0] != stored
            ):  # fmt: skip
                raise DataError(
                    f"{where}: damaged sparse matrix: column pointers end at {nnz} for "
                    f"{stored} row indices and "
                    f"{stored if values is None else values.shape[0]} values"
                )
            counts = np.zeros(n, dtype=np.int64)
            for a in range(0, nnz, CHUNK):
                r = np.asarray(rows[a : a + CHUNK], dtype=np.int64)
                if r.size and (r.min() < 0 or r.max() >= n):
                    raise DataError(
                        f"{where}: a row index outside 0..{n - 1} among non-zeros {a}-{a + r.size}"
                    )
                counts += np.bincount(r, minlength=n)
            indptr = np.zeros(n + 1, dtype=np.int64)
            np.cumsum(counts, out=indptr[1:])
            dtype = np.dtype(values.dtype) if values is not None else np.dtype(np.float64)
            fmt = np.lib.format
            out_v = fmt.open_memmap(tmp / "csr_data.npy", "w+", dtype=dtype, shape=(nnz,))
            index_type = np.int32 if d < 2**31 else np.int64
            out_c = fmt.open_memmap(tmp / "csr_indices.npy", "w+", dtype=index_type, shape=(nnz,))
            nxt = indptr[:-1].copy()  # next free slot of each row
            for a in range(0, nnz, CHUNK):
                b = min(nnz, a + CHUNK)
                r = np.asarray(rows[a:b], dtype=np.int64)
                v = np.asarray(values[a:b]) if values is not None else np.ones(b - a)
                cols = np.searchsorted(ptr, np.arange(a, b), side="right") - 1
                order = np.argsort(r, kind="stable")
                rs = r[order]
                first = np.flatnonzero(np.r_[True, rs[1:] != rs[:-1]])
                rank = np.arange(rs.size) - np.repeat(first, np.diff(np.r_[first, rs.size]))
                pos = nxt[rs] + rank
                out_v[pos], out_c[pos] = v[order], cols[order]
                nxt += np.bincount(r, minlength=n)
            out_v.flush()
            out_c.flush()
            del out_v, out_c
        np.save(tmp / "csr_indptr.npy", indptr)
        try:
            tmp.rename(folder)
        except OSError:  # another process made the same copy meanwhile: use that one
            shutil.rmtree(tmp, ignore_errors=True)
        return folder
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
