"""Named groups of samples, what a group is made of, and lists of sample ids.

A group is a set of sample indices (0-based rows of the dataset), kept sorted and without
repeats. :class:`GroupSet` keeps the user's groups in order under unique names, turns them
into a colouring (:meth:`GroupSet.as_labels`) and into JSON for a saved session.
:func:`composition` counts a group by cluster and by metadata column; numeric columns are
cut at the quintiles of the whole column, so a group whose values sit high shows it at once.
:func:`write_ids` / :func:`read_ids` exchange a group with other tools as one sample id per
line.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from core.data.atomic import atomic_write
from core.data.dataset import DataError, column_kind

__all__ = [
    "MAX_CATEGORIES",
    "MISSING",
    "Composition",
    "GroupSet",
    "SampleGroup",
    "as_indices",
    "composition",
    "missing_values",
    "read_ids",
    "write_composition_csv",
    "write_ids",
]

#: categories of one column a composition lists at most; rarer ones are counted together
MAX_CATEGORIES = 40
#: the key under which a composition counts samples with no value
MISSING = "(missing)"
#: bins of a numeric column in a composition (equal shares of the whole column)
NUMERIC_BINS = 5


def missing_values(values: np.ndarray) -> np.ndarray:
    """(n,) bool: no value (NaN or infinite numbers; empty or "nan" text), as the colouring
    by metadata reads a column."""
    values = np.asarray(values)
    if values.dtype.kind in "biuf":
        return ~np.isfinite(values.astype(np.float64))
    text = values.astype(str)
    return (text == "") | (text == "nan")


def as_indices(indices: Sequence[int] | np.ndarray, n: int | None = None) -> np.ndarray:
    """Sorted unique int64 indices; a boolean mask of length n is accepted too. Indices
    outside 0..n-1 (when ``n`` is given) raise :class:`DataError`."""
    arr = np.asarray(indices)
    if arr.dtype == bool:
        if n is not None and arr.size != n:
            raise DataError(f"a mask of {arr.size} entries for {n} samples")
        return np.flatnonzero(arr).astype(np.int64)
    if arr.size and arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        else:
            raise DataError("sample indices must be whole numbers")
    out = np.unique(arr.astype(np.int64).ravel())
    if n is not None and out.size and (out[0] < 0 or out[-1] >= n):
        bad = out[(out < 0) | (out >= n)]
        raise DataError(
            f"{bad.size} sample index(es) outside 0..{n - 1} (first: {int(bad[0])}): "
            "the group belongs to other data"
        )
    return out


@dataclass
class SampleGroup:
    """A named set of samples (sorted unique 0-based indices), with an optional colour."""

    name: str
    indices: np.ndarray
    colour: str | None = None

    def __post_init__(self) -> None:
        self.indices = as_indices(self.indices)

    @property
    def size(self) -> int:
        return int(self.indices.size)

    def mask(self, n: int) -> np.ndarray:
        """(n,) bool: True for the group's samples."""
        out = np.zeros(n, dtype=bool)
        out[self.indices] = True
        return out


