"""CSV data: a folder with one file per view, or one file with ``<view>:<feature>`` columns.

Layout (a), a folder::

    view_<name>.csv   one per view, samples in rows (views ordered by file name, numbers
                      in natural order: view_2 before view_10)
    labels.csv        one label per row (optional; numbers or text)

Layout (b), one file whose header names every feature column ``<view>:<feature>`` and has
a ``label`` column (also accepted: ``labels``, ``class``, ``y``, ``target``). A file
without any ``:`` in its header is a single view.

Both: the delimiter (``,`` ``;`` or tab) is detected from the first line; the first row is
a header if any of its cells is not a number; a first header cell named ``id``, ``sample``,
``sample_id``, ``index`` or left empty marks a sample-identifier column, which is dropped
(in a folder, every file must list the samples in the same order). Missing values (empty
cells, ``nan``) are errors naming the file, line and column.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from core.data.dataset import DataError, MultiViewDataset
from core.data.io.assemble import RawView, assemble_dataset, natural_key

__all__ = ["read_csv_file", "read_csv_folder"]

ID_HEADERS = frozenset({"", "id", "ids", "sample", "sample_id", "sampleid", "index", "unnamed: 0"})
LABEL_HEADERS = ("label", "labels", "class", "y", "target")


def is_number(text: str) -> bool:
    """True when a cell's text parses as a float."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def first_lines(path: Path, count: int) -> list[str]:
    """The first ``count`` non-blank lines of a UTF-8 text file (BOM dropped)."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            lines = []
            for line in fh:
                if line.strip():
                    lines.append(line)
                if len(lines) >= count:
                    break
    except UnicodeDecodeError as exc:
        raise DataError(f"{path.name} is not a UTF-8 text file: {exc.reason}") from exc
    return lines


class _Table:
    """Delimiter, header and data offset of one CSV file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        lines = first_lines(path, 2)
        if not lines:
            raise DataError(f"{path.name} is empty")
        first = lines[0]
        counts = {d: first.count(d) for d in (",", ";", "\t")}
        self.delimiter = max(counts, key=counts.get) if any(counts.values()) else ","
        cells = next(csv.reader([first], delimiter=self.delimiter))
        self.header = None if all(is_number(c) for c in cells) else [c.strip() for c in cells]
        self.skip = 1 if self.header is not None else 0
        self.n_cols = len(cells)
        if self.header is not None and len(lines) < 2:
            raise DataError(f"{path.name} has a header but no data rows")
        self.id_column = self.header is not None and self.header[0].lower() in ID_HEADERS

    def _locate(self, usecols: list[int]) -> str:
        """Find the first cell that is not a number (slow path, after numpy failed)."""
        with open(self.path, encoding="utf-8-sig", newline="") as fh:
            for line_no, row in enumerate(csv.reader(fh, delimiter=self.delimiter), start=1):
                if line_no <= self.skip or not row or not any(c.strip() for c in row):
                    continue
                if len(row) != self.n_cols:
                    return f"line {line_no} has {len(row)} fields, the first line has {self.n_cols}"
                for col in usecols:
                    cell = row[col].strip()
                    if not cell:
                        return f"line {line_no}, column {col + 1} is empty (missing value)"
                    if not is_number(cell):
                        return f"line {line_no}, column {col + 1} is not a number: {cell!r}"
        return "unreadable content"

    def numbers(self, usecols: list[int]) -> np.ndarray:
        """The given columns as a float64 matrix; missing values raise DataError."""
        try:
            data = np.loadtxt(
                self.path,
                delimiter=self.delimiter,
                skiprows=self.skip,
                usecols=usecols,
                dtype=np.float64,
                ndmin=2,
                encoding="utf-8-sig",
                quotechar='"',
                comments=None,
            )
        except ValueError as exc:
            raise DataError(f"{self.path.name}: {self._locate(usecols)}") from exc
        bad = ~np.isfinite(data)
        if bad.any():
            r, c = (int(i) for i in np.argwhere(bad)[0])
            raise DataError(
                f"{self.path.name}: data row {r + 1}, column {usecols[c] + 1} is "
                f"{data[r, c]} (missing or infinite values are not supported)"
            )
        return data

    def strings(self, column: int) -> np.ndarray:
        """One column as text (identifiers or labels)."""
        try:
            return np.loadtxt(
                self.path,
                delimiter=self.delimiter,
                skiprows=self.skip,
                usecols=[column],
                dtype=str,
                ndmin=1,
                encoding="utf-8-sig",
                quotechar='"',
                comments=None,
            )
        except ValueError as exc:
            raise DataError(f"{self.path.name}: {self._locate([])}") from exc


