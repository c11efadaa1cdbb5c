"""The multi-view data model and its validation.

A :class:`MultiViewDataset` holds V views of the same n samples, each an ``n x d_v`` matrix
(dense float64 or CSR sparse), optional integer labels and names. Every loader returns one
and every solver validates its input through :func:`check_views`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import PurePath

import numpy as np
import scipy.sparse as sp

__all__ = [
    "DataError",
    "MultiViewDataset",
    "View",
    "check_observed",
    "check_views",
    "column_kind",
    "detail",
    "encode_labels",
    "error_text",
    "label_leaks",
    "printable",
]

View = np.ndarray | sp.csr_matrix

#: sample ids made per this many rows (each cast holds the interpreter lock: ~5 ms)
IDS_CHUNK = 1 << 14


class DataError(ValueError):
    """Input data that cannot be used, with a message that says what and where."""


#: longest text a reader's own exception may add to a message (a damaged header can make a
#: library quote hundreds of raw bytes)
DETAIL_LIMIT = 160
#: longest message a loader gives (lists of variables included)
MESSAGE_LIMIT = 1000
_QUOTED = re.compile(r"""b?(['"])(?:\\.|(?!\1).)*?\1""")


def _raw(match: re.Match) -> str:
    quoted = match.group(0)
    if "\\x" in quoted or len(quoted) > 80:  # a file's bytes quoted by a library
        return f"<{len(quoted) - 2} characters of raw file content, not shown>"
    return quoted


def printable(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` fit for a message: control characters escaped (``\\x00``), a quoted string
    holding escaped bytes or over 80 characters (a damaged header quoted by numpy or scipy)
    replaced by its length, at most ``limit`` characters."""
    out = "".join(
        ch if ch.isprintable() or ch == " " else ch.encode("unicode_escape").decode("ascii")
        for ch in str(text)
    )
    out = _QUOTED.sub(_raw, out)
    return out if len(out) <= limit else out[: limit - 3].rstrip() + "..."


def detail(exc: BaseException, limit: int = DETAIL_LIMIT) -> str:
    """The message of a reader's exception for a message of ours: escaped and capped."""
    return printable(str(exc), limit)


def error_text(exc: BaseException, limit: int = DETAIL_LIMIT) -> str:
    """``Type: message`` of a reader's exception for a message: escaped and capped."""
    return printable(f"{type(exc).__name__}: {exc}", limit)


def encode_labels(labels: Sequence[object] | np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Map arbitrary labels to ``0..c-1`` and return the codes and the class names."""
    arr = np.asarray(labels).ravel()
    classes, codes = np.unique(arr, return_inverse=True)
    return codes.astype(np.int64), [_class_name(c) for c in classes]


def column_kind(values: Sequence[object] | np.ndarray) -> str:
    """``"numeric"``, or ``"categorical"`` for text or a number column with few distinct
    integral values (at most 20, and at most half the rows): how every part of the project
    (colours, reference labels, the association table) reads a metadata column."""
    values = np.asarray(values)
    if values.dtype.kind not in "biuf":
        return "categorical"
    finite = values[np.isfinite(values)]
    few = np.unique(finite).size <= min(20, max(2, values.shape[0] // 2))
    integral = bool(np.all(finite == np.round(finite)))
    return "categorical" if few and integral else "numeric"


def _class_name(value: object) -> str:
    if isinstance(value, float | np.floating) and float(value).is_integer():
        return str(int(value))
    return str(value)


def _is_block_source(x: object) -> bool:
    # core.data.blocks.RowBlockSource (duck-typed: blocks imports this module)
    return callable(getattr(x, "blocks", None)) and hasattr(x, "shape")


def _as_view(x: object, index: int, copy: bool, dtype: type = np.float64) -> View:
    if _is_block_source(x):
        return x  # type: ignore[return-value]  # read in row blocks, checked block by block
    if sp.issparse(x):
        out = sp.csr_matrix(x, dtype=dtype, copy=copy)
        if not out.has_canonical_format:
            out = out.copy()  # it may share arrays with the caller's matrix: never reorder those
            out.sum_duplicates()
        return out
    arr = np.array(x, dtype=dtype, copy=True if copy else None)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise DataError(f"view {index + 1}: expected a 2-D matrix, got shape {arr.shape}")
    return np.ascontiguousarray(arr)


def _finite_problem(view: View, index: int) -> str | None:
    if _is_block_source(view):
        return None  # each block is checked as it is read
    data = view.data if sp.issparse(view) else view
    bad = ~np.isfinite(data)
    if not bad.any():
        return None
    count = int(bad.sum())
    if sp.issparse(view):
        rows = np.repeat(np.arange(view.shape[0]), np.diff(view.indptr))
        pos = np.flatnonzero(bad)[0]
        r, c = int(rows[pos]), int(view.indices[pos])
    else:
        r, c = (int(i) for i in np.argwhere(bad)[0])
    kind = "NaN" if np.isnan(data[bad]).any() else "Inf"
    return (
        f"view {index + 1} has {count} non-finite value(s) ({kind}), first at row {r}, column {c}"
    )


def _all_rows_equal(view: View, block: int = 1024) -> bool:
    """Whether every sample has the same values in this view (no information to cluster on);
    read in row blocks and stopped at the first block that differs (at once on real data)."""
    if _is_block_source(view) or view.shape[0] < 2:
        return False
    if sp.issparse(view):
        first = view[0]
        for a in range(0, view.shape[0], block):
            rows = view[a : a + block]
            if (rows - sp.vstack([first] * rows.shape[0])).count_nonzero():
                return False
        return True
    first = view[0]
    for a in range(0, view.shape[0], block):
        rows = view[a : a + block]
        if not np.array_equal(rows, np.broadcast_to(first, rows.shape)):
            return False
    return True


#: views of at most this many features are checked for repeating the labels (label_leaks)
LEAK_CHECK_FEATURES = 256
#: ... and of at most this many values (a sparse view is made dense for the check)
LEAK_CHECK_VALUES = 20_000_000
#: the note that says no metadata column was chosen as reference labels (aligned.py)
NO_LABELS_NOTE = "no reference labels chosen"


def _leak_kind(x: View, codes: np.ndarray, labels: np.ndarray | None) -> str | None:
    """How view ``x`` repeats the class ``codes`` (0..c-1), or None when it does not (a
    phrase with ``{labels}`` where the labels are named).

    A view repeats them when each of its columns is constant within every class and the
    classes get different rows: the view is the labels, a relabelling of them (1 -> 7,
    2 -> 3...), a one-hot encoding of them, or copies of them. Columns are compared one at a
    time, so a real view fails on its first column."""
    n, d = x.shape
    if n < 2 or d == 0 or d > LEAK_CHECK_FEATURES or n * d > LEAK_CHECK_VALUES:
        return None
    sparse = sp.issparse(x)
    cols = sp.csc_matrix(x) if sparse else np.asarray(x)

    def column(j: int) -> np.ndarray:
        return cols[:, [j]].toarray().ravel() if sparse else cols[:, j]

    _, first = np.unique(codes, return_index=True)  # one sample of each class
    per_class = cols[first].toarray() if sparse else cols[first]  # (c, d): each class's row
    for j in range(d):
        if not np.array_equal(column(j), per_class[codes, j]):
            return None
    c = first.size
    if np.unique(per_class, axis=0).shape[0] != c:
        return None  # some classes share their row: the view does not tell them apart
    if d == 1:
        col = column(0)
        same = labels is not None and labels.dtype.kind in "biuf" and np.array_equal(col, labels)
        return "equals {labels}" if same else f"is a relabelling of {{labels}} ({c} values)"
    if np.isin(per_class, (0, 1)).all() and np.all(per_class.sum(axis=1) == 1):
        return "is a one-hot encoding of {labels}"
    return f"holds {{labels}} (one row pattern per class, {d} columns)"


def label_leaks(
    views: Sequence[object],
    codes: np.ndarray | None,
    labels: np.ndarray | None = None,
    observed: np.ndarray | None = None,
) -> list[tuple[int, str]]:
    """The views that repeat the reference labels: ``(index, how)`` for each.

    Such a view leaks the answer: a method weights it highly and the scores go up for
    nothing (a view list pointing at the label variable made ACC rise from 0.85 to 0.88).
    ``codes``: the labels as 0..c-1; ``labels``: as stored (to say "equals"); ``observed``:
    (n, V) mask, only a view's observed rows are compared. Views read in row blocks and
    views over ``LEAK_CHECK_FEATURES`` features are not checked."""
    if codes is None:
        return []
    codes = np.asarray(codes).ravel()
    if codes.size < 2 or np.unique(codes).size < 2:
        return []
    raw = None if labels is None else np.asarray(labels).ravel()
    out = []
    for i, x in enumerate(views):
        if _is_block_source(x) or not hasattr(x, "shape") or x.shape[0] != codes.size:
            continue
        if observed is not None and not observed[:, i].all():
            rows = np.flatnonzero(observed[:, i])
            sub = x[rows]
            sub_codes = np.unique(codes[rows], return_inverse=True)[1]
            if np.unique(sub_codes).size < 2:
                continue
            how = _leak_kind(sub, sub_codes, None if raw is None else raw[rows])
        else:
            how = _leak_kind(x, codes, raw)
        if how is not None:
            out.append((i, how))
    return out


def leak_message(leaks: list[tuple[int, str]], names: Sequence[str], where: str) -> str:
    """The note (or error) naming the views that repeat the labels (``where``: their source)."""
    parts = [f"view {i + 1} ({names[i]!r}) " + how.format(labels=where) for i, how in leaks]
    return (
        f"{'; '.join(parts)}: a view that holds the reference labels would score the "
        "clustering against itself"
    )


#: Above this many stored values (400 MB as float64) a dataset holds its views as float32:
#: half the memory in every process that maps them (loader, GUI, solver and layout children),
#: and the anchor methods then compute in float32 (docs/benchmarks/float32.md).
FLOAT32_ABOVE = 50_000_000


def stored_values(views: Sequence[object]) -> int:
    """Values stored by ``views``: dense entries, or a sparse view's non-zeros."""
    total = 0
    for x in views:
        if sp.issparse(x):
            total += int(x.nnz)
        else:
            total += int(np.prod(getattr(x, "shape", None) or np.shape(x)))
    return total


def holding_dtype(views: Sequence[object]) -> type:
    """float32 for data of more than ``FLOAT32_ABOVE`` values, else float64."""
    return np.float32 if stored_values(views) > FLOAT32_ABOVE else np.float64


def _value_dtype(x: object) -> np.dtype | None:
    dtype = getattr(x, "dtype", None)
    return None if dtype is None else np.dtype(dtype)


def check_views(
    views: Sequence[object],
    n_clusters: int | None = None,
    *,
    copy: bool = False,
    dtype: type = np.float64,
    finite: bool = True,
    informative: bool = False,
) -> list[View]:
    """Validate views and return them as ``dtype`` (float64 by default; float32 for the anchor
    methods' float32 path), dense C-contiguous or sorted CSR.

    Raises :class:`DataError` with a specific message for: no views, a non-2-D view, an
    empty view, different sample counts, NaN/Inf (with the first position), a single
    sample, or fewer samples than clusters (``finite=False`` skips the NaN/Inf pass: the
    caller checks later), and with ``informative`` (what a fit needs) views that all hold the
    same values for every sample. The inputs are never modified.
    """
    if isinstance(views, MultiViewDataset):
        views = views.views
    if views is None or len(views) == 0:
        raise DataError("no views given: a multi-view dataset needs at least one view")
    out = [_as_view(v, i, copy, dtype) for i, v in enumerate(views)]
    counts = [v.shape[0] for v in out]
    if len(set(counts)) > 1:
        detail = ", ".join(f"view {i + 1}: {c}" for i, c in enumerate(counts))
        raise DataError(f"views have different numbers of samples ({detail})")
    for i, v in enumerate(out):
        if v.shape[1] == 0:
            raise DataError(f"view {i + 1} is empty: it has no features")
        problem = _finite_problem(v, i) if finite else None
        if problem:
            raise DataError(problem)
    n = counts[0]
    if n < 2:
        raise DataError(f"only {n} sample(s): clustering needs at least 2")
    if informative and all(_all_rows_equal(v) for v in out):
        what = "its only view holds" if len(out) == 1 else "every view holds"
        raise DataError(
            f"{what} the same values for every sample (all zeros or constant): nothing tells "
            "the samples apart"
        )
    if n_clusters is not None and n < n_clusters:
        raise DataError(f"{n} samples are fewer than the {n_clusters} clusters asked for")
    return out


def check_observed(observed: object, n: int, n_views: int) -> np.ndarray:
    """An (n, V) bool mask of which sample has which view; every sample needs one view."""
    mask = np.asarray(observed)
    if mask.shape != (n, n_views):
        raise DataError(f"the observed-views mask is {mask.shape}, expected ({n}, {n_views})")
    mask = mask.astype(bool)
    empty = np.flatnonzero(~mask.any(axis=1))
    if empty.size:
        raise DataError(
            f"{empty.size} sample(s) have no view at all (first: row {int(empty[0])}); "
            "drop them before clustering"
        )
    return mask


@dataclass(frozen=True)
class MultiViewDataset:
    """V views of the same n samples, with optional ground-truth labels.

    Attributes
    ----------
    views : list of (n, d_v) arrays, dense or CSR; float64, or float32 when the data hold
        more than ``FLOAT32_ABOVE`` values (see :func:`holding_dtype`).
    labels : (n,) int array with values 0..c-1, or None.
    view_names, class_names : display names.
    name : short dataset name; source : where it came from (path or "demo:...").
    warnings : problems found and worked around while loading (shown to the user).
    sample_ids : (n,) str array of the samples' ids (an id column, ``obs_names``...), or None
        when the data has none: :attr:`ids` is then "1".."n".
    metadata : columns describing the samples (name -> (n,) array, numbers or strings).
    observed : (n, V) bool array, False where a sample is missing from a view (its row in
        that view holds no data and must be ignored), or None when every view is complete.
    """

    views: list[View]
    labels: np.ndarray | None = None
    view_names: list[str] = field(default_factory=list)
    class_names: list[str] = field(default_factory=list)
    name: str = "dataset"
    source: str = ""
    warnings: list[str] = field(default_factory=list)
    meta: dict[str, object] = field(default_factory=dict)
    sample_ids: np.ndarray | None = None
    metadata: dict[str, np.ndarray] = field(default_factory=dict)
    observed: np.ndarray | None = None

    def __post_init__(self) -> None:
        given = self.views
        dtype = holding_dtype(given)
        # a file opened memory-mapped defers the NaN/Inf pass (core.data.mapped): the exact
        # summary makes it in the background, and every solver checks its input anyway
        deferred = self.meta.get("finite_check") == "deferred"
        views = check_views(given, dtype=dtype, finite=not deferred)
        object.__setattr__(self, "views", views)
        in_memory = [v for v in given if not _is_block_source(v)]  # sources keep their dtype
        if dtype == np.float32 and any(_value_dtype(v) != np.float32 for v in in_memory):
            note = (
                f"held as float32 ({stored_values(views):,} values, more than "
                f"{FLOAT32_ABOVE:,}): half the memory of float64"
            )
            object.__setattr__(self, "warnings", [*self.warnings, note])
        n = views[0].shape[0]
        if self.sample_ids is not None:
            ids = np.asarray(self.sample_ids).astype(str).ravel()
            if ids.shape[0] != n:
                raise DataError(f"{ids.shape[0]} sample ids for {n} samples")
            if np.unique(ids).size != n:
                raise DataError("sample ids are not unique")
            object.__setattr__(self, "sample_ids", ids)
        for key, column in self.metadata.items():
            if np.asarray(column).shape[0] != n:
                raise DataError(f"metadata column {key!r} has {len(column)} values for {n} samples")
        if self.observed is not None:
            object.__setattr__(self, "observed", check_observed(self.observed, n, len(views)))
        if self.labels is not None:
            labels = np.asarray(self.labels).ravel()
            if labels.shape[0] != n:
                raise DataError(f"{labels.shape[0]} labels for {n} samples")
            exact = labels.dtype.kind in "iu" and np.array_equal(
                np.unique(labels), np.arange(int(labels.max()) + 1)
            )
            if not exact:
                labels, names = encode_labels(labels)
                if not self.class_names:
                    object.__setattr__(self, "class_names", names)
            object.__setattr__(self, "labels", labels.astype(np.int64))
            if not self.class_names:
                k = int(labels.max()) + 1
                object.__setattr__(self, "class_names", [str(i) for i in range(k)])
        if not self.view_names:
            object.__setattr__(self, "view_names", [f"view {i + 1}" for i in range(len(views))])
        elif len(self.view_names) != len(views):
            raise DataError(f"{len(self.view_names)} view names for {len(views)} views")

    @cached_property
    def ids(self) -> np.ndarray:
        """The sample ids as strings: the data's own, else "1".."n" (made once: 0.5 s at
        1M samples, which the loader thread pays, not the window). Converted
        :data:`IDS_CHUNK` at a time: numpy holds the interpreter lock through one int-to-string
        cast, and a single one of 1M held the window's thread for ~140 ms at opening."""
        if self.sample_ids is not None:
            return self.sample_ids
        n = self.n_samples  # the narrowest string type: a quarter of str's time and memory
        out = np.empty(n, dtype=f"U{len(str(n))}")
        for start in range(0, n, IDS_CHUNK):
            stop = min(n, start + IDS_CHUNK)
            out[start:stop] = np.arange(start + 1, stop + 1).astype(out.dtype)
        return out

    @property
    def complete(self) -> bool:
        """True when every sample has every view."""
        return self.observed is None or bool(self.observed.all())

    @property
    def n_samples(self) -> int:
        return int(self.views[0].shape[0])

    @property
    def n_views(self) -> int:
        return len(self.views)

    @property
    def n_classes(self) -> int | None:
        return None if self.labels is None else int(np.unique(self.labels).size)

    @property
    def dims(self) -> list[int]:
        return [int(v.shape[1]) for v in self.views]

    def select_views(self, indices: Sequence[int]) -> MultiViewDataset:
        """A dataset with only the given views (in that order)."""
        idx = [int(i) for i in indices]
        if not idx:
            raise DataError("select at least one view")
        twice = next((i for k, i in enumerate(idx) if i in idx[:k]), None)
        if twice is not None:
            name = self.view_names[twice] if 0 <= twice < self.n_views else "?"
            raise DataError(
                f"view {twice + 1} ({name!r}) is selected twice: each view can be used once "
                f"(views chosen: {', '.join(str(i + 1) for i in idx)})"
            )
        observed = None if self.observed is None else self.observed[:, idx]
        if observed is not None and not observed.any(axis=1).all():
            lost = int(np.count_nonzero(~observed.any(axis=1)))
            raise DataError(f"{lost} sample(s) have none of the selected views")
        return replace(
            self,
            views=[self.views[i] for i in idx],
            view_names=[self.view_names[i] for i in idx],
            observed=observed,
        )

    def metadata_columns(self) -> dict[str, str]:
        """Metadata column name -> kind: ``"numeric"``, or ``"categorical"`` (text, or a number
        column with few distinct values: usable as reference labels or colours)."""
        return {key: column_kind(column) for key, column in self.metadata.items()}

    def metadata_column(self, key: str) -> np.ndarray:
        """One metadata column, one value per sample in dataset order (NaN or "" when the
        metadata has no value for a sample)."""
        if key not in self.metadata:
            have = ", ".join(repr(k) for k in self.metadata) or "none"
            why = next((f" ({w})" for w in self.warnings if f"column {key!r}" in w), "")
            raise DataError(f"no metadata column {key!r}{why} (columns: {have})")
        return np.asarray(self.metadata[key])

    def with_reference_labels(self, key: str | None) -> MultiViewDataset:
        """The dataset with a metadata column as its reference labels (None: no labels)."""
        if key is None:
            return replace(self, labels=None, class_names=[])
        try:
            values = self.metadata_column(key)
        except DataError as exc:
            raise DataError(self._from_source(str(exc))) from None
        missing = values == "" if values.dtype.kind in "US" else ~np.isfinite(values)
        if missing.any():
            first = str(self.ids[np.flatnonzero(missing)[0]])
            raise DataError(
                self._from_source(
                    f"column {key!r} has no value for {int(missing.sum())} sample(s) (first: "
                    f"id {first!r}): the reference labels must cover every sample"
                )
            )
        codes, names = encode_labels(values)
        if len(names) < 2:
            raise DataError(
                self._from_source(
                    f"column {key!r} has the value {names[0]!r} for every sample (1 class): "
                    "labels of one class cannot score a clustering; choose a column with 2 or "
                    "more classes"
                )
            )
        meta = {**self.meta, "label_variable": key}
        # the column is applied: the loader's "no reference labels chosen" note no longer holds
        notes = [w for w in self.warnings if not w.startswith(NO_LABELS_NOTE)]
        out = replace(self, labels=codes, class_names=names, meta=meta, warnings=notes)
        leaks = label_leaks(self.views, codes, values, self.observed)
        if not leaks:
            return out
        text = leak_message(leaks, self.view_names, f"the reference labels (column {key!r})")
        if len(leaks) == self.n_views:
            raise DataError(self._from_source(f"{text}; no other view is left to cluster"))
        keep = [i for i in range(self.n_views) if i not in {i for i, _ in leaks}]
        return out.keep_views(keep, note=f"left out: {text}")

    def _from_source(self, text: str) -> str:
        """``text`` led by the file(s) the data came from (``rna.h5ad: ...``), when known."""
        if not self.source or self.source.startswith("demo"):
            return text
        names = ", ".join(dict.fromkeys(PurePath(s.strip()).name for s in self.source.split(",")))
        return text if text.startswith(names) else f"{names}: {text}"

    def keep_views(self, keep: Sequence[int], note: str = "") -> MultiViewDataset:
        """The dataset with only the views ``keep`` (indices, in order), with ``note`` among
        its warnings; per-view lists in ``meta`` (feature names, dtypes, ids per view) follow."""
        idx = [int(i) for i in keep]
        meta = dict(self.meta)
        for key in ("feature_names", "dtypes", "ids_per_view"):
            value = meta.get(key)
            if isinstance(value, list) and len(value) == self.n_views:
                meta[key] = [value[i] for i in idx]
        observed = None if self.observed is None else self.observed[:, idx]
        if observed is not None and observed.all():
            observed = None
        return replace(
            self,
            views=[self.views[i] for i in idx],
            view_names=[self.view_names[i] for i in idx],
            observed=observed,
            meta=meta,
            warnings=[*self.warnings, note] if note else list(self.warnings),
        )

    def summary(self, view_rows: list[dict] | None = None) -> dict[str, object]:
        """Per-view facts for `mvc info` and the dataset panel (``view_rows``: those facts
        already computed, e.g. from a sample of rows: no pass over the views here)."""
        rows = list(view_rows) if view_rows is not None else []
        for name, v in zip(self.view_names, self.views, strict=True):
            if view_rows is None:
                rows.append(view_summary(name, v))
        counts = None
        if self.labels is not None:
            counts = np.bincount(self.labels).tolist()
        return {
            "name": self.name,
            "source": self.source,
            "n_samples": self.n_samples,
            "views": rows,
            "classes": self.class_names if self.labels is not None else None,
            "class_counts": counts,
            "warnings": list(self.warnings),
            "meta": dict(self.meta),
            "ids": "own" if self.sample_ids is not None else "1..n",
            "observed_per_view": None
            if self.observed is None
            else self.observed.sum(axis=0).astype(int).tolist(),
            "complete_samples": self.n_samples
            if self.observed is None
            else int(self.observed.all(axis=1).sum()),
            "metadata_columns": self.metadata_columns(),
        }


def view_summary(name: str, v: View) -> dict[str, object]:
    """Shape, storage, sparsity, all-zero rows and value range of one view."""
    if _is_block_source(v):  # read in row blocks: one pass (core.data.column_stats)
        return v.view_summary(name)
    n, d = v.shape
    if sp.issparse(v):
        nnz = int(v.nnz)
        row_nnz = np.diff(v.indptr)
        zero_rows = int(np.count_nonzero(row_nnz == 0))
        data = v.data
        lo = float(min(data.min(), 0.0)) if nnz and nnz < n * d else float(data.min() if nnz else 0)
        hi = float(max(data.max(), 0.0)) if nnz and nnz < n * d else float(data.max() if nnz else 0)
        storage = "sparse"
    else:
        nnz = int(np.count_nonzero(v))
        zero_rows = int(np.count_nonzero(~v.any(axis=1)))
        lo, hi = float(v.min()), float(v.max())
        storage = "dense"
    return {
        "name": name,
        "shape": [int(n), int(d)],
        "storage": storage,
        "density": nnz / float(n * d),
        "zero_rows": zero_rows,
        "min": lo,
        "max": hi,
        "integer_valued": bool(np.all(np.mod(v.data if sp.issparse(v) else v, 1) == 0)),
    }
