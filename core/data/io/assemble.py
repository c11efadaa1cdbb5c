"""Pieces shared by the readers: raw views, label parsing, orientation and final assembly.

Every reader turns its file into a list of :class:`RawView` (a matrix as stored, with a note
of where it came from) plus optional labels and names, and hands them to
:func:`assemble_dataset`, which orients the views, casts them to float64, checks them with
messages that name the variable, encodes the labels and builds the
:class:`~core.data.dataset.MultiViewDataset`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from core.data.dataset import (
    DataError,
    MultiViewDataset,
    detail,
    encode_labels,
    label_leaks,
    leak_message,
)

__all__ = [
    "RawView",
    "as_matrix",
    "as_strings",
    "assemble_dataset",
    "natural_key",
    "parse_labels",
]


@dataclass
class RawView:
    """One view as stored in a file, before orientation and casting.

    Attributes
    ----------
    where : str
        Where the view came from, used in messages (``"X{2}"``, ``"view_fou.csv"``).
    data : numpy.ndarray or scipy.sparse matrix
        The matrix in its stored orientation and dtype.
    name : str or None
        A display name when the file gives one.
    """

    where: str
    data: object
    name: str | None = None


def checked_sparse(mat: sp.spmatrix, where: str) -> sp.spmatrix:
    """``mat`` if its index arrays are consistent, else a DataError naming ``where``.

    Readers build sparse matrices from the index arrays a file stores; damaged ones (a
    pointer past the end, a row index beyond the row count) made scipy's compiled routines
    read outside their buffers and kill the process, so every reader checks them first."""
    if mat.format not in ("csr", "csc"):
        return mat
    try:
        mat.check_format(full_check=True)
    except (ValueError, IndexError, TypeError) as exc:
        raise DataError(f"'{where}' is a damaged sparse matrix ({detail(exc)})") from exc
    return mat


def natural_key(text: str) -> list[object]:
    """Sort key that orders ``x2`` before ``x10``."""
    return [int(tok) if tok.isdigit() else tok.lower() for tok in re.split(r"(\d+)", text)]


def as_strings(value: object) -> list[str] | None:
    """Return ``value`` as a list of strings if it is text (str, char array, cell of str)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, bytes):
        return [value.decode("utf-8", "replace")]
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "US":
            return [
                s.decode("utf-8", "replace") if isinstance(s, bytes) else str(s)
                for s in value.ravel()
            ]
        if value.dtype == object and value.size:
            out: list[str] = []
            for item in value.ravel(order="F"):
                strings = as_strings(item)
                if strings is None or len(strings) != 1:
                    return None
                out.append(strings[0].strip())
            return out
    return None


def as_matrix(value: object) -> np.ndarray | sp.spmatrix | None:
    """Return ``value`` if it is a numeric dense array or a sparse matrix, else None."""
    if sp.issparse(value):
        return value
    if isinstance(value, np.ndarray) and value.dtype.kind in "biufc" and value.dtype != object:
        return value
    return None


def _is_integer_valued(arr: np.ndarray) -> bool:
    if arr.dtype.kind in "biu":
        return True
    return bool(arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)))


def parse_labels(value: object, where: str, notes: list[str]) -> np.ndarray | None:
    """Turn a stored label variable into a 1-D array, or None if it cannot be labels.

    Understands a row or column vector, an ``n x k`` matrix of identical columns (or rows),
    a one-hot indicator matrix, text labels, and a cell array of identical label vectors.
    Repairs are described in ``notes``.
    """
    strings = None
    if isinstance(value, np.ndarray) and value.dtype == object:
        return _labels_from_cell(value, where, notes)
    if isinstance(value, np.ndarray) and value.dtype.kind in "US":
        strings = as_strings(value)
    if strings is not None:
        return np.asarray(strings) if len(strings) > 1 else None
    mat = as_matrix(value)
    if mat is None:
        return None
    if sp.issparse(mat):
        if min(mat.shape) != 1 and not _looks_one_hot(mat):
            return None
        mat = mat.toarray()
    if mat.dtype.kind == "c":
        raise DataError(f"labels '{where}' are complex numbers")
    if mat.ndim == 0 or mat.size < 2:
        return None
    if mat.ndim == 1 or min(mat.shape) == 1:
        out = mat.ravel()
    elif mat.ndim == 2:
        out = _labels_from_matrix(mat, where, notes)
        if out is None:
            return None
    else:
        return None
    if out.dtype.kind == "f" and np.isnan(out).any():
        first = int(np.flatnonzero(np.isnan(out))[0]) + 1
        raise DataError(f"labels '{where}' contain NaN (first at position {first}, 1-based)")
    return out


