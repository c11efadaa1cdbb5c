"""Dataset panel: what was loaded, per view facts, include/exclude and preprocessing.

Notes on the data (the loader's warnings, sample ids and missing views) sit in a box of
bounded height that scrolls and folds away: however long they are, the views table keeps
room for at least ``min(n_views, 4)`` rows (issue 24, item 7: a missing-view warning had
squeezed it to one row)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from mvc_gui.model.data_session import PREPROCESSORS, DataSession

__all__ = ["FILE_LABELS", "DatasetPanel", "ids_text"]

FILE_LABELS = "\x00file"  # the reference-label item for the labels the file itself holds

COLUMNS = ("Use", "View", "n x d", "Storage", "Range", "Zero rows", "Preprocessing")
COLUMN_TIPS = (
    "Include the view",
    "View name",
    "Samples x features",
    "Dense, or sparse with\nits density",
    "Smallest and largest value",
    "Rows that are all zero",
    "Preprocessing (auto shows what it chose)",
)


#: rows of the views table always visible (fewer views: all of them)
MIN_TABLE_ROWS = 4
#: lines of notes shown before the notes box scrolls
NOTE_LINES = 4


def _fmt(x: float) -> str:
    return f"{x:.3g}"


#: classes named in the panel; more are counted and listed in the tooltip (100 classes filled
#: the dock and pushed the views table under the reference-labels row)
SHOWN_CLASSES = 12


def classes_text(classes: list, counts: list) -> tuple[str, str]:
    """The panel's line on the classes (at most SHOWN_CLASSES named, with their sizes) and
    the tooltip's full list."""
    items = [f"{c} ({k})" for c, k in zip(classes, counts, strict=False)] or list(map(str, classes))
    full = f"<b>{len(classes)} classes:</b> {', '.join(items)}"
    if len(items) <= SHOWN_CLASSES:
        return full, ""
    sizes = ""
    if counts:
        lo, hi = min(counts), max(counts)
        sizes = f", {lo} samples each" if lo == hi else f", {lo}-{hi} samples each"
    shown = ", ".join(items[:SHOWN_CLASSES])
    more = len(items) - SHOWN_CLASSES
    return f"<b>{len(classes)} classes</b>{sizes}: {shown}, ... ({more} more)", full


class WrappedLabel(QLabel):
    """A word-wrapped label whose minimum height is that of its text at its width: a box
    layout counts a wrapped label as one line, gave the views table less than its minimum,
    and the table's last row lay under the reference-labels row."""

    def __init__(self, text: str = "") -> None:
        super().__init__(text)
        self.setWordWrap(True)

    def _fit(self) -> None:
        need = self.heightForWidth(self.width()) if self.width() > 0 else -1
        if need > 0 and need != self.minimumHeight():
            self.setMinimumHeight(need)

    def setText(self, text: str) -> None:
        super().setText(text)
        self._fit()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()


