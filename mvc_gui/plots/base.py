"""PlotBox: a titled frame around a plot, with an export button (PNG at 2x or SVG)."""

from __future__ import annotations

import os
from pathlib import Path

import pyqtgraph as pg
import pyqtgraph.exporters as pgx
from PySide6.QtCore import QBuffer, QIODevice, QRectF, QSize, Qt
from PySide6.QtGui import QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from core.data.atomic import atomic_path, atomic_write
from mvc_gui.resources import icon

__all__ = ["PlotBox", "export_item"]


def export_item(path: str | os.PathLike[str], item: object) -> Path:
    """Write a plot (a GraphicsScene item) to PNG (2x) or SVG atomically."""
    target = Path(path)
    if target.suffix.lower() == ".svg":
        return atomic_write(target, _svg_text(item))
    exporter = pgx.ImageExporter(item)
    width = int(exporter.params["width"])
    exporter.params["width"] = max(2 * width, 2)
    image = exporter.export(toBytes=True)
    with atomic_path(target, suffix=".png") as tmp:
        if not image.save(str(tmp), "PNG"):
            raise OSError(f"could not write {target}")
    return target


def _svg_text(item: object) -> str:
    """SVG of a scene item, rendered by QSvgGenerator (pyqtgraph 0.14's SVGExporter cannot
    parse the path syntax Qt 6.12 writes)."""
    scene = item.scene()
    rect = item.sceneBoundingRect()
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    gen = QSvgGenerator()
    gen.setOutputDevice(buffer)
    gen.setSize(QSize(int(rect.width()), int(rect.height())))
    gen.setViewBox(QRectF(0, 0, rect.width(), rect.height()))
    painter = QPainter(gen)
    try:
        scene.render(painter, QRectF(0, 0, rect.width(), rect.height()), rect)
    finally:
        painter.end()
    return bytes(buffer.data()).decode("utf-8")


class PlotBox(QFrame):
    """Title bar (title, extra controls, export button) above a pyqtgraph widget."""

    def __init__(self, title: str, view: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("plotBox")
        self.view = view
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 4)
        layout.setSpacing(2)
        bar = QHBoxLayout()
        self.title = QLabel(title)
        self.title.setObjectName("plotTitle")
        bar.addWidget(self.title)
        bar.addStretch(1)
        self.controls = bar
        self.export_button = QToolButton()
        self.export_button.setIcon(icon("export"))
        self.export_button.setToolTip(f"Export '{title}' as PNG or SVG")
        self.export_button.setAutoRaise(True)
        bar.addWidget(self.export_button)
        layout.addLayout(bar)
        # why the panel shows nothing, or what it shows instead (words, never clipped)
        self.note = QLabel("")
        self.note.setObjectName("plotNote")
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #5b6573;")
        self.note.hide()
        layout.addWidget(self.note)
        layout.addWidget(view, 1)
        self._layout = layout

    def set_note(self, text: str, instead: bool = False) -> None:
        """A sentence under the title (hidden when empty); ``instead``: the panel has nothing
        to plot and the sentence takes the plot's place (no empty axes)."""
        if self.note.text() != text:
            self.note.setText(text)
        self.note.setVisible(bool(text))
        self.show_plot(not (instead and text))

    def show_plot(self, shown: bool) -> None:
        """The plot, or (hidden) the note alone, centred where the plot was."""
        if self.view.isHidden() != shown:
            return
        self.view.setVisible(shown)
        align = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop
        self.note.setAlignment(align if shown else Qt.AlignmentFlag.AlignCenter)
        self._layout.setStretchFactor(self.note, 0 if shown else 1)

    @property
    def plot_shown(self) -> bool:
        """False while a note stands in for the plot."""
        return not self.view.isHidden()

    def add_control(self, widget: QWidget) -> None:
        self.controls.insertWidget(self.controls.count() - 1, widget)

    def scene_item(self) -> object:
        """What to export: the whole graphics layout/plot of the view."""
        if isinstance(self.view, pg.GraphicsLayoutWidget):
            return self.view.ci
        if isinstance(self.view, pg.PlotWidget):
            return self.view.getPlotItem()
        return self.view.scene()