def _labels_from_text(values: np.ndarray, where: str) -> np.ndarray:
    """Numbers if every label is a number, else the text; empty labels are errors."""
    values = np.char.strip(values.astype(str))
    empty = np.flatnonzero(values == "")
    if empty.size:
        raise DataError(f"{where}: label of data row {int(empty[0]) + 1} is empty")
    try:
        numbers = values.astype(np.float64)
    except ValueError:
        return values
    if np.all(np.isfinite(numbers)) and np.all(numbers == np.round(numbers)):
        return numbers.astype(np.int64)
    return numbers


def _read_labels_file(path: Path, ids: np.ndarray | None) -> np.ndarray:
    """labels.csv with several columns: a header must name the label column (or mark ids)."""
    table = _Table(path)
    if table.header is None:
        raise DataError(
            f"{path.name} has {table.n_cols} columns but no header: use one column, "
            "or a header with a 'label' column"
        )
    lowered = [h.lower() for h in table.header]
    column = next((lowered.index(h) for h in LABEL_HEADERS if h in lowered), None)
    if column is None:
        if not (table.id_column and table.n_cols == 2):
            raise DataError(
                f"{path.name}: no column named 'label' in the header ({', '.join(table.header)})"
            )
        column = 1
    if table.id_column and ids is not None:
        these = np.char.strip(table.strings(0).astype(str))
        if these.shape != ids.shape or not np.array_equal(these, ids):
            raise DataError(
                f"{path.name} lists the samples in a different order (or a "
                "different set) than the view files"
            )
    return _labels_from_text(table.strings(column), path.name)


def _single_column_labels(path: Path) -> np.ndarray:
    """labels.csv with one column: the first row is a header only if it cannot be a label."""
    with open(path, encoding="utf-8-sig", newline="") as fh:
        rows = [r.strip().strip('"') for r in fh if r.strip()]
    if not rows:
        raise DataError(f"{path.name} is empty")
    first, rest = rows[0], rows[1:]
    header = first.lower() in LABEL_HEADERS or (
        not is_number(first) and (all(is_number(r) for r in rest) or first not in rest)
    )
    values = np.asarray(rest if header else rows)
    if values.size == 0:
        raise DataError(f"{path.name} has a header but no labels")
    return _labels_from_text(values, path.name)


