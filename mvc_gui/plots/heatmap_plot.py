"""Anchor graph heat map: rows sorted by cluster, columns by dominant cluster (spec §10).

The image arrives pre-aggregated (<= ~1000 rows, see ``mvc_gui.model.aggregations``), so drawing is
cheap at any n. Colour strips on the left and top show the cluster of each row block and
the dominant cluster of each anchor, in the shared cluster colours.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Signal
from PySide6.QtGui import QFont

from mvc_gui.model.aggregations import HeatMap
from mvc_gui.model.palette import NOISE_COLOR, cluster_colors
from mvc_gui.plots.base import PlotBox

__all__ = ["HeatmapPlot", "strip_image"]


def strip_image(clusters: np.ndarray | None, length: int, vertical: bool) -> np.ndarray:
    """An RGB strip (length x 1 or 1 x length) of cluster colours."""
    if clusters is None:
        rgb = np.tile(np.array(NOISE_COLOR, dtype=np.uint8), (length, 1))
    else:
        table = np.array(cluster_colors(int(clusters.max()) + 1), dtype=np.uint8)
        rgb = table[clusters]
    return rgb[:, None, :] if vertical else rgb[None, :, :]


class HeatmapPlot(PlotBox):
    cluster_clicked = Signal(int)  # a row block: its cluster

    def __init__(self, parent=None) -> None:
        view = pg.GraphicsLayoutWidget()
        super().__init__("Anchor graph", view, parent)
        self.plot = view.addPlot(row=0, col=0)
        self.plot.invertY(True)
        self.plot.setLabel("bottom", "anchors")
        self.plot.setLabel("left", "samples")
        self.setToolTip(
            "Rows: samples sorted by cluster (averaged to <= 1000 rows); columns: "
            "anchors sorted by the cluster holding most of their weight. Click a block of "
            "rows to select its cluster (Shift adds, Ctrl subtracts)"
        )
        self.plot.hideButtons()
        small = QFont()
        small.setPointSizeF(7.5)
        for axis in ("left", "bottom"):
            self.plot.getAxis(axis).setStyle(tickFont=small)
        self.image = pg.ImageItem()
        self.image.setColorMap(pg.colormap.get("viridis"))
        self.plot.addItem(self.image)
        self.rows_strip = pg.ImageItem()
        self.cols_strip = pg.ImageItem()
        self.plot.addItem(self.rows_strip)
        self.plot.addItem(self.cols_strip)
        # the colour bar lies under the map: beside it, in a ~160 px panel, the bar and its
        # numbers took most of the width and squeezed the map into a strip
        self.bar = pg.ColorBarItem(
            colorMap=pg.colormap.get("viridis"), interactive=False, width=8,
            orientation="horizontal",
        )  # fmt: skip
        self.bar.getAxis("bottom").setStyle(tickFont=small)
        self.bar.setToolTip("anchor weight")
        self.bar.setImageItem(self.image)
        view.addItem(self.bar, row=1, col=0)
        self.highlight = pg.QtWidgets.QGraphicsRectItem()
        self.highlight.setPen(pg.mkPen("#d62728", width=2))
        self.highlight.hide()
        self.plot.addItem(self.highlight)
        view.scene().sigMouseMoved.connect(self._on_mouse_moved)
        view.scene().sigMouseClicked.connect(self._on_mouse_clicked)
        self.heat: HeatMap | None = None
        self.clear("Shown when the method\nprovides its graph")

    def clear(self, note: str = "") -> None:
        self.heat = None
        for item in (self.image, self.rows_strip, self.cols_strip):
            item.clear()
        self.highlight.hide()
        # words in place of the plot: an empty map said nothing but its axes
        self.set_note(note.replace("\n", " "), instead=True)
        self.bar.setVisible(False)
        self.plot.getAxis("bottom").setTicks(None)
        self.plot.setRange(xRange=(0, 1), yRange=(0, 1))

    def set_heatmap(self, heat: HeatMap) -> None:
        first = self.heat is None or self.heat.image.shape != heat.image.shape
        self.heat = heat
        self.set_note("")
        self.bar.setVisible(True)
        rows, m = heat.image.shape
        # name only both ends of the anchor axis (crowded numbers ran into each other)
        self.plot.getAxis("bottom").setTicks([[(0, "0"), (m, str(m))]])
        self.image.setImage(heat.image, levels=heat.levels, autoLevels=False)
        self.image.setRect(QRectF(0, 0, m, rows))
        self.bar.setLevels(heat.levels)
        w, h = max(m * 0.025, 0.5), max(rows * 0.025, 0.5)
        self.rows_strip.setImage(
            strip_image(heat.row_cluster, rows, True), autoLevels=False, levels=(0, 255)
        )
        self.rows_strip.setRect(QRectF(-1.5 * w, 0, w, rows))
        self.cols_strip.setImage(
            strip_image(heat.col_cluster, m, False), autoLevels=False, levels=(0, 255)
        )
        self.cols_strip.setRect(QRectF(0, -1.5 * h, m, h))
        if first:
            self.plot.setRange(xRange=(-1.6 * w, m), yRange=(-1.6 * h, rows), padding=0.01)

    def set_highlight(self, cluster: int | None) -> None:
        heat = self.heat
        if cluster is None or heat is None or heat.row_cluster is None:
            self.highlight.hide()
            return
        rows = np.flatnonzero(heat.row_cluster == cluster)
        if not rows.size:
            self.highlight.hide()
            return
        m = heat.image.shape[1]
        self.highlight.setRect(QRectF(0, rows[0], m, rows[-1] - rows[0] + 1))
        self.highlight.show()

    def cluster_at(self, pos: QPointF) -> int | None:
        """The cluster of the block of rows under scene position ``pos``, or None."""
        heat = self.heat
        vb = self.plot.getViewBox()
        if heat is None or heat.row_cluster is None or not vb.sceneBoundingRect().contains(pos):
            return None
        p = vb.mapSceneToView(pos)
        r = int(np.floor(p.y()))
        rows, m = heat.image.shape
        if 0 <= r < rows and -0.1 * m <= p.x() < m:  # the map or the colour strip beside it
            return int(heat.row_cluster[r])
        return None

    def _on_mouse_clicked(self, event) -> None:
        cluster = self.cluster_at(event.scenePos())
        if cluster is not None:
            self.cluster_clicked.emit(cluster)

    def _on_mouse_moved(self, pos: QPointF) -> None:
        if self.heat is not None:
            self.cell_tip(self.plot, pos, self.heat.image.shape, self.cell_text)

    def cell_text(self, r: int, c: int) -> str:
        heat = self.heat
        per = heat.n_samples / heat.image.shape[0]
        text = f"display row {r} (~{per:.0f} samples averaged)\nanchor column {c}"
        if heat.row_cluster is not None:
            text += f"\nrow cluster {heat.row_cluster[r]}, anchor's cluster {heat.col_cluster[c]}"
        return text + f"\nmean weight {heat.image[r, c]:.4g}"
