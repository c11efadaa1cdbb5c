"""The multi-view data model and its validation.

A :class:`MultiViewDataset` holds V views of the same n samples, each an ``n x d_v`` matrix
(dense float64 or CSR sparse), optional integer labels and names. Every loader returns one
and every solver validates its input through :func:`check_views`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
import scipy.sparse as sp

__all__ = [
    "DataError",
    "MultiViewDataset",
    "View",
    "check_observed",
    "check_views",
    "encode_labels",
]

View = np.ndarray | sp.csr_matrix

#: sample ids made per this many rows (each cast holds the interpreter lock: ~5 ms)
IDS_CHUNK = 1 << 14


class DataError(ValueError):
    """Input data that cannot be used, with a message that says what and where."""


def encode_labels(labels: Sequence[object] | np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Map arbitrary labels to ``0..c-1`` and return the codes and the class names."""
    arr = np.asarray(labels).ravel()
    classes, codes = np.unique(arr, return_inverse=True)
    return codes.astype(np.int64), [_class_name(c) for c in classes]


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
) -> list[View]:
    """Validate views and return them as ``dtype`` (float64 by default; float32 for the anchor
    methods' float32 path), dense C-contiguous or sorted CSR.

    Raises :class:`DataError` with a specific message for: no views, a non-2-D view, an
    empty view, different sample counts, NaN/Inf (with the first position), a single
    sample, or fewer samples than clusters (``finite=False`` skips the NaN/Inf pass: the
    caller checks later). The inputs are never modified.
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
        kinds = {}
        for key, column in self.metadata.items():
            values = np.asarray(column)
            if values.dtype.kind in "US":
                kinds[key] = "categorical"
            else:
                finite = values[np.isfinite(values)]
                few = np.unique(finite).size <= min(20, max(2, self.n_samples // 2))
                integral = bool(np.all(finite == np.round(finite)))
                kinds[key] = "categorical" if few and integral else "numeric"
        return kinds

    def metadata_column(self, key: str) -> np.ndarray:
        """One metadata column, one value per sample in dataset order (NaN or "" when the
        metadata has no value for a sample)."""
        if key not in self.metadata:
            have = ", ".join(repr(k) for k in self.metadata) or "none"
            raise DataError(f"no metadata column {key!r} (columns: {have})")
        return np.asarray(self.metadata[key])

    def with_reference_labels(self, key: str | None) -> MultiViewDataset:
        """The dataset with a metadata column as its reference labels (None: no labels)."""
        if key is None:
            return replace(self, labels=None, class_names=[])
        values = self.metadata_column(key)
        missing = values == "" if values.dtype.kind in "US" else ~np.isfinite(values)
        if missing.any():
            first = str(self.ids[np.flatnonzero(missing)[0]])
            raise DataError(
                f"column {key!r} has no value for {int(missing.sum())} sample(s) (first: id "
                f"{first!r}): the reference labels must cover every sample"
            )
        codes, names = encode_labels(values)
        if len(names) < 2:
            raise DataError(
                f"column {key!r} has the value {names[0]!r} for every sample (1 class): labels "
                "of one class cannot score a clustering; choose a column with 2 or more classes"
            )
        meta = {**self.meta, "label_variable": key}
        return replace(self, labels=codes, class_names=names, meta=meta)

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
