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

import codecs
import csv
import io
import re
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


_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8-sig", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16", "UTF-16"),
)
#: bytes that do not occur in a text file (C0 controls but tab, newlines, form feed; DEL)
_CONTROL = frozenset([*range(0, 9), 11, *range(14, 27), *range(28, 32), 127])
#: the 8-bit code pages tried for text that is not UTF-8, in order (cp1252 leaves 5 bytes
#: undefined: latin-1 then reads every byte)
_EIGHT_BIT = ("cp1252", "latin-1")
#: how much of the file is looked at to decide its encoding
SNIFF_BYTES = 1 << 16


def _decodes(data: bytes, codec: str) -> str | None:
    """``data`` decoded, or None; the sample may end inside a multi-byte character."""
    for cut in range(4):
        try:
            return data[: len(data) - cut].decode(codec)
        except UnicodeDecodeError:
            continue
    return None


def _looks_like_text(text: str) -> bool:
    return not any(ord(ch) in _CONTROL for ch in text)


def _mostly_ascii_table(text: str) -> bool:
    """Printable ASCII at least 95 % of the time, with a line break or a delimiter: a table."""
    plain = sum(1 for ch in text if " " <= ch <= "~" or ch in "\t\r\n")
    return plain >= 0.95 * len(text) and any(ch in text for ch in "\n,;\t")


