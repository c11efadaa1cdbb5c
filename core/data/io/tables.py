"""One table file (CSV or TSV) keyed by a sample-id column: the rows of one view or metadata.

:func:`read_table` sniffs the delimiter (``,`` ``;`` or tab) and whether the first row is a
header, finds the id column (by name, by 1-based position, or: a first column named like an
id or holding text), and splits the other columns into numeric ones (numbers, with empty,
``NA``, ``N/A``, ``null``, ``None``, ``?`` or ``nan`` cells read as NaN) and text ones.

Speed: numbers are parsed by ``numpy.loadtxt`` (C); missing-value tokens are first rewritten
to ``nan`` with ``bytes.replace`` (C), only when the plain parse fails. A 50,000 x 200 table
reads in about 2 s (benchmarks/load_tables.py). The csv module is used for the header, for
the first rows (to classify the columns) and to name the first bad cell in an error.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from core.data.dataset import DataError
from core.data.io.csv import first_lines, is_number, read_text, short, without_blank_lines

__all__ = ["MISSING_TOKENS", "Table", "read_table", "sniff_table"]

#: Cells read as missing values (compared case-sensitively after stripping blanks).
MISSING_TOKENS = ("", "NA", "N/A", "na", "n/a", "NaN", "nan", "null", "NULL", "None", "?")
ID_NAMES = frozenset(
    {"", "id", "ids", "sample", "samples", "sample_id", "sampleid", "sample_name", "obs_names",
     "barcode", "cell", "cell_id", "index", "name", "unnamed: 0"}
)  # fmt: skip
_SAMPLE_ROWS = 200


def _is_missing(text: str) -> bool:
    return text.strip() in MISSING_TOKENS


@dataclass
class Table:
    """A table read from one file.

    Attributes
    ----------
    path : Path
    ids : (n,) str array, or None when the file has no id column (rows are then 1..n).
    columns : names of the numeric columns (``"column 3"`` when there is no header).
    values : (n, d) float64 with NaN for missing cells.
    text : text columns, name -> (n,) str array (metadata; reported for a view).
    id_name : the id column's name (or ``"column k"``).
    delimiter, header : what was sniffed.
    """

    path: Path
    ids: np.ndarray | None
    columns: list[str]
    values: np.ndarray
    text: dict[str, np.ndarray] = field(default_factory=dict)
    id_name: str | None = None
    delimiter: str = ","
    header: bool = True
    notes: list[str] = field(default_factory=list)  # how it was read (a non-UTF-8 encoding)

    @property
    def n_rows(self) -> int:
        return int(self.values.shape[0])


@dataclass
class _Layout:
    delimiter: str
    header: list[str] | None
    n_cols: int
    sample: list[list[str]]  # the first data rows


def sniff_table(path: Path, header: bool | None = None, expect: Iterable[str] = ()) -> _Layout:
    """Delimiter, header and the first rows of a table (for previews and for read_table).

    ``expect``: column names the caller will look up (an id or label column given by name):
    a first row holding one of them is the header."""
    try:
        lines = first_lines(path, _SAMPLE_ROWS + 1)
    except OSError as exc:
        raise DataError(f"{path.name}: cannot open the file ({exc.strerror})") from exc
    if not lines:
        raise DataError(f"{path.name} is empty")
    first = lines[0]
    counts = {d: first.count(d) for d in ("\t", ",", ";")}
    if path.suffix.lower() in (".tsv", ".tab") and counts["\t"]:
        delimiter = "\t"
    else:
        delimiter = max(counts, key=counts.get) if any(counts.values()) else ","
    rows = list(csv.reader(lines, delimiter=delimiter))
    rows = [[c.strip() for c in r] for r in rows]
    if header is None:
        header = _looks_like_header(rows, "".join(lines), delimiter, expect)
    n_cols = len(rows[0])
    names = None
    if header:
        names = [c or f"column {j + 1}" for j, c in enumerate(rows[0])]
        if rows[0][0] == "":
            names[0] = ""  # an unnamed first column (R/pandas row names) is the id column
        seen: set[str] = set()
        for j, name in enumerate(names):
            if name in seen:
                raise DataError(f"{path.name}: column name {name!r} appears twice (column {j + 1})")
            seen.add(name)
        rows = rows[1:]
        if not rows:
            raise DataError(f"{path.name} has a header but no data rows")
    return _Layout(delimiter, names, n_cols, rows)


def _looks_like_header(
    rows: list[list[str]], text: str, delimiter: str, expect: Iterable[str] = ()
) -> bool:
    """A header has a text cell where the next row has a number, or is all text, or holds a
    column name the caller asked for. A table of text only (metadata: ids, groups, batches)
    has one when its first cell names an id column, or when its columns tell
    (:func:`_text_header`), else when the standard library's sniffer finds the first row
    unlike the rest (cell lengths per column)."""
    first = rows[0]
    wanted = {e for e in expect if e and not is_number(e)}
    if wanted.intersection(first):
        return True
    if len(rows) < 2:
        return not all(is_number(c) for c in first)
    second = rows[1]
    if all(not is_number(c) for c in first) and any(is_number(c) for c in second):
        return True
    if any(
        not is_number(a) and not _is_missing(a) and is_number(b)
        for a, b in zip(first, second, strict=False)
    ):
        return True
    if any(is_number(c) for row in rows[:2] for c in row):
        return False
    if first[0].lower() in ID_NAMES - {""}:
        return True
    told = _text_header(rows)
    if told is not None:
        return told
    sniffer = csv.Sniffer()
    sniffer.preferred = [delimiter]
    try:
        return sniffer.has_header(text)
    except csv.Error:
        return False


def _text_header(rows: list[list[str]]) -> bool | None:
    """Whether the first row of a table of text is a header, from its columns (None: they do
    not tell). A data row repeats values of its columns: a first row with a cell that occurs
    again below in the same column is data. A first row of distinct names (the first may be
    empty: R's row-names column) none of which occurs below, over unique ids in the first
    column and a column with repeated values (a group, a genotype: categorical metadata), is
    a header: ``mouse_id,genotype,diet`` over ``mouse_4,wt,chow``..."""
    first, body = rows[0], [r for r in rows[1:] if r]
    n = len(first)
    cells = [[r[j] for r in body if len(r) > j and not _is_missing(r[j])] for j in range(n)]
    if any(c and c in cells[j] for j, c in enumerate(first)):
        return False
    names = first[1:] if first[0] == "" else first
    if n < 2 or len(set(first)) != n or any(_is_missing(c) for c in names):
        return None
    ids = [r[0] for r in body]
    if len(set(ids)) != len(ids) or any(_is_missing(i) for i in ids):
        return None
    repeats = any(len(set(col)) < len(col) for col in cells[1:])
    return True if repeats else None


def _column_index(layout: _Layout, spec: str | int, path: Path) -> int:
    names = layout.header
    if isinstance(spec, str) and names is not None and spec in names:
        return names.index(spec)
    if isinstance(spec, int) or (isinstance(spec, str) and spec.isdigit()):
        k = int(spec)
        if not 1 <= k <= layout.n_cols:
            raise DataError(f"{path.name}: no column {k} (the file has {layout.n_cols} columns)")
        return k - 1
    if not names:
        raise DataError(
            f"{path.name}: no id column {spec!r}: the file has no header row (its first row "
            f"reads as data), so give the column's 1-based position (1 to {layout.n_cols})"
        )
    have = ", ".join(repr(n) for n in names)
    raise DataError(f"{path.name}: no id column {spec!r} (columns: {have})")


def _auto_id(layout: _Layout) -> int | None:
    if layout.header is not None and layout.header[0].lower() in ID_NAMES:
        return 0
    cells = [r[0] for r in layout.sample if r and not _is_missing(r[0])]
    if cells and not all(is_number(c) for c in cells):
        return 0
    return None


def _name(layout: _Layout, j: int) -> str:
    return layout.header[j] if layout.header is not None else f"column {j + 1}"


def read_table(
    path: str | Path,
    *,
    id_column: str | int | None = None,
    header: bool | None = None,
    text_columns: str = "keep",
    expect: Iterable[str] = (),
    finite: bool = False,
) -> Table:
    """Read one table.

    Parameters
    ----------
    path : the CSV/TSV file.
    id_column : column name, or 1-based position; None finds it (see the module docstring).
    header : True/False, or None to sniff.
    text_columns : ``"keep"`` returns text columns in ``Table.text`` (metadata; a view's
        caller reports them by name).
    expect : other column names the caller will look up (a label column): a first row that
        holds one of them (or ``id_column``, given by name) is the header.
    finite : refuse infinite numbers (``inf``, ``1e999``: a view's values), naming the cell.

    Raises
    ------
    DataError
        Naming the file, the column and the row: duplicate ids, empty ids, a missing id
        column, rows of different lengths, a text cell in a numeric column, an infinite
        number (``finite``).
    """
    p = Path(path)
    expect = [*expect, *([id_column] if isinstance(id_column, str) else [])]
    layout = sniff_table(p, header, expect)
    id_col = _auto_id(layout) if id_column is None else _column_index(layout, id_column, p)
    numeric, text = [], []
    for j in range(layout.n_cols):
        if j == id_col:
            continue
        cells = [r[j] for r in layout.sample if len(r) > j and not _is_missing(r[j])]
        # a column with no number at all is text; one with numbers and a stray word is an
        # error naming that cell (raised by _numbers), never silently dropped
        (text if cells and not any(is_number(c) for c in cells) else numeric).append(j)
    skip = 1 if layout.header is not None else 0
    body, note = read_text(p)
    values = _numbers(p, layout, numeric, skip, body)
    if finite and numeric and np.isinf(values).any():
        r, c = (int(i) for i in np.argwhere(np.isinf(values))[0])
        line, cell = _cell(body, layout, r, numeric[c], skip)
        raise DataError(
            f"{p.name}: column {_name(layout, numeric[c])!r}, data row {r + 1} (line {line}): "
            f"{short(cell)} is infinite; the values of a view must be finite numbers (an empty "
            "cell is a missing value)"
        )
    n = values.shape[0]
    strings = {}
    if id_col is not None or text:
        wanted = ([id_col] if id_col is not None else []) + text
        columns = _strings(p, layout, wanted, skip, body)
        if columns[0].shape[0] != n and numeric:
            raise DataError(
                f"{p.name}: rows of different lengths ({_locate(body, layout, [], skip)})"
            )
        n = columns[0].shape[0]
        strings = dict(zip(wanted, columns, strict=True))
    if not numeric:
        values = np.empty((n, 0))
    ids = None
    if id_col is not None:
        ids = np.char.strip(strings.pop(id_col).astype(str))
        _check_ids(p, ids, _name(layout, id_col))
    return Table(
        path=p,
        ids=ids,
        columns=[_name(layout, j) for j in numeric],
        values=values,
        text={_name(layout, j): np.char.strip(strings[j].astype(str)) for j in text},
        id_name=None if id_col is None else _name(layout, id_col),
        delimiter=layout.delimiter,
        header=layout.header is not None,
        notes=[note] if note else [],
    )


def _check_ids(p: Path, ids: np.ndarray, column: str) -> None:
    empty = np.flatnonzero(ids == "")
    if empty.size:
        raise DataError(
            f"{p.name}: column {column!r}, data row {int(empty[0]) + 1}: the sample id is empty"
        )
    order = np.argsort(ids, kind="stable")
    same = np.flatnonzero(ids[order][1:] == ids[order][:-1])
    if same.size:
        first, second = sorted((int(order[same[0]]), int(order[same[0] + 1])))
        raise DataError(
            f"{p.name}: column {column!r}: duplicate sample id {str(ids[first])!r} in data rows "
            f"{first + 1} and {second + 1}"
        )


def _loadtxt(text: str, layout: _Layout, cols: list[int], skip: int, dtype) -> np.ndarray:
    return np.loadtxt(
        io.StringIO(text),
        delimiter=layout.delimiter,
        skiprows=skip,
        usecols=cols,
        dtype=dtype,
        ndmin=2,
        quotechar='"',
        comments=None,
    )


def _data_text(text: str) -> str:
    """The text numpy reads: no blank lines (a line of spaces stops its reader), none first."""
    return without_blank_lines(text).lstrip("\r\n")


def _numbers(p: Path, layout: _Layout, cols: list[int], skip: int, text: str) -> np.ndarray:
    if not cols:
        return np.empty((0, 0))
    data = _data_text(text)
    delim = layout.delimiter
    # empty cells are the usual missing values: rewrite them before the first parse; the
    # other tokens (NA, null...) only when that parse fails (each check scans the text)
    tokens = [("",), tuple(t for t in MISSING_TOKENS if t and t not in ("NaN", "nan"))]
    if _has_empty(data, delim):
        data = _fill_missing(data, delim, tokens[0])
    for attempt in range(2):
        try:
            return _loadtxt(data, layout, cols, skip, np.float64)
        except ValueError as exc:
            if attempt == 1:
                raise DataError(f"{p.name}: {_locate(text, layout, cols, skip)}") from exc
            data = _fill_missing(data, delim, tokens[1])
    raise AssertionError("unreachable")


def _strings(p: Path, layout: _Layout, cols: list[int], skip: int, text: str) -> list[np.ndarray]:
    if cols == [0]:  # the usual case, an id column first: split the lines (5x faster)
        ids = _first_cells(text, layout.delimiter, skip)
        if ids is not None:
            return [ids]
    try:
        table = _loadtxt(_data_text(text), layout, cols, skip, str)
    except ValueError as exc:
        raise DataError(f"{p.name}: {_locate(text, layout, [], skip)}") from exc
    return [table[:, k] for k in range(len(cols))]


def _first_cells(text: str, delimiter: str, skip: int) -> np.ndarray | None:
    """The first cell of every non-blank data line, or None when quoting makes it unsafe."""
    if '"' in text:
        return None
    lines = [ln for ln in text.splitlines() if ln.strip()][skip:]
    return np.array([ln.split(delimiter, 1)[0].strip() for ln in lines], dtype=str)


def _has_empty(data: str, delim: str) -> bool:
    """Empty cells (substring searches, stopping at the first hit)."""
    return any(s in data for s in (delim + delim, delim + "\n", "\n" + delim, '""'))


def _fill_missing(data: str, delim: str, tokens: tuple[str, ...]) -> str:
    """Rewrite missing-value cells as ``nan`` (str.replace runs in C: ~0.1 s per 100 MB)."""
    data = data.replace("\r\n", "\n")
    if not data.endswith("\n"):
        data += "\n"
    for token in tokens:
        for cell in (token, '"' + token + '"'):
            # each replace copies the whole text: skip the cells that do not occur
            if (
                delim + cell + delim not in data
                and delim + cell + "\n" not in data
                and ("\n" + cell + delim not in data and not data.startswith(cell + delim))
            ):
                continue
            for _ in range(2):  # a replace does not see overlapping matches (",,,")
                data = data.replace(delim + cell + delim, delim + "nan" + delim)
            data = data.replace(delim + cell + "\n", delim + "nan\n")
            data = data.replace("\n" + cell + delim, "\nnan" + delim)
            if data.startswith(cell + delim):
                data = "nan" + data[len(cell) :]
    return data


def _rows(text: str, layout: _Layout):
    """(line number, cells) of the non-blank rows of the text (slow path, for messages)."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=layout.delimiter)
    for row in reader:
        if row and not (len(row) == 1 and not row[0].strip()):
            yield reader.line_num, row


def _cell(text: str, layout: _Layout, row: int, col: int, skip: int) -> tuple[int, str]:
    """The line number and the text of a cell given by its 0-based data row (slow path)."""
    for k, (line_no, cells) in enumerate(_rows(text, layout)):
        if k - skip == row:
            return line_no, cells[col].strip() if col < len(cells) else ""
    return row + 1 + skip, "?"


def _locate(text: str, layout: _Layout, cols: list[int], skip: int) -> str:
    """The first problem cell, found with the csv module (slow path, for the message)."""
    for k, (line_no, row) in enumerate(_rows(text, layout)):
        if k < skip:
            continue
        if len(row) != layout.n_cols:
            return f"line {line_no} has {len(row)} fields, the first line has {layout.n_cols}"
        for j in cols:
            cell = row[j].strip()
            if not _is_missing(cell) and not is_number(cell):
                return (
                    f"column {_name(layout, j)!r}, data row {k - skip + 1} (line {line_no}): "
                    f"{short(cell)} is not a number in a numeric column"
                )
    return "unreadable content"