@dataclass
class GroupSet:
    """The user's groups, in the order they were made, under unique names."""

    groups: list[SampleGroup] = field(default_factory=list)

    def __iter__(self) -> Iterator[SampleGroup]:
        return iter(list(self.groups))

    def __len__(self) -> int:
        return len(self.groups)

    def __contains__(self, name: object) -> bool:
        return any(g.name == name for g in self.groups)

    def names(self) -> list[str]:
        return [g.name for g in self.groups]

    def get(self, name: str) -> SampleGroup:
        for g in self.groups:
            if g.name == name:
                return g
        raise KeyError(f"no group named {name!r} (groups: {', '.join(self.names()) or 'none'})")

    def _check_name(self, name: str) -> str:
        name = str(name).strip()
        if not name:
            raise ValueError("a group needs a name")
        if name in self:
            raise ValueError(f"a group named {name!r} exists already")
        return name

    def add(
        self, name: str, indices: Sequence[int] | np.ndarray, colour: str | None = None
    ) -> SampleGroup:
        """Add a group; a name already taken raises ValueError."""
        group = SampleGroup(self._check_name(name), np.asarray(indices), colour)
        self.groups.append(group)
        return group

    def remove(self, name: str) -> SampleGroup:
        group = self.get(name)
        self.groups.remove(group)
        return group

    def rename(self, old: str, new: str) -> SampleGroup:
        group = self.get(old)
        if str(new).strip() == old:
            return group
        group.name = self._check_name(new)
        return group

    def as_labels(self, n: int) -> np.ndarray:
        """(n,) int: the position of each sample's group in :meth:`names`, -1 in none; a
        sample in several groups takes the later one (drawn on top)."""
        out = np.full(n, -1, dtype=np.int64)
        for k, g in enumerate(self.groups):
            out[g.indices[g.indices < n]] = k
        return out

    def to_dict(self) -> dict[str, object]:
        """A JSON-able description (names, colours, indices as lists)."""
        return {
            "groups": [
                {"name": g.name, "colour": g.colour, "indices": g.indices.tolist()}
                for g in self.groups
            ]
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, object], n_samples: int) -> GroupSet:
        """The groups of :meth:`to_dict`, checked against the data's ``n_samples``."""
        out = cls()
        entries = data.get("groups", []) if isinstance(data, Mapping) else None
        if not isinstance(entries, list):
            raise DataError("groups: expected a list of groups")
        for entry in entries:
            if not isinstance(entry, Mapping) or "name" not in entry:
                raise DataError("groups: each group needs a name and indices")
            name = str(entry["name"])
            try:
                indices = as_indices(np.asarray(entry.get("indices", []), dtype=float), n_samples)
            except DataError as exc:
                raise DataError(f"group {name!r}: {exc}") from None
            colour = entry.get("colour")
            out.add(name, indices, None if colour is None else str(colour))
        return out


@dataclass
class Composition:
    """What a group is made of: its ``size`` among ``n`` samples, its samples per cluster,
    and per metadata column its count per value (numeric columns: per quintile bin of the
    whole column, named ``"[lo, hi)"``; no value: :data:`MISSING`)."""

    size: int
    n: int
    by_cluster: dict[int, int]
    by_column: dict[str, dict[str, int]]

    @property
    def share(self) -> float:
        return self.size / self.n if self.n else 0.0


def _count_categories(values: np.ndarray) -> dict[str, int]:
    miss = missing_values(values)
    present = values[~miss]
    out: dict[str, int] = {}
    if present.size:
        if present.dtype.kind == "f" and np.all(present == np.round(present)):
            present = present.astype(np.int64)  # 1.0 reads "1", as in the legend
        cats, counts = np.unique(present.astype(str), return_counts=True)
        order = np.argsort(-counts, kind="stable")
        keep = order[: MAX_CATEGORIES - 1] if cats.size > MAX_CATEGORIES else order
        out = {str(cats[i]): int(counts[i]) for i in keep}
        rest = int(counts.sum() - counts[keep].sum())
        if rest:
            out[f"other ({cats.size - keep.size:,} values)"] = rest
    if miss.any():
        out[MISSING] = int(miss.sum())
    return out


def _numeric_edges(column: np.ndarray) -> np.ndarray:
    finite = column[np.isfinite(column)]
    if finite.size == 0:
        return np.empty(0)
    return np.unique(np.quantile(finite, np.linspace(0, 1, NUMERIC_BINS + 1)))


def _count_bins(values: np.ndarray, edges: np.ndarray) -> dict[str, int]:
    values = values.astype(np.float64)
    miss = ~np.isfinite(values)
    out: dict[str, int] = {}
    if edges.size == 1:  # one value in the whole column
        out[f"{edges[0]:.4g}"] = int((~miss).sum())
    elif edges.size > 1:
        # bin b holds [edges[b], edges[b+1]); the last bin includes the maximum
        b = np.clip(np.searchsorted(edges, values[~miss], side="right") - 1, 0, edges.size - 2)
        counts = np.bincount(b, minlength=edges.size - 1)
        for i, c in enumerate(counts):
            close = "]" if i == edges.size - 2 else ")"
            out[f"[{edges[i]:.4g}, {edges[i + 1]:.4g}{close}"] = int(c)
    if miss.any():
        out[MISSING] = int(miss.sum())
    return out


