"""Dataset panel: what was loaded, per view facts, include/exclude and preprocessing."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mvc_gui.model.data_session import PREPROCESSORS, DataSession

__all__ = ["DatasetPanel"]

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


def _fmt(x: float) -> str:
    return f"{x:.3g}"


class DatasetPanel(QWidget):
    """Shows a :class:`DataSession`; edits its ``included``/``methods`` in place."""

    selection_changed = Signal()

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
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        for col, tip in enumerate(COLUMN_TIPS):
            self.table.horizontalHeaderItem(col).setToolTip(tip)
        layout.addWidget(self.table, 1)
        self.classes = QLabel()
        self.classes.setWordWrap(True)
        self.classes.setObjectName("helpText")
        layout.addWidget(self.classes)

    def set_session(self, session: DataSession, summary: dict) -> None:
        self.session = session
        ds = session.dataset
        text = f"<b>{ds.name}</b> &mdash; {ds.n_samples:,} samples, {ds.n_views} views"
        if ds.source:
            text += f"<br><span style='color:#6b7686'>{ds.source}</span>"
        for w in summary.get("warnings", []):
            text += f"<br><span style='color:#b26a00'>&#9888; {w}</span>"
        self.header.setText(text)
        self.table.setRowCount(len(summary["views"]))
        for row, info in enumerate(summary["views"]):
            self._fill_row(row, info)
        classes = summary.get("classes")
        if classes:
            counts = summary.get("class_counts") or []
            items = ", ".join(f"{c} ({k})" for c, k in zip(classes, counts, strict=False))
            self.classes.setText(f"<b>{len(classes)} classes:</b> {items}")
        else:
            self.classes.setText("No class labels in this file (metrics unavailable).")
        self.update_chosen()

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
