"""Loading multi-view data from files.

:func:`load_dataset` picks the reader by the file's content, not only its name:

==================  ===============================================================
content             reader
==================  ===============================================================
a folder            CSV folder (``view_<name>.csv`` + ``labels.csv``)
``PK`` zip header   NumPy ``.npz`` archive (:mod:`core.data.io.npz`)
HDF5, AnnData      ``.h5ad``: X a view, obs the metadata (:mod:`core.data.io.anndata`)
HDF5, MuData       ``.h5mu``: each modality's X a view, the global obs the metadata
HDF5 signature      MATLAB v7.3 (:mod:`core.data.io.matlab`, h5py)
JSON description   views from table files aligned by id (:mod:`core.data.io.aligned`)
MATLAB v5 header    MATLAB v5/v7 (:mod:`core.data.io.matlab`, scipy.io.loadmat)
UTF-8 text          one CSV file with ``<view>:<feature>`` columns (:mod:`core.data.io.csv`)
other, ``.mat``     MATLAB v4 (scipy.io.loadmat)
==================  ===============================================================

Every problem is raised as :class:`core.data.dataset.DataError` whose message starts with the
file name; problems worked around are listed in ``dataset.warnings``. Files are only ever
opened for reading.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from core.data.dataset import DataError, MultiViewDataset, error_text, printable
from core.data.io.aligned import SPEC_FORMAT, DataSpec, ViewSource, load_spec
from core.data.io.csv import read_csv_file, read_csv_folder, sniff_encoding
from core.data.io.matlab import DAMAGED_KEY, Progress, is_hdf5, read_mat
from core.data.io.npz import read_npz, save_npz
from core.data.io.variables import build_dataset

__all__ = [
    "FORMATS", "DataSpec", "ViewSource", "anndata_spec", "detect_format", "load_dataset",
    "load_spec", "save_npz",
]  # fmt: skip

log = logging.getLogger(__name__)

#: Format names returned by :func:`detect_format`.
FORMATS = ("csv-folder", "csv", "npz", "mat73", "mat5", "mat4", "h5ad", "h5mu", "tables")


def detect_format(path: str | os.PathLike[str]) -> str:
    """Return the format of ``path`` (one of :data:`FORMATS`) judged by its content.

    Raises
    ------
    DataError
        If the path does not exist, is empty or is in no known format.
    """
    p = Path(path)
    if p.is_dir():
        return "csv-folder"
    if not p.exists():
        raise DataError(f"{p}: no such file or folder")
    try:
        with open(p, "rb") as fh:
            head = fh.read(4096)
    except OSError as exc:
        raise DataError(f"{p.name}: cannot open the file ({exc.strerror})") from exc
    if not head:
        raise DataError(f"{p.name}: the file is empty")
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return "npz"
    if head.startswith(b"\x93NUMPY"):
        raise DataError(
            f"{p.name}: a single .npy array, not a multi-view dataset: save the "
            "views with np.savez(path, X0=..., X1=..., y=...)"
        )
    if is_hdf5(p):
        from core.data.io.anndata import is_anndata

        return is_anndata(p) or "mat73"
    if head.lstrip().startswith(b"{") and SPEC_FORMAT.encode() in head:
        return "tables"
    if head.startswith(b"MATLAB") or (len(head) >= 128 and head[126:128] in (b"IM", b"MI")):
        return "mat5"
    if _is_text(head):
        return "csv"
    if p.suffix.lower() == ".mat":
        return "mat4"
    raise DataError(
        f"{p.name}: unrecognised file format (expected a MATLAB .mat, a NumPy "
        ".npz, a CSV file or a folder of CSV files)"
    )


def _is_text(head: bytes) -> bool:
    """Text in UTF-8 (with or without a byte order mark), UTF-16/32 or an 8-bit code page."""
    return sniff_encoding(head) is not None


def _build_checked(
    variables: dict[str, object], *, name: str, source: str, notes: list[str]
) -> MultiViewDataset:
    """Build a dataset; a partly recovered file must still give views and labels."""
    damaged = variables.pop(DAMAGED_KEY, None)
    if damaged is None:
        return build_dataset(variables, name=name, source=source, notes=notes)
    try:
        dataset = build_dataset(variables, name=name, source=source, notes=notes)
    except DataError as exc:
        raise DataError(f"{damaged}; what remains is not usable: {exc}") from exc
    if dataset.labels is None:
        raise DataError(
            f"{damaged}; no labels among the recovered variables, so the file "
            "cannot be trusted: re-export it from MATLAB"
        )
    return dataset


def anndata_spec(
    path: Path, fmt: str, name: str | None = None, notes: list[str] | None = None
) -> DataSpec:
    """The default views of an .h5ad (X) or .h5mu (each modality's X), obs as metadata;
    ``notes`` gets what is wrong with a MuData file's modality order."""
    if fmt == "h5ad":
        views = [ViewSource(path.stem, str(path), "X")]
    else:
        from core.data.io.anndata import matrix_keys

        keys = matrix_keys(path, notes)
        mods = [k.split("/")[0] for k in keys if k.endswith("/X") and k.count("/") == 1]
        if not mods:
            raise DataError("no modality with an X matrix under mod/")
        views = [ViewSource(m, str(path), f"{m}/X") for m in mods]
    return DataSpec(views=views, meta=str(path), name=name or path.stem)


def _relative_to(spec: DataSpec, folder: Path) -> DataSpec:
    """Paths in a description file are relative to its folder."""
    for v in spec.views:
        v.path = str(folder / v.path)
    if spec.meta:
        spec.meta = str(folder / spec.meta)
    return spec


def load_dataset(
    path: str | os.PathLike[str],
    *,
    name: str | None = None,
    progress: Progress | None = None,
) -> MultiViewDataset:
    """Load a multi-view dataset from a file or a folder.

    Parameters
    ----------
    path : str or PathLike
        A ``.mat`` file (v4, v5/v7 or v7.3), an ``.npz`` archive, a CSV file or a folder of
        CSV files. The format is detected from the content.
    name : str, optional
        Dataset name; default the file name without its suffix.
    progress : callable, optional
        Called as ``progress(fraction, what)`` while reading (``what``: e.g. the MATLAB
        variable being read), so a caller can show it and tell where a reader stopped.

    Returns
    -------
    MultiViewDataset
        Views as ``n x d_v`` float64 arrays (float32 above ``FLOAT32_ABOVE`` values; sparse
        views stay CSR), labels ``0..c-1``,
        names, ``source`` (the path) and ``warnings`` (what was repaired or skipped).

    Raises
    ------
    DataError
        When the file cannot be used; the message names the file and what is wrong.
    """
    p = Path(path)
    try:
        fmt = detect_format(p)
    except DataError:
        raise
    except Exception as exc:  # e.g. h5py on a damaged HDF5 file (found by fuzz_loaders)
        raise DataError(
            f"{p.name}: the file is damaged: its structure cannot be read ({error_text(exc)})"
        ) from exc
    notes: list[str] = []
    if progress is not None:
        progress(0.0, f"reading {p.name} ({fmt})")
    source = str(p)
    try:
        if fmt == "csv-folder":
            dataset = read_csv_folder(p, name=name, source=source, notes=notes)
        elif fmt == "csv":
            dataset = read_csv_file(p, name=name, source=source, notes=notes)
        elif fmt in ("h5ad", "h5mu"):
            dataset = load_spec(anndata_spec(p, fmt, name, notes), source=source)
            dataset.warnings[:0] = notes  # the modality order's problems first
        elif fmt == "tables":
            spec = DataSpec.from_dict(json.loads(p.read_text(encoding="utf-8")))
            dataset = load_spec(_relative_to(spec, p.parent), source=source)
        elif fmt == "npz":
            dataset = read_npz(p, name=name, source=source, notes=notes)
        else:
            variables = read_mat(p, notes, progress)
            dataset = _build_checked(variables, name=name or p.stem, source=source, notes=notes)
    except DataError as exc:
        message = printable(str(exc))  # no raw bytes, no page-long message
        if not message.startswith(p.name):
            message = f"{p.name}: {message}"
        raise DataError(message) from exc
    except MemoryError as exc:
        raise DataError(f"{p.name}: not enough memory to load this file") from exc
    except Exception as exc:  # any reader failure becomes a DataError naming the file
        raise DataError(f"{p.name}: cannot read the file as {fmt} ({error_text(exc)})") from exc
    log.info(
        "loaded %s (%s): n=%d, dims=%s, %d warning(s)",
        p.name,
        fmt,
        dataset.n_samples,
        dataset.dims,
        len(dataset.warnings),
    )
    return dataset