def composition(
    indices: Sequence[int] | np.ndarray,
    labels: np.ndarray | None,
    columns: Mapping[str, np.ndarray],
    *,
    n: int | None = None,
    kinds: Mapping[str, str] | None = None,
) -> Composition:
    """Count the group ``indices`` by cluster (``labels``: one per sample, or None) and by
    each metadata column (``kinds``: column -> "numeric"/"categorical", read from the
    column when not given, as :meth:`MultiViewDataset.metadata_columns` does). Every cluster
    of ``labels`` is listed, with 0 when the group has none of it."""
    if n is None:
        sizes = [len(labels)] if labels is not None else []
        sizes += [len(c) for c in columns.values()]
        n = sizes[0] if sizes else None
    idx = as_indices(indices, n)
    n = int(idx[-1] + 1 if idx.size else 0) if n is None else int(n)
    by_cluster: dict[int, int] = {}
    if labels is not None:
        labels = np.asarray(labels, dtype=np.int64)
        if labels.size != n:
            raise DataError(f"{labels.size} labels for {n} samples")
        clusters = np.unique(labels)
        counts = np.bincount(labels[idx] - clusters[0], minlength=clusters[-1] - clusters[0] + 1)
        by_cluster = {int(c): int(counts[c - clusters[0]]) for c in clusters}
    by_column: dict[str, dict[str, int]] = {}
    for key, column in columns.items():
        column = np.asarray(column)
        if column.shape[0] != n:
            raise DataError(f"metadata column {key!r} has {column.shape[0]} values for {n} samples")
        kind = (kinds or {}).get(key) or column_kind(column)
        if kind == "numeric":
            values = column.astype(np.float64)
            by_column[key] = _count_bins(values[idx], _numeric_edges(values))
        else:
            by_column[key] = _count_categories(column[idx])
    return Composition(int(idx.size), n, by_cluster, by_column)


def write_ids(
    path: str | os.PathLike[str],
    indices: Sequence[int] | np.ndarray,
    ids: Sequence[str] | np.ndarray | None = None,
) -> Path:
    """Write the group's sample ids, one per line (``ids`` None: the 0-based indices)."""
    idx = as_indices(indices, None if ids is None else len(ids))
    names = idx.astype(str) if ids is None else np.asarray(ids).astype(str)[idx]
    text = "".join(f"{name}\n" for name in names)
    return atomic_write(path, text)


def read_ids(
    path: str | os.PathLike[str],
    ids: Sequence[str] | np.ndarray | None = None,
    *,
    n: int | None = None,
) -> np.ndarray:
    """The sorted indices of the samples listed in ``path`` (one id per line; blank lines
    and lines starting with ``#`` are skipped; ``ids`` None: 0-based indices, below ``n``
    when given). An id the data does not have raises :class:`DataError` naming it."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise DataError(f"no file {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot read {path}: {exc}") from None
    lines = [s.strip() for s in text.splitlines()]
    wanted = [s for s in lines if s and not s.startswith("#")]
    if not wanted:
        raise DataError(f"{path} lists no sample ids")
    if ids is None:
        try:
            numbers = np.array([int(s) for s in wanted], dtype=np.int64)
        except ValueError:
            bad = next(s for s in wanted if not s.lstrip("-").isdigit())
            raise DataError(f"{path}: {bad!r} is not a sample index") from None
        return as_indices(numbers, n)
    position = {str(s): i for i, s in enumerate(np.asarray(ids).astype(str))}
    found = [position.get(s, -1) for s in wanted]
    unknown = [s for s, i in zip(wanted, found, strict=True) if i < 0]
    if unknown:
        shown = ", ".join(repr(s) for s in unknown[:5]) + (", ..." if len(unknown) > 5 else "")
        raise DataError(
            f"{path}: {len(unknown)} id(s) not in the data ({shown}): "
            "the list belongs to other data"
        )
    return as_indices(np.asarray(found, dtype=np.int64))


def composition_csv_text(compositions: Mapping[str, Composition]) -> str:
    """Rows ``group,column,value,count,share`` (share of the group) for each named
    composition: its clusters (column "cluster") then each metadata column."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(("group", "column", "value", "count", "share"))
    for name, comp in compositions.items():
        w.writerow([name, "size", "", comp.size, f"{comp.share:.6g}"])
        parts = [("cluster", {str(k): v for k, v in comp.by_cluster.items()})]
        for column, counts in [*parts, *comp.by_column.items()]:
            for value, count in counts.items():
                share = count / comp.size if comp.size else 0.0
                w.writerow([name, column, value, count, f"{share:.6g}"])
    return buf.getvalue()


def write_composition_csv(
    path: str | os.PathLike[str], compositions: Mapping[str, Composition]
) -> Path:
    """:func:`composition_csv_text` written atomically."""
    return atomic_write(path, composition_csv_text(compositions))
