"""MATLAB ``.mat`` files: v4/v5/v7 through :func:`scipy.io.loadmat`, v7.3 (HDF5) through h5py.

Both readers return the file's variables in their MATLAB shape (a 1 x 5 cell stays 1 x 5, an ``n
x d`` matrix stays ``n x d``) so that :mod:`core.data.io.variables` can decide which are views
and labels. Cells are object arrays, text is ``str``, structs are ``dict`` (contents not read),
sparse matrices stay sparse.

A v5 file that :func:`scipy.io.loadmat` cannot read (for example junk bytes after the last
variable, or a truncated last variable) is read again element by element: every top-level data
element is copied, with the file header, into an in-memory file that ``loadmat`` reads on its
own. Reading stops at the first element whose tag is not a MATLAB array or that runs past the
end of the file; what was skipped is reported as a warning. A recovered file that lacks views or
labels is rejected by :func:`core.data.io.load_dataset`.
"""

from __future__ import annotations

import io
import struct
import warnings
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import scipy.io as sio
import scipy.sparse as sp

from core.data.dataset import DataError, detail, error_text
from core.data.io.assemble import checked_sparse
from core.data.io.mat5_check import (
    MI_COMPRESSED,
    MI_MATRIX,
    Mat5Error,
    check_matrix,
    element_payload,
)

__all__ = ["DAMAGED_KEY", "HDF5_SIGNATURE", "Progress", "read_mat", "read_mat5", "read_mat73"]

#: ``progress(fraction, what)``: how far reading got and what is read next
Progress = Callable[[float, str], None]

#: Key added to the variables of a damaged file that was partly recovered (value: what
#: was recovered and skipped).
DAMAGED_KEY = "__damaged__"
HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
_LOADMAT_OPTIONS = {"mat_dtype": False, "squeeze_me": False, "chars_as_strings": True}


def read_mat(path: Path, notes: list[str], progress: Progress | None = None) -> dict[str, object]:
    """Read any MATLAB file (format chosen by its header) into a dict of variables;
    ``progress(fraction, what)`` is told which variable is read next."""
    if is_hdf5(path):
        return read_mat73(path, notes, progress)
    return read_mat5(path, notes, progress)


def is_hdf5(path: Path) -> bool:
    """True if the HDF5 signature is at offset 0, 512, 1024, ... (MATLAB v7.3 uses 512)."""
    with open(path, "rb") as fh:
        offset = 0
        while True:
            fh.seek(offset)
            chunk = fh.read(8)
            if len(chunk) < 8:
                return False
            if chunk == HDF5_SIGNATURE:
                return True
            offset = 512 if offset == 0 else offset * 2


# ----------------------------------------------------------------------------- v4 / v5 / v7


def _normalise(value: object, where: str) -> object:
    """Turn loadmat output into plain values: cells, str, dict (struct), arrays, sparse."""
    if sp.issparse(value):
        return checked_sparse(value, where)
    if isinstance(value, sio.matlab.MatlabFunction | sio.matlab.MatlabOpaque):
        return {}
    if isinstance(value, np.ndarray):
        if value.dtype.names is not None:
            return dict.fromkeys(value.dtype.names)
        if value.dtype == object:
            out = np.empty(value.shape, dtype=object)
            for idx, item in np.ndenumerate(value):
                out[idx] = _normalise(item, where)
            return out
        if value.dtype.kind == "U":
            rows = [str(s) for s in value.ravel()]
            return rows[0] if len(rows) == 1 else np.asarray(rows)
    return value


def read_mat5(path: Path, notes: list[str], progress: Progress | None = None) -> dict[str, object]:
    """Read a v4/v5/v7 MAT-file; a damaged v5 file gives what can be read safely."""
    if not _has_v5_header(path):
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                raw = sio.loadmat(path, **_LOADMAT_OPTIONS)
        except Exception as exc:  # scipy raises many types on files it cannot read
            raise DataError(
                f"not a MATLAB file: no v5/v7.3 header and not readable as v4 ({error_text(exc)})"
            ) from exc
        notes.extend(f"MATLAB reader: {w.message}" for w in caught)
    else:
        raw = _read_v5_elements(path, notes, progress)
    return {
        k: _normalise(v, k) if k != DAMAGED_KEY else v
        for k, v in raw.items()
        if not k.startswith("__") or k == DAMAGED_KEY
    }


