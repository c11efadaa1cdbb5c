"""Parts of the embedding plot: its view box, layout chooser, colour ramps, the per-point
drawing styles and the hover index.

:func:`point_styles` turns a colouring into one small code per point in O(n) numpy (no sort,
no per-colour index arrays: ~10 ms at a million points); :class:`HoverIndex` builds the
nearest-point tree in a thread (1.5 s at a million points; scipy releases the GIL meanwhile).
"""

from __future__ import annotations

import threading

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QPainterPath
from PySide6.QtWidgets import QComboBox, QGraphicsPathItem, QGraphicsRectItem
from scipy.spatial import cKDTree

from core.numerics.layout_umap import INSTALL_HINT, umap_available
from mvc_gui.model.colouring import N_BINS, Colouring
from mvc_gui.model.palette import NOISE_COLOR
from mvc_gui.model.regions import rect_polygon
from mvc_gui.plots.base import selection_mode
from mvc_gui.run.priority import lower_thread_priority

__all__ = [
    "LASSO", "POINTER", "RECTANGLE", "TOOLS", "HoverIndex", "SelectViewBox", "layout_chooser",
    "point_styles", "ramp",
]  # fmt: skip

RGBA = tuple[int, int, int, int]
#: above this many points the hover tree is built in a thread (below it takes < 20 ms)
TREE_IN_THREAD = 50_000


def ramp(name: str = "viridis") -> list[tuple[int, int, int]]:
    """:data:`N_BINS` colours of a perceptually uniform colour map (numbers, features)."""
    rgba = pg.colormap.get(name).map(np.linspace(0.0, 1.0, N_BINS), mode="byte")
    return [tuple(int(c) for c in row[:3]) for row in rgba]


def point_styles(
    colouring: Colouring | None,
    n: int,
    size: float,
    selected: np.ndarray | None = None,
    shown: np.ndarray | None = None,
) -> tuple[np.ndarray, list[tuple[RGBA, float]]]:
    """``(codes, styles)``: point ``i`` is drawn in ``styles[codes[i] - 1]`` (colour, pixel
    size), not at all when ``codes[i] == 0``; higher codes are drawn on top.

    Samples without a value (grey) go underneath; with a ``selected`` mask the others are
    faint and the selected ones full and 2 px larger (each colour's selected points above its
    faint ones); ``colouring.emphasis`` makes a colour's points 2 px larger; ``shown``
    False hides a point.
    """
    if colouring is None or colouring.codes.shape[0] != n:
        values = np.full(n, -1, dtype=np.int64)  # all grey (palette index 0)
        palette, big = [NOISE_COLOR], np.zeros(1, dtype=bool)
    else:
        values = colouring.codes  # + 1 below: into the palette; 0: no value (grey), underneath
        palette = [NOISE_COLOR, *colouring.colours]
        big = np.zeros(len(palette), dtype=bool)
        if colouring.emphasis is not None:
            big[values[np.asarray(colouring.emphasis, dtype=bool)] + 1] = True
    widths = [size + 2 if b else size for b in big]
    picked = selected is not None and selected.shape[0] == n
    if picked:
        styles = []
        for rgb, px in zip(palette, widths, strict=True):
            styles += [((*rgb, 45), px), ((*rgb, 255), px + 2)]
    else:
        styles = [((*rgb, 255), px) for rgb, px in zip(palette, widths, strict=True)]
    # written straight into the small code type (modulo its size: value -1 is grey): one
    # pass per step over a million points, no int64 temporaries (this runs on the GUI thread
    # at every new labelling)
    codes = np.empty(n, dtype=np.uint16 if len(styles) < 2**16 else np.uint32)
    if picked:  # 2 * (value + 1) + selected + 1
        np.multiply(values, 2, out=codes, casting="unsafe")
        codes += 3
        codes += selected
    else:  # value + 2
        np.add(values, 2, out=codes, casting="unsafe")
    if shown is not None and shown.shape[0] == n:
        codes[~shown] = 0
    return codes, styles


