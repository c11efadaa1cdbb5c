"""Confusion matrix of true classes against clusters, clusters ordered by best match."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPen

from mvc_gui.model.aggregations import confusion
from mvc_gui.plots.base import PlotBox
from mvc_gui.plots.heatmap_plot import strip_image

__all__ = ["ConfusionPlot"]

MAX_TEXT_CELLS = 400


def _short(count: int) -> str:
    return f"{count / 1000:.1f}k" if count >= 10_000 else str(count)


class CountsItem(pg.GraphicsObject):
    """All cell counts of the matrix in one item: one paint call draws every number.

    100 separate TextItems cost ~60 ms to create and lay out on the event loop, and every
    one of them is repainted (and re-mapped to device coordinates) in each paint cycle.
    Here the texts are plain strings, drawn in device pixels (so they keep their size
    under the view's scaling) and centred on their cells.
    """

    def __init__(self, font: QFont) -> None:
        super().__init__()
        self._font = font
        self._metrics = QFontMetricsF(font)
        self._cells: list[tuple[float, float, str, bool]] = []  # x, y, text, light
        self._bounds = QRectF()
        self._pens = (QPen(QColor("#2b3440")), QPen(QColor("#ffffff")))

    def set_cells(self, counts: np.ndarray, norm: np.ndarray) -> None:
        rows, cols = counts.shape
        cells = []
        if rows * cols <= MAX_TEXT_CELLS:
            for i, j in zip(*(a.tolist() for a in np.nonzero(counts)), strict=True):
                light = bool(norm[i, j] > 0.55)
                cells.append((j + 0.5, i + 0.5, _short(int(counts[i, j])), light))
        if cells == self._cells:
            return
        self.prepareGeometryChange()
        self._cells = cells
        self._bounds = QRectF(0, 0, cols, rows) if cells else QRectF()
        self.update()

    def clear(self) -> None:
        self.set_cells(np.zeros((0, 0)), np.zeros((0, 0)))

    def texts(self) -> list[str]:
        return [c[2] for c in self._cells]

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter, option, widget=None) -> None:
        if not self._cells:
            return
        t = painter.transform()
        painter.resetTransform()
        painter.setFont(self._font)
        fm = self._metrics
        h = fm.ascent() - fm.descent()
        for light in (False, True):
            painter.setPen(self._pens[light])
            for x, y, text, lt in self._cells:
                if lt is light:
                    p = t.map(QPointF(x, y))
                    painter.drawText(
                        QPointF(p.x() - fm.horizontalAdvance(text) / 2, p.y() + h / 2), text
                    )
        painter.setTransform(t)


class ConfusionPlot(PlotBox):
    cluster_clicked = Signal(int)

    def __init__(self, parent=None) -> None:
        view = pg.PlotWidget()
        super().__init__("Confusion (true class x cluster)", view, parent)
        self.plot = view.getPlotItem()
        self.plot.invertY(True)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.setLabel("bottom", "cluster")
        self.plot.setLabel("left", "true class")
        self.image = pg.ImageItem()
        self.image.setColorMap(pg.colormap.get("CET-L12"))  # light blues
        self.plot.addItem(self.image)
        self.strip = pg.ImageItem()
        self.plot.addItem(self.strip)
        self.highlight = pg.QtWidgets.QGraphicsRectItem()
        self.highlight.setPen(pg.mkPen("#d62728", width=2))
        self.highlight.hide()
        self.plot.addItem(self.highlight)
        self._font = QFont()
        self._font.setPointSizeF(7.5)
        self.counts = CountsItem(self._font)
        self.plot.addItem(self.counts)
        self.order = np.zeros(0, dtype=np.int64)
        self.class_names: list[str] = []
        self._key: bytes | None = None
        view.scene().sigMouseClicked.connect(self._on_mouse_clicked)
        self.setToolTip("Click a column to select that cluster in every view")

    def reset(self, class_names: list[str]) -> None:
        self.class_names = list(class_names)
        self._key = None
        self.image.clear()
        self.strip.clear()
        self.highlight.hide()
        self.counts.clear()

    def set_labels(self, true_labels: np.ndarray, labels: np.ndarray, n_clusters: int) -> None:
        key = labels.tobytes()
        if key == self._key:
            return
        self._key = key
        counts, order = confusion(true_labels, labels, len(self.class_names), n_clusters)
        self.order = order
        counts = counts[:, order]
        norm = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
        rows, cols = counts.shape
        self.image.setImage(norm.astype(np.float32), levels=(0, 1), autoLevels=False)
        self.image.setRect(QRectF(0, 0, cols, rows))
        self.strip.setImage(strip_image(order, cols, False), autoLevels=False, levels=(0, 255))
        self.strip.setRect(QRectF(0, -0.35, cols, 0.25))
        self.plot.getAxis("bottom").setTicks([[(j + 0.5, str(c)) for j, c in enumerate(order)]])
        names = self.class_names
        self.plot.getAxis("left").setTicks([[(i + 0.5, names[i]) for i in range(rows)]])
        self.plot.setRange(xRange=(0, cols), yRange=(-0.4, rows), padding=0.02)
        self.counts.set_cells(counts, norm)

    def set_highlight(self, cluster: int | None) -> None:
        hits = np.flatnonzero(self.order == cluster) if cluster is not None else []
        if len(hits) == 0 or self._key is None:
            self.highlight.hide()
            return
        rows = len(self.class_names)
        self.highlight.setRect(QRectF(float(hits[0]), 0, 1, rows))
        self.highlight.show()

    def _on_mouse_clicked(self, event) -> None:
        if self._key is None:
            return
        p = self.plot.getViewBox().mapSceneToView(event.scenePos())
        j = int(np.floor(p.x()))
        if 0 <= j < self.order.size and -0.4 <= p.y() <= len(self.class_names):
            self.cluster_clicked.emit(int(self.order[j]))