def _looks_one_hot(mat: np.ndarray | sp.spmatrix) -> bool:
    arr = mat.toarray() if sp.issparse(mat) else mat
    if not np.isin(arr, (0, 1)).all():
        return False
    return bool(np.all(arr.sum(axis=1) == 1) or np.all(arr.sum(axis=0) == 1))


def _labels_from_matrix(mat: np.ndarray, where: str, notes: list[str]) -> np.ndarray | None:
    rows, cols = mat.shape
    if np.all(mat == mat[:, :1]):
        notes.append(
            f"labels '{where}' are {rows} x {cols} with {cols} identical columns: "
            "used the first column"
        )
        return mat[:, 0]
    if np.all(mat == mat[:1, :]):
        notes.append(
            f"labels '{where}' are {rows} x {cols} with {rows} identical rows: used the first row"
        )
        return mat[0, :]
    if _looks_one_hot(mat):
        axis = 1 if np.all(mat.sum(axis=1) == 1) else 0
        notes.append(f"labels '{where}' are a one-hot indicator matrix: converted to class indices")
        return np.argmax(mat, axis=axis)
    return None


def _labels_from_cell(cell: np.ndarray, where: str, notes: list[str]) -> np.ndarray | None:
    strings = as_strings(cell)
    if strings is not None:
        return np.asarray(strings) if len(strings) > 1 else None
    items = list(cell.ravel(order="F"))
    if items and all(as_matrix(i) is not None and np.size(i) == 1 for i in items):
        return np.array([np.asarray(i).ravel()[0] for i in items])
    scratch: list[str] = []
    parsed = [parse_labels(item, f"{where}{{{k + 1}}}", scratch) for k, item in enumerate(items)]
    if not parsed or any(p is None for p in parsed):
        return None
    notes.extend(scratch[:1])
    first = parsed[0]
    if len(parsed) > 1:
        same = all(p.shape == first.shape and np.array_equal(p, first) for p in parsed[1:])
        if same:
            notes.append(
                f"labels '{where}' are a cell of {len(parsed)} identical label vectors: "
                "used the first"
            )
        else:
            notes.append(
                f"labels '{where}' are a cell of {len(parsed)} label vectors that differ: "
                f"used {where}{{1}}"
            )
    return first


def _to_float(x: object, where: str) -> np.ndarray | sp.csr_matrix:
    """Cast a stored matrix to float64 (integers are cast before any arithmetic)."""
    if sp.issparse(x):
        if x.dtype.kind == "c":
            raise DataError(f"{where} holds complex numbers: only real values are supported")
        return sp.csr_matrix(x, dtype=np.float64)
    arr = np.asarray(x)
    if arr.dtype.kind not in "biuf":
        raise DataError(f"{where} holds values of type {arr.dtype}, not real numbers")
    return arr


def _orient(x: object, n: int, where: str, label_where: str) -> tuple[object, str]:
    """Return the view with samples in rows, and 'rows', 'columns' or 'square'."""
    rows, cols = x.shape
    if rows == n:
        out = x if sp.issparse(x) else np.asarray(x, dtype=np.float64, order="C")
        return out, "square" if cols == n else "rows"
    if cols == n:
        if sp.issparse(x):
            return sp.csr_matrix(x.T), "columns"
        return np.array(x.T, dtype=np.float64, order="C"), "columns"
    raise DataError(
        f"{where} is {rows} x {cols} but there are {n} samples ({label_where}): "
        "neither dimension matches"
    )


