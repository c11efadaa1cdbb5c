"""Confusion matrix of true classes against clusters, clusters ordered by best match."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Signal
from PySide6.QtGui import QFont

from mvc_gui.display import confusion
from mvc_gui.plots.base import PlotBox
from mvc_gui.plots.heatmap_plot import strip_image

__all__ = ["ConfusionPlot"]

MAX_TEXT_CELLS = 400


def _short(count: int) -> str:
    return f"{count / 1000:.1f}k" if count >= 10_000 else str(count)


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
        self._texts: list[pg.TextItem] = []
        self._text_state: dict[int, tuple] = {}  # what each text item shows now
        self.order = np.zeros(0, dtype=np.int64)
        self.class_names: list[str] = []
        self._key: bytes | None = None
        self._font = QFont()
        self._font.setPointSizeF(7.5)
        view.scene().sigMouseClicked.connect(self._on_mouse_clicked)
        self.setToolTip("Click a column to select that cluster in every view")

    def reset(self, class_names: list[str]) -> None:
        self.class_names = list(class_names)
        self._key = None
        self.image.clear()
        self.strip.clear()
        self.highlight.hide()
        for t in self._texts:
            t.setText("")
        self._text_state.clear()

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
        self._draw_counts(counts, norm)

    def _draw_counts(self, counts: np.ndarray, norm: np.ndarray) -> None:
        rows, cols = counts.shape
        cells = rows * cols if rows * cols <= MAX_TEXT_CELLS else 0
        while len(self._texts) < cells:
            t = pg.TextItem("", anchor=(0.5, 0.5))
            t.setFont(self._font)
            self.plot.addItem(t)
            self._texts.append(t)
        # touch only the cells whose text, colour or place changed: re-laying out 100 text
        # items took ~65 ms per labelling on the event loop
        for k, t in enumerate(self._texts):
            if k < cells:
                i, j = divmod(k, cols)
                want = (
                    _short(int(counts[i, j])) if counts[i, j] else "",
                    "#ffffff" if norm[i, j] > 0.55 else "#2b3440",
                    (j + 0.5, i + 0.5),
                )
            else:
                want = ("", None, None)
            have = self._text_state.get(k)
            if have == want:
                continue
            if have is None or have[0] != want[0]:
                t.setText(want[0])
            if want[1] is not None and (have is None or have[1] != want[1]):
                t.setColor(want[1])
            if want[2] is not None and (have is None or have[2] != want[2]):
                t.setPos(*want[2])
            self._text_state[k] = want

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
