"""Views from separate files aligned by sample id, plus a metadata table.

A :class:`DataSpec` names each view's file (a CSV/TSV table, or a matrix inside an ``.h5ad`` /
``.h5mu`` file: ``path#key``), an optional metadata table, the id and label columns and the
missing-value policies. It is plain data (``to_dict``/``from_dict``, JSON), so a session, the
GUI or a loader child process can carry it; :func:`load_spec` turns it into a dataset.

Alignment (``align="all"``, the default): the samples are every id found in any view, in the
order of the first view, then the ids only later views have, in their order. A sample absent
from a view has that view marked missing (``observed[i, v]`` False) and its row stored as
zeros. ``align="shared"`` keeps only the ids every view has (the count dropped is a note).
Metadata rows are matched by id: ids the views do not have are ignored (counted in a note),
samples the metadata does not list get NaN / "" in its columns.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from core.data.dataset import (
    NO_LABELS_NOTE,
    DataError,
    MultiViewDataset,
    detail,
    label_leaks,
    leak_message,
)
from core.data.io.missing import apply_missing, parse_missing
from core.data.io.tables import Table, read_table

__all__ = ["SPEC_FORMAT", "DataSpec", "ViewSource", "load_spec", "read_view_source"]

SPEC_FORMAT = "mvc-studio-tables"
ALIGN_MODES = ("all", "shared")


@dataclass
class ViewSource:
    """One view: ``path`` (CSV/TSV, .h5ad or .h5mu) and, for AnnData/MuData, the matrix
    ``key`` (``X``, ``layers/<name>``, ``obsm/<name>``; in .h5mu ``<modality>/X``...)."""

    name: str
    path: str
    key: str | None = None

    @classmethod
    def parse(cls, text: str) -> ViewSource:
        """``NAME=PATH[#KEY]`` or ``PATH[#KEY]`` (the name is then the file's stem)."""
        name, sep, rest = text.partition("=")
        if not sep or "/" in name or "\\" in name:
            name, rest = "", text
        path, _, key = rest.partition("#")
        if not path:
            raise DataError(f"--view {text!r}: expected NAME=PATH (e.g. rna=rna.csv)")
        return cls(name or Path(path).stem, path, key or None)


@dataclass
class DataSpec:
    """Which files make the dataset and how to read them (see the module docstring)."""

    views: list[ViewSource]
    meta: str | None = None
    id_column: str | None = None
    label_column: str | None = None
    missing: list[str] = field(default_factory=list)
    align: str = "all"
    name: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"format": SPEC_FORMAT, **asdict(self)}

    @classmethod
    def from_dict(cls, obj: Any) -> DataSpec:
        if not isinstance(obj, dict) or obj.get("format") != SPEC_FORMAT:
            raise DataError(f'not a table data description (no "format": "{SPEC_FORMAT}")')
        try:
            views = [ViewSource(**v) for v in obj["views"]]
            fields = {k: obj[k] for k in cls.__dataclass_fields__ if k in obj and k != "views"}
            return cls(views=views, **fields)
        except (KeyError, TypeError) as exc:
            raise DataError(
                f"table data description: bad or missing entry ({detail(exc)})"
            ) from exc

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)


@dataclass
class _Read:
    ids: np.ndarray | None
    values: np.ndarray | sp.csr_matrix
    where: str
    text: dict[str, np.ndarray] = field(default_factory=dict)
    numeric: dict[str, np.ndarray] = field(default_factory=dict)
    names: list[str] | None = None  # feature names (a header, var_names), when the file has them
    notes: list[str] = field(default_factory=list)  # how the file was read (its encoding)


def read_view_source(src: ViewSource, id_column: str | None) -> _Read:
    """The matrix, ids and extra columns of one view source."""
    p = Path(src.path)
    if not p.exists():
        raise DataError(f"{p}: no such file (view {src.name!r})")
    if src.key is not None or p.suffix.lower() in (".h5ad", ".h5mu"):
        from core.data.io.anndata import read_matrix, read_var_names

        ids, values, obs = read_matrix(p, src.key)
        names = read_var_names(p, src.key)
        where = f"{p.name}#{src.key or 'X'}"
        _check_finite(values, where, ids, names)
        return _Read(ids, values, where, text=obs, names=names)
    table = read_table(p, id_column=id_column, finite=True)
    if table.values.shape[1] == 0:
        raise DataError(f"{p.name}: no numeric feature columns (view {src.name!r})")
    names = list(table.columns) if table.header else None
    return _Read(table.ids, table.values, p.name, text=table.text, names=names, notes=table.notes)