def _has_v5_header(path: Path) -> bool:
    with open(path, "rb") as fh:
        head = fh.read(128)
    return len(head) == 128 and head[126:128] in (b"IM", b"MI")


def _read_v5_elements(path: Path, notes: list[str], progress: Progress | None) -> dict[str, object]:
    """Read a v5 file one top-level element at a time: each is checked first
    (:mod:`core.data.io.mat5_check`) and only then given to ``scipy.io.loadmat``, alone, as
    an uncompressed in-memory file. A damaged element is skipped and reported; reading
    stops at bytes that are not a MATLAB element or at an element cut off by the file's end."""
    size = path.stat().st_size
    recovered: dict[str, object] = {}
    problems: list[str] = []
    with open(path, "rb") as fh:
        header = fh.read(128)
        endian = "<" if header[126:128] == b"IM" else ">"
        pos = 128
        while pos < size:
            fh.seek(pos)
            tag = fh.read(8)
            if len(tag) < 8:
                problems.append(f"{size - pos} trailing byte(s) at offset {pos}")
                break
            tag_type, nbytes = struct.unpack(endian + "II", tag)
            if tag_type not in (MI_MATRIX, MI_COMPRESSED):
                problems.append(
                    f"{size - pos} unreadable byte(s) from offset {pos} to the end "
                    "(not a MATLAB variable)"
                )
                break
            payload = fh.read(min(nbytes, size - pos - 8))
            if progress is not None:
                var = _peek_name(tag_type, payload, endian)
                progress(pos / size, f"variable '{var}'" if var else f"the variable at {pos}")
            if len(payload) < nbytes:
                var = _peek_name(tag_type, payload, endian)
                label = f"variable '{var}'" if var else "the last variable"
                problems.append(
                    f"{label} at offset {pos} (truncated: {len(payload)} of {nbytes} bytes present)"
                )
                break
            problem = _read_element(header, endian, tag_type, payload, recovered, notes)
            if problem:
                var = _peek_name(tag_type, payload, endian)
                label = f"variable '{var}'" if var else "a variable"
                problems.append(f"{label} at offset {pos} ({problem})")
            pos += 8 + nbytes
    if not problems:
        return recovered
    if not recovered:
        raise DataError(
            "damaged MATLAB file: no variable could be read (" + "; ".join(problems) + ")"
        )
    names = ", ".join(f"'{k}'" for k in recovered)
    message = f"damaged MATLAB file: recovered {names}; skipped: " + "; ".join(problems)
    notes.append(message)
    recovered[DAMAGED_KEY] = message
    return recovered


def _read_element(
    header: bytes,
    endian: str,
    tag_type: int,
    payload: bytes,
    out: dict[str, object],
    notes: list[str],
) -> str:
    """Check one top-level element and read it into ``out``; returns what is wrong, or ""."""
    try:
        kind, body = element_payload(tag_type, payload)
        check_matrix(body, endian)
    except Mat5Error as exc:
        return str(exc)
    tag = struct.pack(endian + "II", kind, len(body))
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            part = sio.loadmat(io.BytesIO(header + tag + body), **_LOADMAT_OPTIONS)
    except Exception as exc:  # checked, yet scipy refuses it: report, keep going
        return f"damaged content: {error_text(exc)}"
    notes.extend(f"MATLAB reader: {w.message}" for w in caught)
    out.update({k: v for k, v in part.items() if not k.startswith("__")})
    return ""


def _peek_name(tag_type: int, payload: bytes, endian: str) -> str | None:
    """Best-effort name of a (possibly truncated) top-level array element."""
    try:
        if tag_type == MI_COMPRESSED:
            payload = zlib.decompressobj().decompress(payload, 4096)
            payload = payload[8:]  # the inner miMATRIX tag
        pos = 16  # array flags sub-element
        _, nbytes = struct.unpack(endian + "II", payload[pos : pos + 8])
        pos += 8 + nbytes + (-nbytes % 8)  # dimensions sub-element
        word = struct.unpack(endian + "I", payload[pos : pos + 4])[0]
        if word >> 16:  # small data element: name packed in the tag
            length = word >> 16
            raw = payload[pos + 4 : pos + 4 + length]
        else:
            length = struct.unpack(endian + "I", payload[pos + 4 : pos + 8])[0]
            raw = payload[pos + 8 : pos + 8 + length]
        name = raw.decode("latin1")
        return name if name.isidentifier() else None
    except (struct.error, zlib.error, UnicodeDecodeError):
        return None