def sniff_encoding(head: bytes) -> str | None:
    """The codec of a text file judged by its first bytes, or None when it is not text.

    A byte order mark decides (UTF-8, UTF-16, UTF-32); then UTF-8 (no NUL byte); then
    UTF-16 without a mark (a NUL in every other byte, decoding to text); then, for bytes with
    no control characters, an 8-bit code page (Windows-1252, else Latin-1)."""
    for bom, codec, _ in _BOMS:
        if head.startswith(bom):
            body = _decodes(head, codec)
            return codec if body is not None and _looks_like_text(body) else None
    if b"\x00" not in head:
        if _decodes(head, "utf-8") is not None:
            return "utf-8"
        if not any(b in _CONTROL for b in head):
            return next(c for c in _EIGHT_BIT if _decodes(head, c) is not None)
        return None
    if len(head) >= 4:
        for codec, zeros in (("utf-16-le", head[1::2]), ("utf-16-be", head[0::2])):
            if zeros.count(0) >= 0.9 * len(zeros):
                text = _decodes(head[: len(head) // 2 * 2], codec)
                if text and _looks_like_text(text) and _mostly_ascii_table(text):
                    return codec
    return None


def encoding_name(codec: str) -> str:
    """How a codec is named to users."""
    names = {"utf-8": "UTF-8", "utf-8-sig": "UTF-8", "cp1252": "Windows-1252",
             "latin-1": "Latin-1", "utf-16-le": "UTF-16 (little-endian, no byte order mark)",
             "utf-16-be": "UTF-16 (big-endian, no byte order mark)"}  # fmt: skip
    return names.get(codec, codec.upper())


def file_encoding(path: Path) -> str:
    """The codec to read ``path`` with (see :func:`sniff_encoding`); DataError when the
    file is not text."""
    with open(path, "rb") as fh:
        head = fh.read(SNIFF_BYTES)
    codec = sniff_encoding(head)
    if codec is None:
        raise DataError(
            f"{path.name} is not a text file (binary bytes in its first {len(head):,}): "
            "expected a CSV/TSV table in UTF-8, UTF-16 or Latin-1"
        )
    return codec


def read_text(path: Path) -> tuple[str, str | None]:
    """The whole text of ``path`` and, when it is not UTF-8, a note saying how it was read.

    Text with a byte that is not UTF-8 is read as Windows-1252 (Latin-1 when a byte is not
    Windows-1252 either); the note names the first such byte and its line."""
    codec = file_encoding(path)
    raw = path.read_bytes()
    if codec in ("utf-8", "utf-8-sig", *_EIGHT_BIT):
        try:
            return raw.decode("utf-8-sig"), None
        except UnicodeDecodeError as exc:
            line = raw.count(b"\n", 0, exc.start) + 1
            codec = next(c for c in _EIGHT_BIT if _decodes(raw, c) is not None)
            return raw.decode(codec).removeprefix("\ufeff"), (
                f"{path.name} is not UTF-8 (byte 0x{raw[exc.start]:02x} on line {line}): read "
                f"as {encoding_name(codec)}"
            )
    try:
        text = raw.decode(codec)
    except UnicodeDecodeError as exc:
        raise DataError(
            f"{path.name}: not valid {encoding_name(codec)} text (bytes "
            f"{raw[exc.start : exc.start + 2].hex(' ')} at offset {exc.start})"
        ) from exc
    return text.removeprefix("\ufeff"), f"{path.name} is {encoding_name(codec)} text: read as such"


_BLANK_LINE = re.compile(r"^[ \t\f\v\r]*\n|^[ \t\f\v\r]+\Z", re.M)


def without_blank_lines(text: str) -> str:
    """``text`` without its blank lines (numpy's reader stops at a line of spaces, and warns
    about an empty one)."""
    if _BLANK_LINE.search(text) is None:
        return text
    return _BLANK_LINE.sub("", text)


def first_lines(path: Path, count: int) -> list[str]:
    """The first ``count`` non-blank lines of a text file (BOM dropped; the encoding as
    :func:`sniff_encoding` finds it, Latin-1 when a later byte is not UTF-8)."""
    codec = file_encoding(path)
    attempts = (codec, *_EIGHT_BIT) if codec in ("utf-8", "utf-8-sig") else (codec,)
    for attempt in attempts:
        try:
            with open(path, encoding=attempt, newline="") as fh:
                lines = []
                for line in fh:
                    if line.strip():
                        lines.append(line.removeprefix("\ufeff") if not lines else line)
                    if len(lines) >= count:
                        break
            return lines
        except UnicodeDecodeError:
            continue
    raise DataError(f"{path.name}: not valid {encoding_name(codec)} text")


class _Table:
    """Delimiter, header and data offset of one CSV file; its text, read once."""

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
        self._text: tuple[str, str | None] | None = None

    @property
    def text(self) -> str:
        """The file's text as read (its encoding detected), for messages with line numbers."""
        if self._text is None:
            self._text = read_text(self.path)
        return self._text[0]

    @property
    def note(self) -> str | None:
        """How the file was decoded when it is not UTF-8 (a warning), else None."""
        _ = self.text
        return self._text[1] if self._text else None

    def _lines(self) -> io.StringIO:
        """The text without blank lines (numpy's reader stops at a line of spaces)."""
        text = self.text
        return io.StringIO(without_blank_lines(text).lstrip("\r\n"))

    def _locate(self, usecols: list[int]) -> str:
        """Find the first cell that is not a number (slow path, after numpy failed)."""
        reader = csv.reader(io.StringIO(self.text, newline=""), delimiter=self.delimiter)
        data_rows = 0
        for row in reader:
            line_no = reader.line_num
            if not row or (len(row) == 1 and not row[0].strip()):
                continue  # a blank line: skipped
            data_rows += 1
            if data_rows <= self.skip:
                continue
            if len(row) != self.n_cols:
                return f"line {line_no} has {len(row)} fields, the first line has {self.n_cols}"
            for col in usecols:
                cell = row[col].strip()
                if not cell:
                    return f"line {line_no}, column {col + 1} is empty (missing value)"
                if not is_number(cell):
                    return f"line {line_no}, column {col + 1} is not a number: {short(cell)}"
        return "unreadable content"

    def _loadtxt(self, usecols: list[int] | None, dtype: type) -> np.ndarray:
        return np.loadtxt(
            self._lines(),
            delimiter=self.delimiter,
            skiprows=self.skip,
            usecols=usecols,
            dtype=dtype,
            ndmin=2 if dtype is np.float64 else 1,
            quotechar='"',
            comments=None,
        )

    def numbers(self, usecols: list[int]) -> np.ndarray:
        """The given columns as a float64 matrix; missing values raise DataError."""
        try:
            data = self._loadtxt(usecols, np.float64)
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
            return self._loadtxt([column], str)
        except ValueError as exc:
            raise DataError(f"{self.path.name}: {self._locate([])}") from exc


def short(text: str, limit: int = 60) -> str:
    """``repr`` of a cell for a message: control characters escaped, at most ``limit``
    characters (a damaged file can put a whole block of bytes in one cell)."""
    if len(text) > limit:
        return repr(text[:limit]) + f"... ({len(text):,} characters)"
    return repr(text)


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


def _read_labels_file(path: Path, ids: np.ndarray | None, notes: list[str]) -> np.ndarray:
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
    labels = _labels_from_text(table.strings(column), path.name)
    if table.note:
        notes.append(table.note)
    return labels


def _single_column_labels(path: Path, notes: list[str]) -> np.ndarray:
    """labels.csv with one column: the first row is a header only if it cannot be a label."""
    text, note = read_text(path)
    if note:
        notes.append(note)
    rows = [r.strip().strip('"') for r in text.splitlines() if r.strip()]
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
        if table.note:
            notes.append(table.note)
    label_file = next((p for p in files if p.name.lower() == "labels.csv"), None)
    labels = None
    if label_file is None:
        notes.append(f"no labels.csv in '{folder.name}': the dataset is unlabelled")
    elif _Table(label_file).n_cols == 1:
        labels = _single_column_labels(label_file, notes)
    else:
        labels = _read_labels_file(label_file, ids, notes)
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
        if table.note:
            notes.append(table.note)
        views = [
            RawView(where=path.name, data=table.numbers(list(range(table.n_cols))), name=path.stem)
        ]
        return assemble_dataset(
            views, None, name=name or path.stem, source=source, notes=notes, orient=False
        )
    header = table.header
    if table.note:
        notes.append(table.note)
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
