"""Find the views and the labels among the variables of a file.

MATLAB files (and NPZ files not written by MVC Studio) hold a dictionary of named
variables in many layouts. :func:`build_dataset` decides by rules on names and content:

* **labels**: the first variable whose name is a usual label name (``Y``, ``y``, ``gt``,
  ``gnd``, ``truth``, ``truelabel``, ``labels``, ``label``, ``y0``, ...; case-insensitive),
  as a row or column vector, an ``n x k`` matrix of identical columns, a one-hot matrix, text,
  or a cell of identical vectors. ``n`` is the label count.
* **auxiliary variables** are skipped with a warning: names made of tokens such as ``miss``,
  ``missing``, ``mask``, ``status``, ``index``, ``idx``, ``perm``, ``fold``, ``train``,
  ``test``, ``seed``, ``per``, ``rand`` (``miss10``, ``MissingStatus``, ``rand_num_test``),
  structs, scalars, vectors, nested cells, and ``n x V`` 0/1 matrices when there are V views
  (missing-view indicators).
* **views**: a cell array (1 x V or V x 1) of matrices, preferring a cell with a usual name
  (``X``, ``data``, ``fea``, ``features``, ``views``), else the cell with the most features;
  otherwise every matrix variable with a dimension equal to ``n`` (``x1..xV`` in numeric order),
  including ``(doc, term, value)`` triplet lists which become sparse ``n x max(term)`` views.
* **orientation**: the axis whose length is ``n`` holds the samples; a view with both
  dimensions equal to ``n`` (a graph) is kept as stored.
* **names**: text variables named like ``view_names``/``view_meaning`` and
  ``class_names``/``class_meaning``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

from core.data.dataset import DataError, MultiViewDataset
from core.data.io.assemble import (
    RawView,
    as_matrix,
    as_strings,
    assemble_dataset,
    natural_key,
    parse_labels,
)
from core.data.io.missing_views import mark_missing_views
from core.data.io.parts import merge_parts
from core.data.io.triplets import is_triplets, triplets_to_csr

__all__ = ["LABEL_NAMES", "build_dataset", "is_auxiliary_name"]

log = logging.getLogger(__name__)

#: Label variable names, in order of preference (matched case-insensitively).
LABEL_NAMES: tuple[str, ...] = tuple(
    "y gt gnd truth truelabel truelabels true_label true_labels labels label y0 groundtruth "
    "ground_truth target targets class_labels classlabels".split()
)
_VIEW_GROUP_NAMES = ("x", "data", "fea", "feas", "features", "feature", "views", "xs", "x_all")
_VIEW_NAMES_RE = re.compile(r"^(view_?names?|view_?meaning|views?_?name|view_?labels)$", re.I)
_CLASS_NAMES_RE = re.compile(
    r"^(class_?names?|class_?meaning|classes|categories|category_?names|label_?names)$", re.I
)
_AUX_TOKENS = frozenset(
    "miss missing mask masks status index indices idx ind perm permutation fold folds train "
    "test seed per rand random split splits cv incomplete observed".split()
)
_TOKEN_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def is_auxiliary_name(name: str) -> bool:
    """True if a variable name says it is a mask, an index, a split or a seed, not a view."""
    return any(tok.lower() in _AUX_TOKENS for tok in _TOKEN_RE.findall(name))


def _unwrap(value: object) -> object:
    """Unwrap 1 x 1 cells that only contain another cell."""
    while (
        isinstance(value, np.ndarray)
        and value.dtype == object
        and value.size == 1
        and isinstance(value.flat[0], np.ndarray)
        and value.flat[0].dtype == object
    ):
        value = value.flat[0]
    return value


def _shape(x: object) -> tuple[int, ...]:
    return tuple(x.shape)


def _describe(value: object) -> str:
    """Short description of a variable for messages: its shape or kind."""
    if isinstance(value, np.ndarray) and value.dtype == object:
        return f"(cell {' x '.join(map(str, value.shape))})"
    if sp.issparse(value) or isinstance(value, np.ndarray):
        return f"({' x '.join(map(str, value.shape))})"
    return f"({type(value).__name__})"


class _Skipped:
    """Variables left out, grouped by reason, turned into warnings at the end."""

    def __init__(self) -> None:
        self.by_reason: dict[str, list[str]] = {}

    def add(self, key: str, reason: str) -> None:
        self.by_reason.setdefault(reason, []).append(key)

    def notes(self) -> list[str]:
        out = []
        for reason, keys in self.by_reason.items():
            names = ", ".join(f"'{k}'" for k in keys)
            out.append(f"ignored {names}: {reason}")
        return out


def _find_labels(
    variables: Mapping[str, object], notes: list[str]
) -> tuple[np.ndarray | None, str | None, list[str]]:
    """Return labels, the variable they came from, and the other label-named variables."""
    rank = {name: i for i, name in enumerate(LABEL_NAMES)}
    candidates = sorted(
        (k for k in variables if k.lower() in rank), key=lambda k: (rank[k.lower()], k)
    )
    labels, where, others = None, None, []
    for key in candidates:
        if labels is not None:
            others.append(key)
            continue
        scratch: list[str] = []
        parsed = parse_labels(variables[key], key, scratch)
        if parsed is None:
            others.append(key)
            continue
        labels, where = parsed, key
        notes.extend(scratch)
    return labels, where, others


def _cell_matrices(cell: np.ndarray) -> list[object] | None:
    """The elements of a cell if they are all non-scalar numeric matrices, else None."""
    items = list(cell.ravel(order="F"))
    mats = [as_matrix(i) for i in items]
    if not items or any(m is None or m.ndim != 2 for m in mats):
        return None
    if all(min(m.shape) <= 1 for m in mats):
        return None  # vectors, scalars or empty matrices only
    return mats  # an empty member is reported by assemble_dataset


def _has_axis(x: object, n: int | None) -> bool:
    return n is None or n in _shape(x)[:2]


def _is_binary(x: object) -> bool:
    data = x.data if sp.issparse(x) else x
    return bool(np.isin(data, (0, 1)).all())


def _classify(
    variables: Mapping[str, object],
    used: set[str],
    n: int | None,
    skipped: _Skipped,
) -> tuple[list[tuple[str, list[object]]], list[tuple[str, object]]]:
    """Split variables into view groups (cells of matrices) and single matrices."""
    groups: list[tuple[str, list[object]]] = []
    mats: list[tuple[str, object]] = []
    for key, value in variables.items():
        if key in used:
            continue
        if is_auxiliary_name(key):
            skipped.add(
                key, "auxiliary variables (names like masks, indices, splits or seeds), not views"
            )
            continue
        if isinstance(value, dict):
            skipped.add(key, "structs, not views")
            continue
        if as_strings(value) is not None:
            continue  # free text such as a data set name
        if isinstance(value, np.ndarray) and value.dtype == object:
            members = _cell_matrices(value)
            if members is None:
                skipped.add(key, "cells that do not hold matrices")
            elif key.lower() not in _VIEW_GROUP_NAMES and not all(_has_axis(m, n) for m in members):
                skipped.add(key, f"cells of matrices without a dimension of {n} samples")
            else:
                groups.append((key, members))
            continue
        mat = as_matrix(value)
        if mat is None:
            skipped.add(key, "not numeric matrices")
        elif mat.ndim != 2 or mat.size <= 1:
            skipped.add(key, "scalars or arrays that are not 2-D")
        elif min(mat.shape) == 1 and key.lower() not in _VIEW_GROUP_NAMES:
            skipped.add(key, "vectors, not views")
        elif is_triplets(mat, n) or _has_axis(mat, n):
            mats.append((key, mat))
        else:
            skipped.add(key, f"no dimension equals the {n} samples")
    return groups, mats


def _choose_group(
    groups: list[tuple[str, list[object]]], skipped: _Skipped
) -> tuple[str, list[object]]:
    named = [g for g in groups if g[0].lower() in _VIEW_GROUP_NAMES]
    if named:
        order = {name: i for i, name in enumerate(_VIEW_GROUP_NAMES)}
        best = min(named, key=lambda g: order[g[0].lower()])
    else:
        best = max(groups, key=lambda g: sum(int(m.shape[0]) * int(m.shape[1]) for m in g[1]))
    for key, _ in groups:
        if key != best[0]:
            skipped.add(key, f"other cell arrays (the views are taken from '{best[0]}')")
    return best


def _separate_views(
    mats: list[tuple[str, object]], n: int | None, skipped: _Skipped, notes: list[str]
) -> list[RawView]:
    """Views stored as separate variables, minus n x V 0/1 missing-view indicators."""
    keep = []
    for key, mat in mats:
        others = len(mats) - 1
        indicator = (
            others >= 2
            and n is not None
            and not sp.issparse(mat)
            and mat.shape == (n, others)
            and _is_binary(mat)
        )
        if indicator:
            skipped.add(key, "n x V 0/1 matrices (missing-view indicators), not views")
        else:
            keep.append((key, mat))
    pattern = re.compile(r"^([A-Za-z_]*?)_?(\d+)$")
    prefixes = {m.group(1).lower() if (m := pattern.match(k)) else None for k, _ in keep}
    if len(keep) > 1 and None not in prefixes and len(prefixes) == 1:
        keep.sort(key=lambda kv: natural_key(kv[0]))
    if n is None:
        trips = [m for _, m in keep if is_triplets(m, None)]
        if trips:
            n = int(max(np.asarray(m[:, 0], dtype=np.float64).max() for m in trips))
            notes.append(
                f"no labels: the number of samples ({n}) is the largest document "
                "index of the triplet lists"
            )
    views, triplets = [], []
    for key, mat in keep:
        data = mat
        if is_triplets(mat, n):
            data = triplets_to_csr(mat, n, key, notes)
            triplets.append(f"'{key}' ({data.shape[0]} x {data.shape[1]})")
        views.append(RawView(where=key, data=data, name=key))
    if triplets:
        notes.append(
            "(doc, term, value) triplet lists read as sparse views, vocabulary = "
            "largest term index: " + ", ".join(triplets)
        )
    return views


def _one_sample_views(variables: Mapping[str, object], used: set[str], n: int | None) -> list[str]:
    """The 1 x d matrices (d > 1) of a file without views, as "'X1' (1 x 7)": views of a
    single sample (unless the labels say there are d samples)."""
    found = []
    for key, value in variables.items():
        if key in used or is_auxiliary_name(key):
            continue
        if isinstance(value, np.ndarray) and value.dtype == object and value.size:
            mats = [as_matrix(m) for m in value.ravel(order="F")]
        else:
            mats = [as_matrix(value)]
        if all(m is not None and m.ndim == 2 and m.shape[0] == 1 < m.shape[1] for m in mats):
            if n is None or all(m.shape[1] != n for m in mats):
                shape = " x ".join(map(str, mats[0].shape))
                found.append(f"'{key}' ({'a cell of ' if len(mats) > 1 else ''}{shape})")
    return found


def _fallback_labels(
    variables: Mapping[str, object], used: set[str], views: list[RawView], notes: list[str]
) -> tuple[np.ndarray | None, str | None]:
    """Without a label-named variable: an integer vector matching a dimension of every view."""
    for key, value in variables.items():
        mat = as_matrix(value)
        if key in used or mat is None or sp.issparse(mat) or mat.ndim != 2:
            continue
        if min(mat.shape) != 1 or mat.size < 2 or is_auxiliary_name(key):
            continue
        vec = mat.ravel()
        if not all(vec.size in _shape(v.data) for v in views):
            continue
        if vec.dtype.kind == "f" and not np.all(vec == np.round(vec)):
            continue
        if np.unique(vec).size > max(2, vec.size // 2):
            continue
        notes.append(
            f"no variable named like labels: used the integer vector '{key}' "
            f"({vec.size} entries) as labels"
        )
        return vec, key
    return None, None


def build_dataset(
    variables: Mapping[str, object],
    *,
    name: str = "dataset",
    source: str = "",
    notes: list[str] | None = None,
) -> MultiViewDataset:
    """Build a dataset from the named variables of a file.

    Parameters
    ----------
    variables : mapping of str to object
        Variables as read: numeric arrays in their stored (MATLAB) shape, scipy sparse
        matrices, object arrays for cells, str or str arrays for text, dicts for structs.
        Names starting with ``__`` are ignored.
    name, source : str
        Dataset name and source description.
    notes : list of str, optional
        Warnings collected by the reader; repairs and skipped variables are appended.

    Returns
    -------
    MultiViewDataset

    Raises
    ------
    DataError
        When no views can be found or the views and labels do not fit together.
    """
    notes = list(notes or [])
    variables = {k: _unwrap(v) for k, v in variables.items() if not k.startswith("__")}
    if not variables:
        raise DataError("the file contains no variables")
    variables = merge_parts(variables, set(LABEL_NAMES), notes)
    used: set[str] = set()
    view_names = class_names = None
    for key, value in variables.items():
        strings = as_strings(value)
        if strings is None:
            continue
        if _VIEW_NAMES_RE.match(key):
            view_names = strings
            used.add(key)
        elif _CLASS_NAMES_RE.match(key):
            class_names = strings
            used.add(key)
    labels, label_key, other_label_keys = _find_labels(variables, notes)
    used.update(other_label_keys)
    if label_key is not None:
        used.add(label_key)
    if other_label_keys:
        shapes = ", ".join(f"'{k}' {_describe(variables[k])}" for k in other_label_keys)
        lead = f"used '{label_key}' as labels; " if label_key else ""
        notes.append(f"{lead}ignored label-like variables that are not used: {shapes}")
    n = None if labels is None else int(labels.size)
    skipped = _Skipped()
    groups, mats = _classify(variables, used, n, skipped)
    if groups:
        key, members = _choose_group(groups, skipped)
        views = [RawView(where=f"{key}{{{i + 1}}}", data=m) for i, m in enumerate(members)]
        for mkey, _ in mats:
            skipped.add(mkey, f"matrices outside the cell array '{key}' that holds the views")
    elif mats:
        views = _separate_views(mats, n, skipped, notes)
    else:
        single = _one_sample_views(variables, used, n)
        if single:
            verb = "is a single row" if len(single) == 1 else "are single rows"
            raise DataError(
                f"only one sample: {', '.join(single)} {verb} (one sample's features); "
                "clustering needs at least 2 samples"
            )
        found = ", ".join(f"'{k}'" for k in variables) or "none"
        expect = f" with a dimension of {n} (the number of labels in '{label_key}')" if n else ""
        why = "; ".join(skipped.notes())
        raise DataError(
            f"no views found: expected a cell array of matrices (e.g. X{{v}}) or separate "
            f"matrices{expect}; variables present: {found}" + (f" ({why})" if why else "")
        )
    if labels is None:
        labels, label_key = _fallback_labels(variables, used, views, notes)
        if labels is None:
            notes.append("no labels found: the dataset is unlabelled (no accuracy metrics)")
    notes.extend(skipped.notes())
    for note in notes:
        log.info("%s: %s", name, note)
    ds = assemble_dataset(
        views,
        labels,
        label_where=f"'{label_key}'" if label_key else "labels",
        view_names=view_names,
        class_names=class_names,
        name=name,
        source=source,
        notes=notes,
    )
    return mark_missing_views(ds, variables)
