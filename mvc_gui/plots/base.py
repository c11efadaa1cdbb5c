"""PlotBox: a titled frame around a plot, with an export button (PNG, SVG or PDF at a chosen
size and DPI, with the plot's legend: :mod:`mvc_gui.plots.figure`)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pyqtgraph.exporters as pgx
from PySide6.QtCore import QBuffer, QIODevice, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from core.data.atomic import atomic_path, atomic_write
from mvc_gui.plots.figure import (
    SCREEN_DPI,
    FigureSize,
    Legend,
    legend_height,
    paint_legend,
    paint_scene,
    write_figure,
)
from mvc_gui.resources import icon

__all__ = ["ADD", "MODES", "REPLACE", "SUBTRACT", "PlotBox", "export_item", "selection_mode"]

#: how a pick combines with the selection: none replaces, Shift adds, Ctrl (Cmd) subtracts
REPLACE, ADD, SUBTRACT = "replace", "add", "subtract"
MODES = (REPLACE, ADD, SUBTRACT)


def selection_mode(modifiers: Qt.KeyboardModifier) -> str:
    """How a pick made with ``modifiers`` held combines with the selection."""
    if modifiers & Qt.KeyboardModifier.ShiftModifier:
        return ADD
    if modifiers & Qt.KeyboardModifier.ControlModifier:  # Cmd on macOS (Qt maps it)
        return SUBTRACT
    return REPLACE


def export_item(path: str | os.PathLike[str], item: object, size: FigureSize | None = None) -> Path:
    """Write a plot (a GraphicsScene item) atomically: PNG (2x) or SVG as on screen, or PDF,
    or any of them at ``size``."""
    target = Path(path)
    ext = target.suffix.lower()
    if size is not None or ext == ".pdf":
        rect = item.sceneBoundingRect()
        size = size or FigureSize(max(rect.width(), 1), max(rect.height(), 1), "px", SCREEN_DPI)
        return write_figure(target, size, lambda painter, r: paint_scene(painter, r, item))
    if ext == ".svg":
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
        self.export_button.setToolTip(
            f"Export '{title}' as a figure: PNG, SVG or PDF at a chosen size and DPI"
        )
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

    def cell_tip(self, plot: pg.PlotItem, pos: QPointF, shape: tuple[int, int], text) -> None:
        """A tooltip ``text(row, column)`` for the image cell of a ``shape`` grid under the
        scene position ``pos`` (the cells: unit squares from the origin); hidden off it."""
        vb = plot.getViewBox()
        if not vb.sceneBoundingRect().contains(pos):
            return
        p = vb.mapSceneToView(pos)
        r, c = int(np.floor(p.y())), int(np.floor(p.x()))
        if not (0 <= r < shape[0] and 0 <= c < shape[1]):
            QToolTip.hideText()
            return
        view = self.view
        QToolTip.showText(view.mapToGlobal(view.mapFromScene(pos)), text(r, c), view)

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

    # -- figures ----------------------------------------------------------------------------
    def figure_legend(self) -> Legend | None:
        """The legend drawn under the plot in a figure (None: the plot carries its own)."""
        return None

    def default_figure_size(self, fmt: str = "png") -> FigureSize:
        """The plot as on screen (PNG: at twice the pixels, 192 DPI), with room for its
        legend."""
        rect = self.scene_item().sceneBoundingRect()
        w, h = max(rect.width(), 50.0), max(rect.height(), 50.0)
        h += legend_height(self.figure_legend(), w, 1.0)
        if fmt == "png":
            return FigureSize(2 * w, 2 * h, "px", 2 * SCREEN_DPI)
        return FigureSize(w, h, "px", SCREEN_DPI)

    def paint_figure(self, painter, rect: QRectF) -> None:
        """The plot scaled into ``rect`` with its legend below it (or, when a sentence
        stands in for the plot, that sentence)."""
        if not self.plot_shown:
            painter.save()
            painter.setPen(pg.mkPen("#5b6573"))
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                             self.note.text())  # fmt: skip
            painter.restore()
            return
        item = self.scene_item()
        source = item.sceneBoundingRect()
        if source.width() <= 0 or source.height() <= 0:
            return
        legend = self.figure_legend()
        scale = min(rect.width() / source.width(), rect.height() / source.height())
        below = legend_height(legend, rect.width(), scale)
        plot_rect = QRectF(rect.left(), rect.top(), rect.width(), max(rect.height() - below, 1))
        paint_scene(painter, plot_rect, item)
        if legend is not None:
            drawn = min(plot_rect.width() / source.width(), plot_rect.height() / source.height())
            top = plot_rect.center().y() + source.height() * drawn / 2
            paint_legend(painter, QRectF(rect.left(), top, rect.width(), below), legend, scale)

    def export_figure(self, path: str | os.PathLike[str], size: FigureSize | None = None) -> Path:
        """Write the plot and its legend as PNG, SVG or PDF (by the suffix) at ``size``
        (None: as on screen)."""
        fmt = Path(path).suffix.lower().lstrip(".")
        return write_figure(path, size or self.default_figure_size(fmt), self.paint_figure,
                            self.title.text())  # fmt: skip

    def scene_item(self) -> object:
        """What to export: the whole graphics layout/plot of the view."""
        if isinstance(self.view, pg.GraphicsLayoutWidget):
            return self.view.ci
        if isinstance(self.view, pg.PlotWidget):
            return self.view.getPlotItem()
        return self.view.scene()