class HoverIndex:
    """The nearest drawn point to the mouse; for many points the tree is built in a thread
    (``nearest`` answers None until it is ready) so hovering never freezes the window."""

    def __init__(self, xy: np.ndarray) -> None:
        self._tree: cKDTree | None = None
        if len(xy) < TREE_IN_THREAD:
            self._tree = cKDTree(xy)
        else:
            threading.Thread(target=self._build, args=(xy,), daemon=True).start()

    def _build(self, xy: np.ndarray) -> None:
        lower_thread_priority()
        self._tree = cKDTree(xy)

    def nearest(self, x: float, y: float) -> tuple[float, int] | None:
        tree = self._tree
        if tree is None:
            return None
        dist, i = tree.query([x, y])
        return float(dist), int(i)


#: what a left drag on the embedding does: pan (Shift: a rectangle), a rectangle, a lasso
POINTER, RECTANGLE, LASSO = "pointer", "rectangle", "lasso"
TOOLS = (POINTER, RECTANGLE, LASSO)
#: a lasso takes a vertex when the mouse has moved this many screen pixels
LASSO_STEP_PX = 3.0


class SelectViewBox(pg.ViewBox):
    """Pans and zooms as usual in the pointer tool (Shift+drag draws a rectangle); in the
    rectangle and lasso tools a left drag draws that shape. The drawn region is emitted in
    data coordinates with how it combines with the selection (the modifiers held when the
    mouse is released: none replaces, Shift adds, Ctrl subtracts)."""

    rect_selected = Signal(object)  # a QRectF to select (replacing the selection)
    region_drawn = Signal(object, str, str)  # polygon (m x 2, data), mode, "rectangle"/"lasso"
    clicked = Signal(float, float, str)  # a left click without a drag: data x, y, mode

    def __init__(self) -> None:
        super().__init__()
        self.tool = POINTER
        pen = pg.mkPen("#2b3440", width=1, style=Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        self._band = QGraphicsRectItem()
        self._lasso = QGraphicsPathItem()
        for item in (self._band, self._lasso):
            item.setPen(pen)
            item.setBrush(pg.mkBrush(43, 52, 64, 30))
            item.setZValue(1e9)
            item.hide()
            self.addItem(item, ignoreBounds=True)
        self._points: list[tuple[float, float]] = []
        self._last_px: QPointF | None = None

    def set_tool(self, tool: str) -> None:
        if tool not in TOOLS:
            raise ValueError(f"unknown tool {tool!r}: one of {', '.join(TOOLS)}")
        self.tool = tool
        self.setMouseEnabled(True, True)

    def mouseClickEvent(self, ev) -> None:
        if ev.button() == Qt.MouseButton.LeftButton:
            ev.accept()
            p = self.mapSceneToView(ev.scenePos())
            self.clicked.emit(p.x(), p.y(), selection_mode(ev.modifiers()))
            return
        super().mouseClickEvent(ev)

    def mouseDragEvent(self, ev, axis=None):
        shift = bool(ev.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        if ev.button() != Qt.MouseButton.LeftButton or (self.tool == POINTER and not shift):
            super().mouseDragEvent(ev, axis)
            return
        ev.accept()
        shape = LASSO if self.tool == LASSO else RECTANGLE
        a = self.mapSceneToView(ev.buttonDownScenePos())
        b = self.mapSceneToView(ev.scenePos())
        if shape == RECTANGLE:
            rect = QRectF(a, b).normalized()
            self._band.setRect(rect)
            self._band.setVisible(not ev.isFinish())
            polygon = rect_polygon(a.x(), a.y(), b.x(), b.y())
        else:
            if ev.isStart() or not self._points:
                self._points = [(a.x(), a.y())]
                self._last_px = ev.buttonDownScenePos()
            d = ev.scenePos() - self._last_px
            if ev.isFinish() or (d.x() ** 2 + d.y() ** 2) >= LASSO_STEP_PX**2:
                self._points.append((b.x(), b.y()))
                self._last_px = ev.scenePos()
            path = QPainterPath(QPointF(*self._points[0]))
            for x, y in self._points[1:]:
                path.lineTo(x, y)
            path.closeSubpath()
            self._lasso.setPath(path)
            self._lasso.setVisible(not ev.isFinish())
            polygon = np.array(self._points, dtype=np.float64)
        if ev.isFinish():
            self._points = []
            self.region_drawn.emit(polygon, selection_mode(ev.modifiers()), shape)


def layout_chooser() -> QComboBox:
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