class DatasetPanel(QWidget):
    """Shows a :class:`DataSession`; edits its ``included``/``methods`` in place."""

    selection_changed = Signal()
    #: a metadata column chosen as the reference labels (None: no labels)
    reference_changed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session: DataSession | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        self.header = QLabel("No dataset loaded. File > Open, or drop a file here.")
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.header)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionMode(QTableWidget.SelectionMode.NoSelection)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        # asks for room for every row (the dock's first split follows it); never fewer than
        # MIN_TABLE_ROWS rows (_keep_rows_visible)
        self.table.setSizeAdjustPolicy(QTableWidget.SizeAdjustPolicy.AdjustToContents)
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        for col, tip in enumerate(COLUMN_TIPS):
            self.table.horizontalHeaderItem(col).setToolTip(tip)
        self.notes_button = QToolButton()
        self.notes_button.setCheckable(True)
        self.notes_button.setChecked(True)
        self.notes_button.setAutoRaise(True)
        self.notes_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.notes_button.setArrowType(Qt.ArrowType.DownArrow)
        self.notes_button.setToolTip("Show or hide the notes on this data")
        self.notes_button.toggled.connect(self._on_notes_toggled)
        layout.addWidget(self.notes_button)
        notes = QWidget()
        notes_layout = QVBoxLayout(notes)
        notes_layout.setContentsMargins(0, 0, 4, 0)
        self.ids_info = QLabel()
        self.ids_info.setWordWrap(True)
        self.ids_info.setVisible(False)
        notes_layout.addWidget(self.ids_info)
        self.warnings = QLabel()
        self.warnings.setWordWrap(True)
        self.warnings.setTextFormat(Qt.TextFormat.RichText)
        self.warnings.setVisible(False)
        notes_layout.addWidget(self.warnings)
        notes_layout.addStretch(1)
        self.notes = QScrollArea()
        self.notes.setWidget(notes)
        self.notes.setWidgetResizable(True)
        self.notes.setFrameShape(QScrollArea.Shape.NoFrame)
        self.notes.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.notes.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        lines = self.fontMetrics().lineSpacing()
        self.notes.setMaximumHeight(NOTE_LINES * lines + 6)  # longer notes scroll
        self.notes.setMinimumHeight(min(2, NOTE_LINES) * lines)
        layout.addWidget(self.notes)
        self._set_notes_shown(False)
        layout.addWidget(self.table, 1)
        row = QHBoxLayout()
        row.addWidget(QLabel("Reference labels:"))
        self.reference = QComboBox()
        self.reference.setToolTip(
            "The labels the metrics compare with: the file's own, or a categorical metadata column"
        )
        self.reference.activated.connect(self._on_reference)
        row.addWidget(self.reference, 1)
        layout.addLayout(row)
        self.classes = WrappedLabel()
        self.classes.setObjectName("helpText")
        layout.addWidget(self.classes)

    def set_session(self, session: DataSession, summary: dict) -> None:
        self.session = session
        ds = session.dataset
        text = f"<b>{ds.name}</b> &mdash; {ds.n_samples:,} samples, {ds.n_views} views"
        if ds.source:
            text += f"<br><span style='color:#6b7686'>{ds.source}</span>"
        self.header.setText(text)
        warnings = list(summary.get("warnings", []))
        self.warnings.setText(
            "<br>".join(f"<span style='color:#b26a00'>&#9888; {w}</span>" for w in warnings)
        )
        self.warnings.setVisible(bool(warnings))
        self.table.setRowCount(len(summary["views"]))
        for row, info in enumerate(summary["views"]):
            self._fill_row(row, info)
        classes = summary.get("classes")
        if classes:
            text, full = classes_text(classes, summary.get("class_counts") or [])
            self.classes.setText(text)
            self.classes.setToolTip(full)
        else:
            self.classes.setText("No class labels in this file (metrics unavailable).")
            self.classes.setToolTip("")
        self.ids_info.setText(ids_text(ds, summary))
        self.ids_info.setVisible(bool(self.ids_info.text()))
        self._show_notes(len(warnings))
        self._keep_rows_visible()
        self.show_reference(ds)
        self.update_chosen()

    def _show_notes(self, n_warnings: int) -> None:
        """The fold button names what the notes box holds; no notes: neither is shown."""
        parts = []
        if n_warnings:
            parts.append(f"\u26a0 {n_warnings} warning{'s' if n_warnings > 1 else ''}")
        if ids := self.ids_info.text():
            parts.append("sample ids, missing views" if "Missing views" in ids else "sample ids")
        if not parts:
            self._set_notes_shown(False)
            return
        text = ", ".join(parts)
        self.notes_button.setText(text[0].upper() + text[1:])
        self.notes_button.setStyleSheet("color: #b26a00;" if n_warnings else "")
        self._set_notes_shown(True)

    def _set_notes_shown(self, shown: bool) -> None:
        self.notes_button.setVisible(shown)
        self.notes.setVisible(shown and self.notes_button.isChecked())

    def _on_notes_toggled(self, expanded: bool) -> None:
        self.notes_button.setArrowType(
            Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow
        )
        self.notes.setVisible(expanded and self.notes_button.isVisible())

    def _keep_rows_visible(self) -> None:
        """The table never shrinks below ``min(n_views, MIN_TABLE_ROWS)`` rows."""
        table = self.table
        rows = min(table.rowCount(), MIN_TABLE_ROWS)
        row_h = max((table.rowHeight(r) for r in range(rows)), default=0)
        row_h = max(row_h, table.verticalHeader().defaultSectionSize())
        header = table.horizontalHeader().sizeHint().height()
        scroll = table.horizontalScrollBar().sizeHint().height()  # columns wider than the dock
        table.setMinimumHeight(header + rows * row_h + scroll + 2 * table.frameWidth())

    def show_reference(self, ds) -> None:
        """The reference-label choices: the labels in use, 'none', categorical metadata."""
        combo = self.reference
        combo.blockSignals(True)
        combo.clear()
        current = ds.meta.get("label_variable") if ds.labels is not None else None
        if ds.labels is not None and current not in ds.metadata:
            combo.addItem(f"from the file ({len(ds.class_names)} classes)", FILE_LABELS)
            current = FILE_LABELS
        combo.addItem("none", None)
        for key, kind in ds.metadata_columns().items():
            if kind == "categorical":
                combo.addItem(key, key)
        combo.setCurrentIndex(max(0, combo.findData(current)) if current else 0)
        combo.setEnabled(combo.count() > 1)
        combo.blockSignals(False)

    def _on_reference(self, _index: int) -> None:
        if (key := self.reference.currentData()) != FILE_LABELS:
            self.reference_changed.emit(key)

    def _fill_row(self, row: int, info: dict) -> None:
        session = self.session
        use = QCheckBox()
        use.setChecked(session.included[row])
        use.setToolTip("Include this view in the clustering")
        use.toggled.connect(lambda on, r=row: self._on_include_toggled(r, on))
        cell = QWidget()
        lay = QVBoxLayout(cell)
        lay.setContentsMargins(6, 0, 0, 0)
        lay.addWidget(use)
        self.table.setCellWidget(row, 0, cell)
        n, d = info["shape"]
        storage = info["storage"]
        if storage == "sparse":
            storage += f" ({info['density']:.1%})"
        texts = [
            info["name"],
            f"{n:,} x {d:,}",
            storage,
            f"[{_fmt(info['min'])}, {_fmt(info['max'])}]",
            str(info["zero_rows"]),
        ]
        for col, text in enumerate(texts, start=1):
            item = QTableWidgetItem(text)
            if col == 5 and info["zero_rows"]:
                item.setForeground(Qt.GlobalColor.darkYellow)
                item.setToolTip("Rows that are all zero in this view")
            self.table.setItem(row, col, item)
        combo = QComboBox()
        for method in PREPROCESSORS:
            combo.addItem(method, method)
        combo.setCurrentIndex(max(0, combo.findData(session.methods[row])))
        combo.setToolTip("Preprocessing of this view ('auto' picks one from the data)")
        combo.currentIndexChanged.connect(
            lambda _i, r=row, c=combo: self._on_method_changed(r, c.currentData())
        )
        self.table.setCellWidget(row, 6, combo)

    def update_chosen(self) -> None:
        """Show what 'auto' resolved to, once a worker has preprocessed the views."""
        if self.session is None:
            return
        for row in range(self.table.rowCount()):
            combo = self.table.cellWidget(row, 6)
            chosen = self.session.chosen.get(row)
            idx = combo.findData("auto") if combo is not None else -1
            if idx >= 0:
                shown = chosen.removeprefix("auto: ") if chosen else ""
                combo.setItemText(idx, f"auto \u2192 {shown}" if shown else "auto")

    def _on_include_toggled(self, row: int, on: bool) -> None:
        self.session.included[row] = on
        self.selection_changed.emit()

    def _on_method_changed(self, row: int, method: str) -> None:
        self.session.methods[row] = method
        self.selection_changed.emit()


def ids_text(ds, summary: dict) -> str:
    """Ids per view, shared, missing views and missing-cell notes (data keyed by id)."""
    counts = ds.meta.get("ids_per_view")
    if not counts:
        return ""
    per = ", ".join(f"{c['view']}: {c['ids']:,}" for c in counts)
    shared = summary["complete_samples"]
    text = f"Sample ids: {ds.n_samples:,} in all ({per}); {shared:,} in every view."
    if summary.get("observed_per_view") is not None:
        miss = ", ".join(
            f"{name}: {ds.n_samples - k:,}"
            for name, k in zip(ds.view_names, summary["observed_per_view"], strict=True)
        )
        text += f" Missing views: {miss}."
    return text