def _check_finite(
    values: np.ndarray | sp.spmatrix, where: str, ids: np.ndarray | None, names: list | None
) -> None:
    """Infinite values (and NaN in a sparse matrix, where no missing-value policy applies)
    are an error naming the matrix, the sample and the feature."""
    sparse = sp.issparse(values)
    data = values.data if sparse else values
    bad = ~np.isfinite(data) if sparse else np.isinf(data)
    if not bad.any():
        return
    if sparse:
        m = sp.csr_matrix(values)
        pos = int(np.flatnonzero(~np.isfinite(m.data))[0])
        r, c = int(np.searchsorted(m.indptr, pos, side="right") - 1), int(m.indices[pos])
        value = m.data[pos]
    else:
        r, c = (int(i) for i in np.argwhere(bad)[0])
        value = data[r, c]
    sample = f"sample {r + 1}" + (f" (id {str(ids[r])!r})" if ids is not None else "")
    feature = f"feature {c + 1}" + (f" ({names[c]!r})" if names and c < len(names) else "")
    raise DataError(
        f"{where}: {int(np.count_nonzero(bad))} non-finite value(s), first {value} at {sample}, "
        f"{feature}: the values of a view must be finite numbers"
    )


def _union(id_lists: list[np.ndarray], mode: str) -> np.ndarray:
    if mode == "shared":
        common = set(id_lists[0].tolist()).intersection(*(set(i.tolist()) for i in id_lists[1:]))
        return np.array([i for i in id_lists[0].tolist() if i in common], dtype=str)
    seen: dict[str, None] = {}
    for ids in id_lists:
        seen.update(dict.fromkeys(ids.tolist()))
    return np.array(list(seen), dtype=str)


def _place(values: np.ndarray | sp.spmatrix, rows: np.ndarray, n: int) -> np.ndarray | sp.spmatrix:
    """Rows of ``values`` at positions ``rows`` (-1: absent) of an n-row matrix."""
    have = rows >= 0
    if sp.issparse(values):
        pick = sp.csr_matrix(values)[rows[have]]
        scatter = sp.csr_matrix(
            (np.ones(int(have.sum())), (np.flatnonzero(have), np.arange(int(have.sum())))),
            shape=(n, pick.shape[0]),
        )
        return (scatter @ pick).tocsr()
    out = np.full((n, values.shape[1]), np.nan)
    out[have] = values[rows[have]]
    return out


def _positions(ids: np.ndarray, order: np.ndarray) -> np.ndarray:
    index = {s: i for i, s in enumerate(ids.tolist())}
    return np.array([index.get(s, -1) for s in order.tolist()], dtype=np.int64)


