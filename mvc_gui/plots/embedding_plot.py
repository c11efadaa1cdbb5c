"""Embedding: the t-SNE layout coloured by cluster (or true label), hover, rectangle select.

Points are drawn by :class:`FastScatter` (one drawPoints call per colour), so a new frame
only refills coordinates and a re-colouring only regroups indices. Shift+drag selects a
rectangle; the selection is drawn on top, the rest dimmed.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QComboBox, QGraphicsRectItem, QToolTip
from scipy.spatial import cKDTree

from core.numerics.layout_umap import INSTALL_HINT, umap_available
from mvc_gui.model.palette import NOISE_COLOR, cluster_colors
from mvc_gui.plots.base import PlotBox
from mvc_gui.plots.fast_scatter import FastScatter

__all__ = ["EmbeddingPlot"]


class _SelectViewBox(pg.ViewBox):
    """Pans/zooms as usual; Shift+drag draws a selection rectangle."""

    rect_selected = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self._band = QGraphicsRectItem()
        self._band.setPen(pg.mkPen("#2b3440", width=1, style=Qt.PenStyle.DashLine))
        self._band.setBrush(pg.mkBrush(43, 52, 64, 30))
        self._band.setZValue(1e9)
        self._band.hide()
        self.addItem(self._band, ignoreBounds=True)

    def mouseDragEvent(self, ev, axis=None):
        if ev.button() == Qt.MouseButton.LeftButton and (
            ev.modifiers() & Qt.KeyboardModifier.ShiftModifier
        ):
            ev.accept()
            a = self.mapSceneToView(ev.buttonDownScenePos())
            b = self.mapSceneToView(ev.scenePos())
            rect = QRectF(a, b).normalized()
            self._band.setRect(rect)
            self._band.setVisible(not ev.isFinish())
            if ev.isFinish():
                self.rect_selected.emit(rect)
            return
        super().mouseDragEvent(ev, axis)


def _layout_chooser() -> QComboBox:
    """ "t-SNE" / "UMAP"; UMAP is greyed out, with how to install it, without umap-learn."""
    box = QComboBox()
    box.addItem("t-SNE", "tsne")
    box.addItem("UMAP", "umap")
    tip = (
        "2-D layout: t-SNE (openTSNE; above 20,000 samples started from a subsample's layout "
        "and refined) or UMAP (umap-learn)"
    )
    if not umap_available():
        box.model().item(1).setEnabled(False)
        box.setItemData(1, INSTALL_HINT, Qt.ItemDataRole.ToolTipRole)
        tip += f".\n{INSTALL_HINT}"
    box.setToolTip(tip)
    return box


class EmbeddingPlot(PlotBox):
    rect_selected = Signal(object)  # indices inside the rectangle
    layout_method_changed = Signal(str)  # "tsne" or "umap"

    def __init__(self, parent=None) -> None:
        self.vb = _SelectViewBox()
        view = pg.PlotWidget(viewBox=self.vb)
        super().__init__("Embedding (t-SNE)", view, parent)
        self.plot = view.getPlotItem()
        self.plot.hideAxis("left")
        self.plot.hideAxis("bottom")
        self.plot.setAspectLocked(True)
        self.colour_by = QComboBox()
        self.colour_by.addItems(["clusters", "true labels"])
        self.colour_by.setToolTip("Colour points by the current clusters or the true labels")
        self.colour_by.currentIndexChanged.connect(self._recolour)
        self.add_control(self.colour_by)
        self.layout_method = _layout_chooser()
        self.layout_method.currentIndexChanged.connect(self._on_layout_method)
        self.add_control(self.layout_method)
        self.message = pg.TextItem("", color="#6b7686", anchor=(0.5, 0.5))
        self.plot.addItem(self.message, ignoreBounds=True)
        self.vb.rect_selected.connect(self._on_rect_selected)
        view.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.xy: np.ndarray | None = None
        self.labels: np.ndarray | None = None
        self.true_labels: np.ndarray | None = None
        self.class_names: list[str] = []
        #: the samples' ids shown on hover (set by the presenter; None: 1..n)
        self.sample_ids: np.ndarray | None = None
        self.selected: np.ndarray | None = None
        self.scatter = FastScatter()
        self.plot.addItem(self.scatter)
        self._groups: list[np.ndarray] = []
        self._styles: list[tuple[QColor, float]] = []
        self._tree: cKDTree | None = None

    def _on_layout_method(self, _index: int) -> None:
        self.title.setText(f"Embedding ({self.layout_method.currentText()})")
        self.layout_method_changed.emit(self.layout_method.currentData())

    # -- data -------------------------------------------------------------------------------
    def reset(self, true_labels: np.ndarray | None, class_names: list[str], note: str) -> None:
        self.xy, self.labels, self._tree, self.selected = None, None, None, None
        self.true_labels = true_labels
        self.class_names = class_names
        self.colour_by.setEnabled(true_labels is not None)
        if true_labels is None:
            self.colour_by.setCurrentIndex(0)
        self._set_groups([], [])
        self.show_message(note)

    def show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))
        if text:
            r = self.vb.viewRect()
            self.message.setPos(r.center())

    def set_layout(self, xy: np.ndarray, final: bool = False) -> None:
        first = self.xy is None
        self.xy = np.asarray(xy, dtype=float)
        self._tree = None
        if first:
            self._recolour()
            self.show_message("")
        else:
            self._move()
        if first or final:
            self.vb.enableAutoRange()

    def set_labels(self, labels: np.ndarray | None) -> None:
        if labels is not None and self.labels is not None and np.array_equal(labels, self.labels):
            return
        self.labels = labels
        if self.colour_by.currentIndex() == 0:
            self._recolour()

    def set_selection(self, mask: np.ndarray | None) -> None:
        self.selected = mask
        self._recolour()

    # -- drawing ----------------------------------------------------------------------------
    def _colour_labels(self) -> np.ndarray | None:
        if self.colour_by.currentIndex() == 1 and self.true_labels is not None:
            return self.true_labels
        return self.labels

    def _recolour(self) -> None:
        if self.xy is None:
            return
        n = self.xy.shape[0]
        labels = self._colour_labels()
        size = 6 if n < 3000 else 4 if n < 30000 else 3
        specs: list[tuple[np.ndarray, QColor, float]] = []
        dim = self.selected is not None and self.selected.shape[0] == n
        if labels is None or labels.shape[0] != n:
            specs.append((np.arange(n), QColor(*NOISE_COLOR), size))
        else:
            k = int(labels.max()) + 1
            # small non-negative ints: a 16-bit stable sort is a radix sort (~3x faster)
            keys = labels.astype(np.int16) if k < 2**15 and labels.min() >= 0 else labels
            order = np.argsort(keys, kind="stable")
            bounds = np.searchsorted(keys[order], np.arange(k + 1))
            colours = cluster_colors(k)
            for c in range(k):
                idx = order[bounds[c] : bounds[c + 1]]
                if dim:
                    specs.append((idx[~self.selected[idx]], QColor(*colours[c], 45), size))
                    specs.append((idx[self.selected[idx]], QColor(*colours[c]), size + 2))
                elif idx.size:
                    specs.append((idx, QColor(*colours[c]), size))
        self._set_groups([s[0] for s in specs], [(s[1], s[2]) for s in specs])

    def _set_groups(self, groups: list[np.ndarray], styles: list[tuple[QColor, float]]) -> None:
        self._groups, self._styles = groups, styles
        self._move()

    def _move(self) -> None:
        if self.xy is not None:
            self.scatter.set_points(self.xy, self._groups, self._styles)

    # -- interaction ------------------------------------------------------------------------
    def _on_rect_selected(self, rect: QRectF) -> None:
        if self.xy is None:
            return
        x, y = self.xy[:, 0], self.xy[:, 1]
        inside = (x >= rect.left()) & (x <= rect.right()) & (y >= rect.top()) & (y <= rect.bottom())
        self.rect_selected.emit(np.flatnonzero(inside))

    def _on_mouse_moved(self, pos: QPointF) -> None:
        if self.xy is None or not self.vb.sceneBoundingRect().contains(pos):
            return
        p = self.vb.mapSceneToView(pos)
        if self._tree is None:
            self._tree = cKDTree(self.xy)
        px = self.vb.viewPixelSize()
        dist, i = self._tree.query([p.x(), p.y()])
        if dist > 6 * max(px[0], px[1]):
            QToolTip.hideText()
            return
        ids = self.sample_ids
        text = f"sample {ids[i]}" if ids is not None and i < len(ids) else f"sample {i + 1}"
        if self.labels is not None and i < self.labels.size:
            text += f"\ncluster {self.labels[i]}"
        if self.true_labels is not None:
            t = int(self.true_labels[i])
            name = self.class_names[t] if t < len(self.class_names) else str(t)
            text += f"\ntrue label {name}"
        view = self.view
        QToolTip.showText(view.mapToGlobal(view.mapFromScene(pos)), text, view)