def _finite_problem(x: object, index: int, where: str) -> str | None:
    data = x.data if sp.issparse(x) else x
    bad = ~np.isfinite(data)
    if not bad.any():
        return None
    count = int(bad.sum())
    if sp.issparse(x):
        pos = int(np.flatnonzero(bad)[0])
        r = int(np.searchsorted(x.indptr, pos, side="right") - 1)
        c = int(x.indices[pos])
    else:
        r, c = (int(i) for i in np.argwhere(bad)[0])
    kind = "NaN" if np.isnan(data[bad]).any() else "infinite"
    return (
        f"view {index + 1} ({where}) has {count} {kind} value(s), first at sample {r + 1}, "
        f"feature {c + 1} (1-based)"
    )


def _infer_n(views: Sequence[RawView], orient: bool, notes: list[str]) -> int:
    shapes = [np.shape(v.data) if not sp.issparse(v.data) else v.data.shape for v in views]
    shapes = [(s[0], 1) if len(s) == 1 else tuple(s[:2]) for s in shapes]
    if not orient:
        return int(shapes[0][0])
    common = set(shapes[0])
    for s in shapes[1:]:
        common &= set(s)
    if len(common) == 1:
        return int(common.pop())
    if common and all(s[0] == shapes[0][0] for s in shapes):
        if len(shapes) > 1 or shapes[0][0] != shapes[0][1]:
            notes.append("no labels and the sample axis is ambiguous: assumed samples in rows")
        return int(shapes[0][0])
    detail = ", ".join(f"{v.where} {s[0]} x {s[1]}" for v, s in zip(views, shapes, strict=True))
    raise DataError(f"the views share no dimension, so the number of samples is unknown ({detail})")


def assemble_dataset(
    views: Sequence[RawView],
    labels: np.ndarray | None,
    *,
    label_where: str = "labels",
    view_names: Sequence[str] | None = None,
    class_names: Sequence[str] | None = None,
    name: str = "dataset",
    source: str = "",
    notes: list[str] | None = None,
    orient: bool = True,
) -> MultiViewDataset:
    """Orient, cast and check raw views, encode labels and build the dataset.

    Parameters
    ----------
    views : sequence of RawView
        The views in order.
    labels : array or None
        1-D labels (any values) or None.
    label_where : str
        Where the labels came from, for messages.
    view_names, class_names : sequence of str, optional
        Names read from the file; ignored with a note when their count does not match.
    name, source : str
        Dataset name and source description.
    notes : list of str
        Warnings collected so far; the dataset's ``warnings``.
    orient : bool
        If True a view stored features x samples is transposed; if False rows must be samples.

    Returns
    -------
    MultiViewDataset
    """
    notes = notes if notes is not None else []
    if not views:
        raise DataError("no views found")
    n = int(labels.size) if labels is not None else _infer_n(views, orient, notes)
    label_where = f"from {label_where}" if labels is not None else "inferred from the views"
    out: list[object] = []
    transposed: list[str] = []
    square: list[str] = []
    dtypes: list[str] = []
    for i, raw in enumerate(views):
        dtypes.append(str(getattr(raw.data, "dtype", "")) or type(raw.data).__name__)
        x = _to_float(raw.data, raw.where)
        if x.ndim == 1:
            x = x.reshape(-1, 1)
        if x.ndim != 2:
            raise DataError(
                f"{raw.where} is a {x.ndim}-D array of shape {x.shape}: a view must be a 2-D matrix"
            )
        if 0 in x.shape:
            raise DataError(
                f"view {i + 1} ({raw.where}) is empty: shape {x.shape[0]} x {x.shape[1]}"
            )
        if orient:
            x, how = _orient(x, n, raw.where, label_where)
            if how == "columns":
                transposed.append(f"{raw.where} ({x.shape[1]} x {x.shape[0]})")
            elif how == "square":
                square.append(raw.where)
        elif x.shape[0] != n:
            raise DataError(
                f"{raw.where} has {x.shape[0]} rows but there are {n} samples ({label_where})"
            )
        else:
            x = x if sp.issparse(x) else np.asarray(x, dtype=np.float64, order="C")
        problem = _finite_problem(x, i, raw.where)
        if problem:
            raise DataError(problem)
        out.append(x)
    if transposed:
        notes.append("stored as features x samples, transposed: " + ", ".join(transposed))
    if square:
        notes.append(
            f"both dimensions equal the {n} samples (e.g. a graph), kept as stored "
            "with samples in rows: " + ", ".join(square)
        )
    names = [raw.name or f"view {i + 1}" for i, raw in enumerate(views)]
    if view_names is not None:
        if len(view_names) == len(out):
            names = [str(s) for s in view_names]
        else:
            notes.append(f"ignored {len(view_names)} view names for {len(out)} views")
    codes = None
    classes: list[str] = []
    label_variable: str | None = label_where.removeprefix("from ")
    if labels is not None:
        odd = odd_labels(labels)
        if odd:
            notes.append(f"labels ({label_variable}) look damaged: {odd}")
        codes, classes = encode_labels(labels)
        if len(classes) < 2:  # nothing to score against, and not a number of clusters
            notes.append(
                f"the labels ({label_variable}) have one class ({classes[0]!r}) for all {n} "
                "samples: they cannot score a clustering nor give the number of clusters, so "
                "the data is read as unlabelled (the number of clusters is estimated unless "
                "given)"
            )
            codes, classes, label_variable = None, [], None
        elif class_names is not None:
            classes = _match_class_names(labels, classes, list(class_names), notes)
    leaks = label_leaks(out, codes, labels)
    if leaks:  # a view list that points at the labels, X = {view, Y}: the answer as a view
        wheres = [raw.where for raw in views]
        text = leak_message(leaks, wheres, f"the reference labels ({label_variable})")
        if len(leaks) == len(out):
            raise DataError(f"{text}; no other view is left to cluster")
        notes.append(f"left out: {text}")
        gone = {i for i, _ in leaks}
        out = [x for i, x in enumerate(out) if i not in gone]
        names = [x for i, x in enumerate(names) if i not in gone]
        dtypes = [x for i, x in enumerate(dtypes) if i not in gone]
    return MultiViewDataset(
        views=out,
        labels=codes,
        view_names=names,
        class_names=classes,
        name=name,
        source=source,
        warnings=notes,
        meta={"dtypes": dtypes, "label_variable": label_variable},
    )


