"""NumPy ``.npz`` archives (read with ``allow_pickle=False``) and :func:`save_npz`.

The MVC Studio layout (what :func:`save_npz` writes):

* views ``X0``, ``X1``, ... (``n x d`` arrays, any real dtype) or ``view_<name>``; a sparse
  view is stored as four arrays ``X1_data``, ``X1_indices``, ``X1_indptr``, ``X1_shape``
  (CSR);
* labels ``y`` (or ``labels``), any values;
* optional ``view_names`` and ``class_names`` (string arrays) and ``name`` (a string).

An archive in another layout (other key names) goes through :mod:`core.data.io.variables`, like a
MATLAB file; a file written by :func:`scipy.sparse.save_npz` is read as a single sparse view.
"""

from __future__ import annotations

import os
import re
import zipfile
import zlib
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from core.data.atomic import open_atomic
from core.data.dataset import DataError, MultiViewDataset, detail, error_text
from core.data.io.assemble import RawView, as_strings, assemble_dataset, parse_labels
from core.data.io.variables import LABEL_NAMES, build_dataset

__all__ = ["read_npz", "save_npz"]

_SPARSE_PARTS = ("data", "indices", "indptr", "shape")
_X_KEY = re.compile(r"^[Xx](\d+)$")


def _load_arrays(path: Path) -> dict[str, np.ndarray]:
    try:
        # the file opened here: np.load leaves its own handle open when the archive is
        # damaged (a ResourceWarning found by benchmarks/fuzz_loaders.py)
        with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as archive:
            return {key: archive[key] for key in archive.files}
    except DataError:
        raise
    except ValueError as exc:
        if "allow_pickle" in str(exc):
            raise DataError(
                "the archive holds Python objects (pickled arrays), which are not "
                "loaded for safety: store numbers and strings only"
            ) from exc
        raise DataError(f"cannot read the .npz archive: {detail(exc)}") from exc
    except (OSError, EOFError, zipfile.BadZipFile, zlib.error, KeyError) as exc:
        raise DataError(f"damaged or truncated .npz archive ({error_text(exc)})") from exc


def _join_sparse(arrays: dict[str, np.ndarray]) -> dict[str, object]:
    """Rebuild CSR matrices stored as ``<base>_data/_indices/_indptr/_shape``."""
    out: dict[str, object] = dict(arrays)
    bases = [k[: -len("_indptr")] for k in arrays if k.endswith("_indptr")]
    for base in bases:
        keys = [f"{base}_{part}" for part in _SPARSE_PARTS]
        if not all(k in arrays for k in keys):
            continue
        data, indices, indptr, shape = (arrays[k] for k in keys)
        try:
            mat = sp.csr_matrix((data, indices, indptr), shape=tuple(int(s) for s in shape))
            mat.check_format(full_check=True)
        except (ValueError, TypeError) as exc:
            raise DataError(f"sparse view '{base}' is inconsistent: {detail(exc)}") from exc
        for k in keys:
            out.pop(k)
        out[base] = mat
    return out


def _string(value: object) -> str | None:
    strings = as_strings(value)
    return strings[0] if strings and len(strings) == 1 else None


def read_npz(path: Path, *, name: str | None, source: str, notes: list[str]) -> MultiViewDataset:
    """Read an ``.npz`` archive into a dataset.

    Parameters
    ----------
    path : Path
        The archive (opened read-only, never modified).
    name : str or None
        Dataset name; default the stored ``name`` or the file stem.
    source : str
        Source description stored in the dataset.
    notes : list of str
        Warnings collected so far.

    Returns
    -------
    MultiViewDataset
    """
    arrays = _load_arrays(path)
    if {"format", "indptr", "shape"} <= set(arrays):  # scipy.sparse.save_npz
        try:
            mat = sp.load_npz(path)
        except (ValueError, OSError) as exc:
            raise DataError(f"cannot read the sparse matrix archive: {detail(exc)}") from exc
        views = [RawView(where=path.name, data=mat, name=path.stem)]
        notes.append("a single sparse matrix (scipy.sparse.save_npz): one view, no labels")
        return assemble_dataset(
            views, None, name=name or path.stem, source=source, notes=notes, orient=False
        )
    variables = _join_sparse(arrays)
    stored_name = _string(variables.pop("name", None))
    name = name or stored_name or path.stem
    numbered = sorted(
        (k for k in variables if _X_KEY.match(k)), key=lambda k: int(_X_KEY.match(k).group(1))
    )
    named = [k for k in variables if k.startswith("view_") and k != "view_names"]
    if not numbered and not named:
        return build_dataset(variables, name=name, source=source, notes=notes)
    keys = numbered + named
    views = [
        RawView(where=k, data=variables[k], name=k[len("view_") :] if k in named else None)
        for k in keys
    ]
    labels, label_key = None, None
    rank = {n: i for i, n in enumerate(LABEL_NAMES)}
    for key in sorted((k for k in variables if k.lower() in rank), key=lambda k: rank[k.lower()]):
        labels = parse_labels(variables[key], key, notes)
        if labels is not None:
            label_key = key
            break
    view_names = as_strings(variables["view_names"]) if "view_names" in variables else None
    class_names = as_strings(variables["class_names"]) if "class_names" in variables else None
    known = {*keys, "view_names", "class_names", *([label_key] if label_key else [])}
    extra = [k for k in variables if k not in known]
    if extra:
        notes.append(
            "ignored arrays " + ", ".join(f"'{k}'" for k in extra) + ": not views, labels or names"
        )
    return assemble_dataset(
        views,
        labels,
        label_where=f"'{label_key}'",
        view_names=view_names,
        class_names=class_names,
        name=name,
        source=source,
        notes=notes,
    )


def save_npz(dataset: MultiViewDataset, path: str | os.PathLike[str]) -> Path:
    """Write a dataset as a compressed ``.npz`` archive, atomically.

    The archive is written to a temporary file in the same folder and moved over ``path``
    (:mod:`core.data.atomic`), so a crash never leaves a half-written file behind.

    Parameters
    ----------
    dataset : MultiViewDataset
        The dataset; sparse views are stored as CSR parts, dense views as they are.
    path : str or PathLike
        The destination (written exactly there; no suffix is added).

    Returns
    -------
    Path
        The path written.
    """
    path = Path(path)
    arrays: dict[str, np.ndarray] = {}
    for i, view in enumerate(dataset.views):
        if sp.issparse(view):
            csr = sp.csr_matrix(view)
            arrays[f"X{i}_data"] = csr.data
            arrays[f"X{i}_indices"] = csr.indices
            arrays[f"X{i}_indptr"] = csr.indptr
            arrays[f"X{i}_shape"] = np.asarray(csr.shape, dtype=np.int64)
        else:
            arrays[f"X{i}"] = np.asarray(view)
    if dataset.labels is not None:
        arrays["y"] = np.asarray(dataset.labels)
    arrays["view_names"] = np.asarray([str(s) for s in dataset.view_names], dtype=str)
    if dataset.class_names:
        arrays["class_names"] = np.asarray([str(s) for s in dataset.class_names], dtype=str)
    arrays["name"] = np.asarray(str(dataset.name))
    with open_atomic(path, "wb") as fh:
        np.savez_compressed(fh, **arrays)
    return path