# ----------------------------------------------------------------------------- v7.3 (HDF5)


def _attr_str(obj: object, name: str) -> str:
    value = obj.attrs.get(name, b"")
    return value.decode("ascii", "replace") if isinstance(value, bytes) else str(value)


def _h5_value(h5file: object, obj: object, where: str) -> object:
    """Convert one HDF5 object written by MATLAB into its MATLAB-shaped value."""
    import h5py

    cls = _attr_str(obj, "MATLAB_class")
    if isinstance(obj, h5py.Group):
        if "MATLAB_sparse" in obj.attrs:
            n_rows = int(obj.attrs["MATLAB_sparse"])
            jc = np.asarray(obj["jc"][()], dtype=np.int64).ravel()
            ir = np.asarray(obj["ir"][()], dtype=np.int64).ravel() if "ir" in obj else []
            data = obj["data"][()].ravel() if "data" in obj else np.ones(len(ir))
            if data.dtype.names:
                raise DataError(f"'{where}' is a complex sparse matrix: not supported")
            mat = sp.csc_matrix((data, ir, jc), shape=(n_rows, jc.size - 1))
            return checked_sparse(mat, where)
        return dict.fromkeys(obj.keys())
    if int(obj.attrs.get("MATLAB_empty", 0)):
        return np.zeros((0, 0))
    value = obj[()]
    if cls == "cell":
        refs = np.asarray(value, dtype=object).T
        out = np.empty(refs.shape, dtype=object)
        for idx, ref in np.ndenumerate(refs):
            k = int(np.ravel_multi_index(idx, refs.shape, order="F")) + 1
            out[idx] = _h5_value(h5file, h5file[ref], f"{where}{{{k}}}")
        return out
    if cls == "char":
        codes = np.atleast_2d(np.asarray(value)).T
        rows = ["".join(chr(int(c)) for c in row).rstrip("\x00") for row in codes]
        return rows[0] if len(rows) == 1 else np.asarray(rows)
    if not isinstance(value, np.ndarray):
        value = np.asarray(value)
    if value.dtype.names is not None:
        if {"real", "imag"} <= set(value.dtype.names):
            raise DataError(f"'{where}' holds complex numbers: only real values are supported")
        return {}
    if value.dtype.kind in "OV":
        return {}
    if cls == "logical":
        value = value.astype(bool)
    if not cls:  # plain HDF5 (not written by MATLAB): keep the stored orientation
        return value
    return value.T


def read_mat73(path: Path, notes: list[str], progress: Progress | None = None) -> dict[str, object]:
    """Read a MATLAB v7.3 (HDF5) file; dimensions are reversed back to MATLAB's order."""
    import h5py

    # a damaged HDF5 file fails in the library as OSError, RuntimeError (e.g. "bad heap free
    # list"), KeyError or ValueError, on opening or on listing its variables
    damaged = (OSError, RuntimeError, KeyError, ValueError)
    try:
        h5file = h5py.File(path, "r")
    except damaged as exc:
        raise DataError(f"cannot open the HDF5 (MATLAB v7.3) file: {detail(exc)}") from exc
    out: dict[str, object] = {}
    with h5file:
        try:
            keys = list(h5file)
        except damaged as exc:
            raise DataError(f"the HDF5 (MATLAB v7.3) file is damaged: {detail(exc)}") from exc
        for k, key in enumerate(keys):
            if key.startswith("#"):
                continue
            if progress is not None:
                progress(k / len(keys), f"variable '{key}'")
            try:
                out[key] = _h5_value(h5file, h5file[key], key)
            except DataError:
                raise
            except Exception as exc:  # damaged dataset
                notes.append(f"variable '{key}' could not be read ({error_text(exc)}); skipped")
    return out
