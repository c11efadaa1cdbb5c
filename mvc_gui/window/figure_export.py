"""Figures for papers from the window: the size/DPI/format dialog, and File > Figure..., one
page with the embedding (and its legend), the view weights and the association table.

The table is the widget a tool registered as ``"association"`` (``host.register_figure_part``);
until one is registered, the Selection dock's composition by cluster stands in. A table view
is drawn from its model as text (so SVG and PDF keep the words); any other widget is drawn as
it looks on screen.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QFont, QPainter, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QWidget,
)

from mvc_gui.plots.base import PlotBox
from mvc_gui.plots.figure import FORMATS, FigureSize, paint_table, write_figure

__all__ = ["FigureDialog", "figure_parts_of", "page_size", "write_page"]

FILTERS = {"png": "PNG image (*.png)", "svg": "SVG drawing (*.svg)", "pdf": "PDF (*.pdf)"}
#: File > Figure...'s default page: a two-column journal figure, 180 x 120 mm at 300 DPI
PAGE = FigureSize(180, 120, "mm", 300)


def page_size() -> FigureSize:
    return PAGE


class FigureDialog(QDialog):
    """Format, width x height (pixels or millimetres) and DPI of a figure."""

    def __init__(self, title: str, size: FigureSize, fmt: str = "png", parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        form = QFormLayout(self)
        self.format_box = QComboBox()
        for f in FORMATS:
            self.format_box.addItem(f.upper(), f)
        self.format_box.setCurrentIndex(FORMATS.index(fmt))
        form.addRow("Format:", self.format_box)
        self.width_box, self.height_box = QDoubleSpinBox(), QDoubleSpinBox()
        for box in (self.width_box, self.height_box):
            box.setRange(1, 20_000)
            box.setDecimals(1)
        self.unit_box = QComboBox()
        self.unit_box.addItem("px", "px")
        self.unit_box.addItem("mm", "mm")
        row = QHBoxLayout()
        row.addWidget(self.width_box)
        row.addWidget(QLabel("x"))
        row.addWidget(self.height_box)
        row.addWidget(self.unit_box)
        holder = QWidget()
        holder.setLayout(row)
        row.setContentsMargins(0, 0, 0, 0)
        form.addRow("Size:", holder)
        self.dpi_box = QSpinBox()
        self.dpi_box.setRange(36, 2400)
        self.dpi_box.setToolTip("Dots per inch: printed size = pixels / DPI")
        form.addRow("DPI:", self.dpi_box)
        self.info = QLabel()
        self.info.setObjectName("helpText")
        form.addRow(self.info)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self._unit = size.unit
        self.width_box.setValue(size.width)
        self.height_box.setValue(size.height)
        self.unit_box.setCurrentIndex(0 if size.unit == "px" else 1)
        self.dpi_box.setValue(round(size.dpi))
        self.unit_box.currentIndexChanged.connect(self._on_unit)
        for box in (self.width_box, self.height_box, self.dpi_box):
            box.valueChanged.connect(self._show_info)
        self._show_info()

    def size(self) -> FigureSize:
        return FigureSize(self.width_box.value(), self.height_box.value(),
                          self.unit_box.currentData(), float(self.dpi_box.value()))  # fmt: skip

    @property
    def fmt(self) -> str:
        return self.format_box.currentData()

    def _on_unit(self) -> None:
        """Keep the printed size when the unit changes (numbers converted at the DPI)."""
        new = self.unit_box.currentData()
        if new == self._unit:
            return
        old = FigureSize(self.width_box.value(), self.height_box.value(), self._unit,
                         float(self.dpi_box.value()))  # fmt: skip
        w, h = old.pixels() if new == "px" else old.millimetres()
        self._unit = new
        self.width_box.setValue(w)
        self.height_box.setValue(h)

    def _show_info(self) -> None:
        size = self.size()
        (w, h), (mw, mh) = size.pixels(), size.millimetres()
        self.info.setText(f"{w:,} x {h:,} pixels, {mw:.0f} x {mh:.0f} mm printed")


def figure_parts_of(win) -> dict[str, QWidget]:
    """What File > Figure... places: the embedding, the weights and a table (the registered
    "association" part, else the Selection dock's composition by cluster)."""
    parts: dict[str, QWidget] = {
        "embedding": win.plots["embedding"],
        "weights": win.plots["weights"],
    }
    registered = win.figure_parts()
    if "association" in registered:
        parts["table"] = registered["association"]
    else:
        parts["table"] = win.selection_panel.clusters
    return parts


def write_page(path: str | os.PathLike[str], parts: dict[str, QWidget], size: FigureSize,
               table_title: str = "") -> Path:  # fmt: skip
    """One page: (a) the embedding with its legend on the left, (b) the weights top right,
    (c) the table bottom right; panel letters in bold."""

    def paint(painter: QPainter, rect: QRectF) -> None:
        scale = rect.width() / 1100.0  # the page is laid out as if 1100 px wide
        gap = 14 * scale
        left = QRectF(rect.left(), rect.top(), rect.width() * 0.55, rect.height())
        right_x = left.right() + gap
        right_w = rect.right() - right_x
        top = QRectF(right_x, rect.top(), right_w, rect.height() * 0.45)
        bottom = QRectF(right_x, top.bottom() + gap, right_w, rect.bottom() - top.bottom() - gap)
        for letter, box, part in (("a", left, parts.get("embedding")),
                                  ("b", top, parts.get("weights")),
                                  ("c", bottom, parts.get("table"))):  # fmt: skip
            if part is None:
                continue
            inner = box.adjusted(18 * scale, 0, 0, 0)
            _paint_part(painter, inner, part, scale, table_title if letter == "c" else "")
            _letter(painter, box.topLeft(), letter, scale)

    return write_figure(path, size, paint, "MVC Studio figure")


def _paint_part(painter: QPainter, rect: QRectF, part: QWidget, scale: float, title: str) -> None:
    if isinstance(part, PlotBox):
        part.paint_figure(painter, rect)
    elif isinstance(part, QAbstractItemView) and part.model() is not None:
        paint_table(painter, rect, part.model(), scale, title)
    else:  # any other widget, as it looks on screen, scaled to fit
        w, h = max(part.width(), 1), max(part.height(), 1)
        s = min(rect.width() / w, rect.height() / h)
        painter.save()
        painter.translate(rect.topLeft())
        painter.scale(s, s)
        part.render(painter)
        painter.restore()


def _letter(painter: QPainter, at: QPointF, letter: str, scale: float) -> None:
    font = QFont()
    font.setPixelSize(max(8, round(16 * scale)))
    font.setBold(True)
    painter.save()
    painter.setFont(font)
    painter.setPen(QPen(Qt.GlobalColor.black))
    painter.drawText(QPointF(at.x(), at.y() + font.pixelSize()), letter)
    painter.restore()