def _number(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{float(v):.12g}"


def odd_labels(labels: np.ndarray) -> str | None:
    """What looks damaged in numeric labels (a flipped bit in a stored label), or None.

    Two signs, each in at most 5 % of the samples: values that are not whole numbers among
    whole-number classes (2.0000000004 among 1, 2, 3), and classes of one or two samples whose
    values lie far outside the range of the others (1099511627778 among 1..3)."""
    arr = np.asarray(labels).ravel()
    if arr.dtype.kind not in "iuf" or arr.size < 3:
        return None
    values, counts = np.unique(arr, return_counts=True)
    if values.size < 3:
        return None
    few = 0.05 * arr.size
    whole = values == np.round(values)
    if arr.dtype.kind == "f" and whole.any() and not whole.all() and counts[~whole].sum() <= few:
        bad = values[~whole]
        return (
            f"{int(counts[~whole].sum())} label(s) are not whole numbers among whole-number "
            f"classes (e.g. {bad[0]:.12g})"
        )
    core = values[counts > 2]
    if core.size < 2:
        return None
    lo, hi = float(core.min()), float(core.max())
    reach = max(10.0, 10.0 * (hi - lo))
    far = (counts <= 2) & ((values < lo - reach) | (values > hi + reach))
    if far.any() and counts[far].sum() <= few:
        shown = ", ".join(_number(v) for v in values[far][:3])
        return (
            f"class(es) {shown} of {int(counts[far].sum())} sample(s) lie far outside the "
            f"others ({_number(lo)} to {_number(hi)})"
        )
    return None


def _match_class_names(
    labels: np.ndarray, encoded: list[str], names: list[str], notes: list[str]
) -> list[str]:
    """Attach class names from the file to the encoded classes when their count fits."""
    c = len(encoded)
    if len(names) == c:
        return names
    uniq = np.unique(labels)
    if uniq.dtype.kind in "iuf" and _is_integer_valued(uniq) and uniq.min() >= 0:
        base = 0 if uniq.min() == 0 else 1  # MATLAB labels are 1-based, NumPy ones 0-based
        if uniq.max() - base < len(names):
            return [names[int(u) - base] for u in uniq]
    notes.append(f"ignored {len(names)} class names for {c} classes")
    return encoded