def read_csv_folder(
    folder: Path, *, name: str | None, source: str, notes: list[str]
) -> MultiViewDataset:
    """Read layout (a): ``view_<name>.csv`` files plus ``labels.csv`` in one folder."""
    files = [p for p in folder.iterdir() if p.is_file() and p.suffix.lower() == ".csv"]
    view_files = sorted(
        (p for p in files if p.stem.lower().startswith("view_")), key=lambda p: natural_key(p.stem)
    )
    if not view_files:
        found = ", ".join(sorted(p.name for p in files)) or "no CSV files"
        raise DataError(
            f"folder '{folder.name}' has no view files: expected one "
            f"view_<name>.csv per view and labels.csv (found: {found})"
        )
    views: list[RawView] = []
    ids: np.ndarray | None = None
    for path in view_files:
        table = _Table(path)
        start = 1 if table.id_column else 0
        if table.n_cols <= start:
            raise DataError(f"{path.name} has no feature columns")
        data = table.numbers(list(range(start, table.n_cols)))
        if table.id_column:
            these = np.char.strip(table.strings(0).astype(str))
            if ids is None:
                ids = these
            elif these.shape != ids.shape or not np.array_equal(these, ids):
                raise DataError(
                    f"{path.name} lists the samples in a different order (or a "
                    f"different set) than {view_files[0].name}"
                )
        views.append(RawView(where=path.name, data=data, name=path.stem[len("view_") :]))
    label_file = next((p for p in files if p.name.lower() == "labels.csv"), None)
    labels = None
    if label_file is None:
        notes.append(f"no labels.csv in '{folder.name}': the dataset is unlabelled")
    elif _Table(label_file).n_cols == 1:
        labels = _single_column_labels(label_file)
    else:
        labels = _read_labels_file(label_file, ids)
    other = [p.name for p in files if p not in view_files and p != label_file]
    if other:
        notes.append(
            "ignored files "
            + ", ".join(sorted(other))
            + ": not named view_<name>.csv or labels.csv"
        )
    return assemble_dataset(
        views,
        labels,
        label_where="labels.csv",
        name=name or folder.name,
        source=source,
        notes=notes,
        orient=False,
    )


def read_csv_file(
    path: Path, *, name: str | None, source: str, notes: list[str]
) -> MultiViewDataset:
    """Read layout (b): one file with ``<view>:<feature>`` columns and a ``label`` column."""
    table = _Table(path)
    if table.header is None:
        notes.append(f"{path.name} has no header: read as a single view without labels")
        views = [
            RawView(where=path.name, data=table.numbers(list(range(table.n_cols))), name=path.stem)
        ]
        return assemble_dataset(
            views, None, name=name or path.stem, source=source, notes=notes, orient=False
        )
    header = table.header
    lowered = [h.lower() for h in header]
    label_col = next((lowered.index(h) for h in LABEL_HEADERS if h in lowered), None)
    skip = {label_col, 0 if table.id_column else None} - {None}
    columns = [i for i in range(table.n_cols) if i not in skip]
    prefixed = [i for i in columns if ":" in header[i]]
    groups: dict[str, list[int]] = {}
    if prefixed:
        unprefixed = [header[i] for i in columns if i not in prefixed]
        if unprefixed:
            notes.append(
                "ignored columns "
                + ", ".join(f"'{h}'" for h in unprefixed)
                + ": no '<view>:' prefix"
            )
        for i in prefixed:
            view = header[i].split(":", 1)[0].strip()
            groups.setdefault(view or "view", []).append(i)
    elif columns:
        groups[path.stem] = columns
    if not groups:
        raise DataError(f"{path.name} has no feature columns (header: {', '.join(header)})")
    all_cols = [i for cols in groups.values() for i in cols]
    data = table.numbers(all_cols)
    position = {col: k for k, col in enumerate(all_cols)}
    views = [
        RawView(
            where=f"{path.name} [{view}:*]", data=data[:, [position[c] for c in cols]], name=view
        )
        for view, cols in groups.items()
    ]
    labels = None
    if label_col is None:
        notes.append(f"{path.name} has no 'label' column: the dataset is unlabelled")
    else:
        labels = _labels_from_text(
            table.strings(label_col), f"{path.name} column '{header[label_col]}'"
        )
    ds = assemble_dataset(
        views,
        labels,
        label_where=f"column '{header[label_col]}'" if label_col is not None else "labels",
        name=name or path.stem,
        source=source,
        notes=notes,
        orient=False,
    )
    # the header names the features (cluster profiles show them): "<view>:<feature>"
    names = [[header[c].split(":", 1)[-1].strip() for c in cols] for cols in groups.values()]
    if [len(f) for f in names] == ds.dims:
        ds.meta["feature_names"] = names
    return ds
