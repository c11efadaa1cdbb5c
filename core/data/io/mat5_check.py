"""Check what a MATLAB v5 data element promises before scipy reads it.

``scipy.io.loadmat`` trusts the sizes and indices written in a v5 file: a flipped bit in a
sparse matrix's column pointers or row indices, or a sub-element that claims more bytes than
its parent holds, made its compiled reader (or the first operation on the sparse matrix it
built) read outside its buffers and kill the process with SIGSEGV or SIGBUS
(docs/scipy_loadmat_crash.md).
This module walks one element in pure Python and NumPy, without allocating more than the
element's own bytes, and says what is wrong: every sub-element inside its parent, numeric
payloads of exactly ``prod(dims)`` values, sparse column pointers starting at 0,
non-decreasing, within the row-index list, and row indices within the row count; cells and
structs checked element by element.

Layout (MATLAB "MAT-File Format", level 5): an element is an 8-byte tag (type, byte count)
or a 4-byte "small" tag with its data packed in the next 4 bytes; elements are padded to 8
bytes. A matrix (miMATRIX) holds array flags, dimensions, a name and class-specific parts.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

import numpy as np

from core.data.dataset import detail

__all__ = ["MI_COMPRESSED", "MI_MATRIX", "Mat5Error", "check_matrix", "element_payload"]

MI_MATRIX, MI_COMPRESSED = 14, 15
#: bytes per value of the numeric data types (miINT8 ... miUTF32)
_ITEMSIZE = {1: 1, 2: 1, 3: 2, 4: 2, 5: 4, 6: 4, 7: 4, 9: 8, 12: 8, 13: 8, 16: 1, 17: 2, 18: 4}
_DTYPE = {1: "i1", 2: "u1", 3: "i2", 4: "u2", 5: "i4", 6: "u4", 7: "f4", 9: "f8", 12: "i8"}
_CELL, _STRUCT, _OBJECT, _CHAR, _SPARSE = 1, 2, 3, 4, 5
_NUMERIC = frozenset(range(6, 16))  # mxDOUBLE_CLASS .. mxUINT64_CLASS
_OPAQUE = frozenset({16, 17})  # function handles, objects of new-style classes: not read
_MAX_DEPTH = 64


class Mat5Error(ValueError):
    """The element is not what its header promises (the message says what and where)."""


@dataclass
class _Sub:
    kind: int
    data: memoryview
    end: int  # offset after this sub-element (padded)


def element_payload(tag_type: int, payload: bytes) -> tuple[int, bytes]:
    """The (type, bytes) of a top-level element, decompressed when it is miCOMPRESSED."""
    if tag_type != MI_COMPRESSED:
        return tag_type, payload
    try:
        inner = zlib.decompress(payload)
    except zlib.error as exc:
        raise Mat5Error(f"compressed data is damaged ({detail(exc)})") from exc
    if len(inner) < 8:
        raise Mat5Error("compressed element holds no data element")
    kind, nbytes = struct.unpack("<II", inner[:8])
    if kind != MI_MATRIX:
        raise Mat5Error(f"compressed element holds a type-{kind} element, not a matrix")
    if nbytes > len(inner) - 8:
        raise Mat5Error(f"compressed matrix claims {nbytes} bytes, {len(inner) - 8} present")
    return MI_MATRIX, inner[8 : 8 + nbytes]


def _sub(buf: memoryview, pos: int, endian: str, where: str) -> _Sub:
    if pos + 4 > len(buf):
        raise Mat5Error(f"{where}: a part is missing (the matrix ends at byte {len(buf)})")
    word = struct.unpack_from(endian + "I", buf, pos)[0]
    if word >> 16:  # small element: type in the low half, byte count in the high half
        kind, nbytes = word & 0xFFFF, word >> 16
        if nbytes > 4:
            raise Mat5Error(f"{where}: a packed part claims {nbytes} bytes (at most 4)")
        return _Sub(kind, buf[pos + 4 : pos + 4 + nbytes], pos + 8)
    if pos + 8 > len(buf):
        raise Mat5Error(f"{where}: a part's header is cut off")
    kind, nbytes = struct.unpack_from(endian + "II", buf, pos)
    start = pos + 8
    if nbytes > len(buf) - start:
        raise Mat5Error(f"{where}: a part claims {nbytes} bytes but only {len(buf) - start} remain")
    end = start + nbytes + (-nbytes % 8 if kind != MI_MATRIX else 0)
    return _Sub(kind, buf[start : start + nbytes], min(end, len(buf)))


def _values(sub: _Sub, endian: str, where: str, what: str) -> np.ndarray:
    size = _ITEMSIZE.get(sub.kind)
    if size is None or sub.kind not in _DTYPE:
        raise Mat5Error(f"{where}: {what} stored with an unknown number type ({sub.kind})")
    if len(sub.data) % size:
        raise Mat5Error(f"{where}: {what} has {len(sub.data)} bytes, not a whole number of values")
    return np.frombuffer(sub.data, dtype=endian + _DTYPE[sub.kind])


def _count(sub: _Sub, where: str, what: str) -> int:
    size = _ITEMSIZE.get(sub.kind)
    if size is None:
        raise Mat5Error(f"{where}: {what} stored with an unknown number type ({sub.kind})")
    if len(sub.data) % size:
        raise Mat5Error(f"{where}: {what} has {len(sub.data)} bytes, not a whole number of values")
    return len(sub.data) // size


def check_matrix(payload: bytes | memoryview, endian: str = "<", where: str = "") -> str:
    """Check one miMATRIX payload (the bytes after its tag); returns its name.

    Raises :class:`Mat5Error` naming the variable (when its name is readable) and the part
    that is wrong."""
    return _check(memoryview(payload), endian, where, 0)


def _check(buf: memoryview, endian: str, where: str, depth: int) -> str:
    if depth > _MAX_DEPTH:
        raise Mat5Error(f"{where}: cells nested more than {_MAX_DEPTH} deep")
    if len(buf) == 0:  # an empty matrix inside a cell
        return ""
    flags = _sub(buf, 0, endian, where or "a variable")
    if flags.kind != 6 or len(flags.data) != 8:
        raise Mat5Error(f"{where or 'a variable'}: array flags are damaged")
    word, nzmax = struct.unpack_from(endian + "II", flags.data, 0)
    cls, is_complex = word & 0xFF, bool(word & 0x800)
    dims_sub = _sub(buf, flags.end, endian, where or "a variable")
    dims = _values(dims_sub, endian, where or "a variable", "the dimensions")
    name_sub = _sub(buf, dims_sub.end, endian, where or "a variable")
    name = bytes(name_sub.data).decode("latin1", "replace")
    here = where or (f"variable '{name}'" if name else "a variable")
    if dims.size < 2 or (dims < 0).any():
        raise Mat5Error(f"{here}: impossible dimensions {dims.tolist()}")
    n_values = int(np.prod(dims.astype(np.float64)))
    pos = name_sub.end
    if cls in _NUMERIC or cls == _CHAR:
        parts = 2 if is_complex else 1
        for _part in range(parts):
            sub = _sub(buf, pos, endian, here)
            count = _count(sub, here, "the values")
            if count != n_values:
                raise Mat5Error(
                    f"{here}: {count} values stored for a {' x '.join(map(str, dims))} array"
                )
            pos = sub.end
        return name
    if cls == _SPARSE:
        _check_sparse(buf, pos, endian, here, dims, nzmax, is_complex)
        return name
    if cls == _CELL:
        for k in range(n_values):
            sub = _sub(buf, pos, endian, here)
            if sub.kind != MI_MATRIX:
                raise Mat5Error(f"{here}: cell element {k + 1} is not a matrix")
            _check(sub.data, endian, f"{here}{{{k + 1}}}", depth + 1)
            pos = sub.end
        return name
    if cls in (_STRUCT, _OBJECT):
        if cls == _OBJECT:
            pos = _sub(buf, pos, endian, here).end  # class name
        length_sub = _sub(buf, pos, endian, here)
        field_len = int(_values(length_sub, endian, here, "the field-name length")[0])
        names_sub = _sub(buf, length_sub.end, endian, here)
        if field_len <= 0 or len(names_sub.data) % field_len:
            raise Mat5Error(f"{here}: struct field names are damaged")
        n_fields = len(names_sub.data) // field_len
        pos = names_sub.end
        for k in range(n_values * n_fields):
            sub = _sub(buf, pos, endian, here)
            if sub.kind != MI_MATRIX:
                raise Mat5Error(f"{here}: struct field {k + 1} is not a matrix")
            _check(sub.data, endian, f"{here}.field{k + 1}", depth + 1)
            pos = sub.end
        return name
    if cls in _OPAQUE:
        return name
    raise Mat5Error(f"{here}: unknown MATLAB array class {cls}")


def _check_sparse(
    buf: memoryview,
    pos: int,
    endian: str,
    here: str,
    dims: np.ndarray,
    nzmax: int,
    is_complex: bool,
) -> None:
    if dims.size != 2:
        raise Mat5Error(f"{here}: a sparse matrix with {dims.size} dimensions")
    n_rows, n_cols = int(dims[0]), int(dims[1])
    ir_sub = _sub(buf, pos, endian, here)
    ir = _values(ir_sub, endian, here, "the row indices")
    jc_sub = _sub(buf, ir_sub.end, endian, here)
    jc = _values(jc_sub, endian, here, "the column pointers")
    if jc.size != n_cols + 1:
        raise Mat5Error(f"{here}: {jc.size} column pointers for {n_cols} columns")
    nnz = int(jc[-1]) if jc.size else 0
    if jc[0] != 0 or (np.diff(jc.astype(np.int64)) < 0).any():
        raise Mat5Error(f"{here}: column pointers are damaged (not increasing from 0)")
    if nnz > ir.size or nnz > max(nzmax, ir.size):
        raise Mat5Error(f"{here}: {nnz} stored entries but {ir.size} row indices")
    used = ir[:nnz]
    if used.size and (used.min() < 0 or used.max() >= n_rows):
        raise Mat5Error(f"{here}: row indices outside 0..{n_rows - 1}")
    pos = jc_sub.end
    for _part in range(2 if is_complex else 1):
        sub = _sub(buf, pos, endian, here)
        if sub.kind == MI_MATRIX or _count(sub, here, "the values") < nnz:
            raise Mat5Error(f"{here}: fewer stored values than the {nnz} entries")
        pos = sub.end