def load_spec(
    spec: DataSpec, *, source: str = "", progress: Callable[[float, str], None] | None = None
) -> MultiViewDataset:
    """Read, align and check the views and metadata a :class:`DataSpec` names.

    ``progress(fraction, what)`` is told which file is being read (a loader child reports
    it, so a reader that dies or hangs is named by the user's file)."""
    say = progress or (lambda fraction, what: None)
    if not spec.views:
        raise DataError("no views given: name at least one view file (--view NAME=PATH)")
    if spec.align not in ALIGN_MODES:
        raise DataError(f"align must be one of {', '.join(ALIGN_MODES)}, got {spec.align!r}")
    names = [v.name for v in spec.views]
    if len(set(names)) != len(names):
        raise DataError(f"two views are named the same: {', '.join(names)}")
    policies = parse_missing(spec.missing, names)
    reads = []
    for i, v in enumerate(spec.views):
        say(i / (len(spec.views) + 1), f"{Path(v.path).name} (view {v.name!r})")
        reads.append(read_view_source(v, spec.id_column))
    notes: list[str] = [note for r in reads for note in r.notes]
    for r in reads:  # a count that does not match is said, never silently replaced
        d = int(r.values.shape[1])
        if r.names and len(r.names) != d:
            notes.append(
                f"{r.where}: {len(r.names)} feature names for {d} features: not used "
                f"(f1..f{d} instead)"
            )
    order = _align_order(reads, spec, notes)
    n = order.size
    views, observed, drop = [], [], np.zeros(n, dtype=bool)
    counts = []
    metadata: dict[str, np.ndarray] = {}
    for src, r in zip(spec.views, reads, strict=True):
        rows = np.arange(n) if r.ids is None else _positions(r.ids, order)
        present = rows >= 0
        counts.append({"view": src.name, "ids": int(r.values.shape[0]), "shared": 0})
        placed = _place(r.values, rows, n)
        if sp.issparse(placed):
            views.append(placed)
            observed.append(present)
        else:
            x, obs, d = apply_missing(placed, present, policies.get(src.name, policies["*"]),
                                      src.name, notes)  # fmt: skip
            views.append(x)
            observed.append(obs)
            drop |= d
        for col, values in r.text.items():
            notes.append(
                f"{r.where}: column {col!r} is not numeric (first value {str(values[0])!r}): left "
                f"out of view {src.name!r}, kept as metadata column '{src.name}:{col}'"
            )
            metadata[f"{src.name}:{col}"] = _place_text(values, rows)
    mask = np.column_stack(observed)
    shared = int(np.count_nonzero(mask.all(axis=1)))
    for c in counts:
        c["shared"] = shared
    if spec.meta:
        say(len(spec.views) / (len(spec.views) + 1), f"{Path(spec.meta).name} (metadata)")
        metadata.update(
            _read_meta(Path(spec.meta), spec.id_column, spec.label_column, order, notes)
        )
    if spec.meta and Path(spec.meta).suffix.lower() in (".h5ad", ".h5mu"):
        from core.data.io.anndata import read_obs

        listed = _positions(order, read_obs(Path(spec.meta))[0])  # the global obs order
        first = np.concatenate([listed[listed >= 0], np.setdiff1d(np.arange(n), listed)])
        views = [v[first] for v in views]
        mask, order, drop = mask[first], order[first], drop[first]
        metadata = {k: v[first] for k, v in metadata.items()}
    labels, class_names, label_note = _labels(spec.label_column, metadata, order, spec.meta, notes)
    keep = ~drop
    if drop.any():
        views = [v[keep] for v in views]
        mask, order = mask[keep], order[keep]
        metadata = {k: v[keep] for k, v in metadata.items()}
        labels = None if labels is None else labels[keep]
    lost = ~mask.any(axis=1)
    if lost.any():
        raise DataError(
            f"{int(lost.sum())} sample(s) have no usable view (first: id {str(order[lost][0])!r})"
        )
    if label_note:
        notes.append(label_note)
    elif metadata:
        cats = [
            k for k, v in metadata.items() if v.dtype.kind in "US" and 1 < np.unique(v).size <= 50
        ]
        if cats:
            notes.append(
                f"{NO_LABELS_NOTE}; categorical metadata columns that can be: "
                + ", ".join(repr(c) for c in cats[:8])
                + " (app: Reference labels; command line: --label-column NAME)"
            )
    ds = MultiViewDataset(
        views=views,
        labels=labels,
        view_names=names,
        class_names=class_names,
        name=spec.name or Path(spec.views[0].path).stem,
        source=source or ", ".join(str(v.path) for v in spec.views),
        warnings=notes,
        meta={
            "ids_per_view": counts,
            "spec": spec.to_dict(),
            "label_variable": spec.label_column,
            **_feature_names(reads),
        },
        sample_ids=order,
        metadata=metadata,
        observed=None if mask.all() else mask,
    )
    leaks = label_leaks(ds.views, ds.labels, metadata.get(spec.label_column or ""), ds.observed)
    if not leaks:
        return ds
    text = leak_message(leaks, names, f"the reference labels (column {spec.label_column!r})")
    if len(leaks) == len(names):
        raise DataError(f"{text}; no other view is left to cluster")
    gone = {k for k, _ in leaks}
    return ds.keep_views([k for k in range(len(names)) if k not in gone], note=f"left out: {text}")


def _feature_names(reads: list[_Read]) -> dict[str, list[list[str]]]:
    """``{"feature_names": one list per view}`` when some file names its features (cluster
    profiles and the GUI's colour-by-feature show them); views without names get f1..fd."""
    if not any(r.names for r in reads):
        return {}
    named = [r.names if r.names and len(r.names) == r.values.shape[1] else None for r in reads]
    return {
        "feature_names": [
            n or [f"f{j + 1}" for j in range(r.values.shape[1])]
            for n, r in zip(named, reads, strict=True)
        ]
    }


def _align_order(reads: list[_Read], spec: DataSpec, notes: list[str]) -> np.ndarray:
    without = [v.name for v, r in zip(spec.views, reads, strict=True) if r.ids is None]
    if without:
        sizes = {r.values.shape[0] for r in reads}
        if len(without) < len(reads) or len(sizes) > 1:
            raise DataError(
                f"no id column found in view {without[0]!r} ({spec.views[0].path}): give "
                "--id-column NAME (or a 1-based position) so rows can be matched by id"
            )
        notes.append("no id columns: rows matched by position, ids are 1..n")
        return np.arange(1, reads[0].values.shape[0] + 1).astype(str)
    ids = [r.ids for r in reads]
    order = _union(ids, spec.align)
    if order.size == 0 or (len(ids) > 1 and not set(ids[0].tolist()) & set(ids[1].tolist())):
        first = ", ".join(repr(s) for s in ids[0][:3].tolist())
        other = ", ".join(repr(s) for s in ids[1][:3].tolist()) if len(ids) > 1 else ""
        raise DataError(
            f"{reads[0].where} and {reads[-1].where} share no sample id ({first}... vs "
            f"{other}...): check the id columns"
        )
    everywhere = set(ids[0].tolist()).intersection(*(set(i.tolist()) for i in ids[1:]))
    partial = len(set().union(*(set(i.tolist()) for i in ids))) - len(everywhere)
    if partial and spec.align == "all":
        notes.append(
            f"{partial} sample(s) are missing from some views: kept, with those views marked "
            "missing (methods without incomplete-view support refuse them; to keep only the "
            "samples every view has: 'Keep only the samples every view has' when adding a view "
            "in the app, --align shared on the command line)"
        )
    elif partial:
        notes.append(f"{partial} sample(s) not in every view were left out (align: shared)")
    return order


def _place_text(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    out = np.full(rows.shape[0], "", dtype=object)
    have = rows >= 0
    out[have] = values[rows[have]]
    return out.astype(str)


def _read_meta(
    path: Path, id_column: str | None, label_column: str | None, order: np.ndarray, notes: list
) -> dict:
    if not path.exists():
        raise DataError(f"{path}: no such file (metadata table)")
    if path.suffix.lower() in (".h5ad", ".h5mu"):
        from core.data.io.anndata import read_obs

        ids, columns = read_obs(path, notes)
        table = Table(path, ids, [], np.empty((ids.size, 0)), text={})
        numeric = columns
    else:
        table = read_table(path, id_column=id_column, expect=[label_column or ""])
        notes.extend(table.notes)
        numeric = dict(zip(table.columns, table.values.T, strict=True))
    if table.ids is None:
        raise DataError(f"{path.name}: no id column found: give --id-column NAME")
    rows = _positions(table.ids, order)
    unknown = table.ids.size - int(np.count_nonzero(np.isin(table.ids, order)))
    if unknown:
        notes.append(f"{path.name}: {unknown} id(s) not in any view were ignored")
    absent = int(np.count_nonzero(rows < 0))
    if absent:
        notes.append(f"{path.name} has no row for {absent} sample(s): their values are empty")
    out: dict[str, np.ndarray] = {}
    have = rows >= 0
    for name, col in numeric.items():
        col = np.asarray(col)
        if col.dtype.kind in "iufb":
            placed = np.full(order.size, np.nan)
            placed[have] = col[rows[have]]
            out[name] = placed
        else:
            out[name] = _place_text(col.astype(str), rows)
    for name, col in table.text.items():
        out[name] = _place_text(col, rows)
    return out


def _labels(
    column: str | None,
    metadata: dict[str, np.ndarray],
    order: np.ndarray,
    meta: str | None,
    notes: list[str] = (),
) -> tuple[np.ndarray | None, list[str], str | None]:
    if column is None:
        return None, [], None
    if column not in metadata:
        have = ", ".join(repr(k) for k in metadata) or "none"
        where = f" in {Path(meta).name}" if meta else " (no metadata table: --meta PATH)"
        why = next((f" ({n})" for n in notes if f"column {column!r}" in n), "")
        raise DataError(
            f"--label-column: no column {column!r}{where}{why} (metadata columns: {have})"
        )
    values = metadata[column]
    missing = (values == "") if values.dtype.kind in "US" else np.isnan(values)
    if missing.any():
        raise DataError(
            f"label column {column!r} has no value for {int(missing.sum())} sample(s) (first: "
            f"id {str(order[missing][0])!r}): the reference labels must cover every sample"
        )
    from core.data.dataset import encode_labels

    codes, names = encode_labels(values)
    if len(names) < 2:
        raise DataError(
            f"--label-column {column!r}: every sample has the value {names[0]!r} (1 class): "
            "labels of one class cannot score a clustering; choose a column with 2 or more "
            "classes, or leave --label-column out"
        )
    return codes, names, f"reference labels: column {column!r} ({len(names)} classes)"
