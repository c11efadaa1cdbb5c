"""FastScatter: draws many points without a Python loop per point.

pyqtgraph's ScatterPlotItem spends ~0.3 s of Python per 100k points in ``setData`` (one atlas
lookup per point), which would freeze the window at every animation frame. Here each point
carries one small style code (colour and size; higher codes on top).

* Small sets (and non-raster painters, e.g. SVG export) are stroked group by group with
  QPainter.drawPoints from a QPolygonF filled by numpy: round antialiased dots.
* Larger sets are rasterised into an ARGB image by :func:`mvc_gui.plots.raster.splat` (square
  dots, one pass over the points). From :data:`ASYNC` points on, a view's repaint only blits
  the newest finished image (the previous one, moved to the new pan/zoom, while the next one
  renders in a :class:`~mvc_gui.plots.raster.Renderer` thread): drawing a million points no
  longer blocks the window (it did for 0.3-0.5 s per frame).
"""

from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
from pyqtgraph import functions as fn
from PySide6.QtCore import QPointF, QRectF, Qt, Slot
from PySide6.QtGui import QColor, QImage, QPen, QTransform

from mvc_gui.plots.raster import Renderer, premultiplied_argb, rasterise, warm_up

__all__ = ["FastScatter"]

LARGE = 3_000  # from here: square dots rasterised with numba (antialiased round ones below)
HUGE = 500_000  # from here: 1-pixel dots
ASYNC = 100_000  # from here: rendered off the GUI thread when painting a view


class FastScatter(pg.GraphicsObject):
    #: False: always render on the calling thread (e.g. to grab a finished picture)
    render_in_thread = True

    def __init__(self) -> None:
        super().__init__()
        warm_up()  # the compiled kernel, loaded before the first large frame needs it
        self._xy = np.zeros((0, 2))
        self._codes = np.zeros(0, dtype=np.uint16)  # per point: 1 + its style, 0: hidden
        self._colours: list[QColor] = []
        self._argb = np.zeros(0, dtype=np.uint32)  # premultiplied, per style
        self._widths = np.zeros(0)  # pixel size per style
        self._version = 0
        self._bounds = QRectF()
        self._range = np.zeros((2, 2))  # min and max per axis, computed once per frame
        self._image: tuple[tuple, QImage, np.ndarray] | None = None  # (key, image, pixels)
        self._renderer: Renderer | None = None

    def set_points(
        self,
        xy: np.ndarray,
        codes: np.ndarray,
        styles: list[tuple[tuple[int, int, int, int] | QColor, float]],
    ) -> None:
        """Point ``i`` at ``xy[i]`` drawn in ``styles[codes[i] - 1]`` = (colour, pixel size);
        ``codes[i] == 0`` hides it; points of higher codes are drawn on top. ``codes`` and
        ``xy`` are kept, not copied: pass new arrays rather than changing them."""
        self.prepareGeometryChange()
        if codes is not self._codes:
            self._colours = [c if isinstance(c, QColor) else QColor(*c) for c, _ in styles]
            self._argb = np.array(
                [premultiplied_argb(c.getRgb()) for c in self._colours], dtype=np.uint32
            )
            self._widths = np.array([float(px) for _, px in styles])
        moved = xy is not self._xy  # a recolouring keeps the points: same bounds
        self._xy, self._codes = xy, codes
        self._version += 1
        if not moved:
            self.update()
            return
        lo_hi = _range(xy)
        if np.isfinite(lo_hi).all():
            self._range = lo_hi
            (x0, y0), (x1, y1) = lo_hi
            self._bounds = QRectF(x0, y0, x1 - x0, y1 - y0)
        else:
            self._bounds = QRectF()
        self.informViewBoundsChanged()  # lets the ViewBox auto-range follow the layout
        self.update()

    def dataBounds(self, ax: int, frac: float = 1.0, orthoRange=None):
        if self._bounds.isNull():
            return None, None
        return float(self._range[0, ax]), float(self._range[1, ax])

    def boundingRect(self) -> QRectF:
        px = self.pixelLength(None) or 0.0
        return self._bounds.adjusted(-4 * px, -4 * px, 4 * px, 4 * px)

    def paint(self, painter, option, widget=None) -> None:
        n = len(self._xy)
        if n >= LARGE and painter.paintEngine().type() == painter.paintEngine().Type.Raster:
            self._paint_raster(painter, widget)
            return
        # map to device pixels ourselves: a round cap drawn under the view's anisotropic
        # scale would come out as an ellipse
        t = painter.transform()
        a = np.array([[t.m11(), t.m12()], [t.m21(), t.m22()]])
        shift = np.array([t.dx(), t.dy()])
        painter.resetTransform()
        painter.setRenderHint(painter.RenderHint.Antialiasing, n < LARGE)
        cap = Qt.PenCapStyle.RoundCap if n < LARGE else Qt.PenCapStyle.SquareCap
        codes = self._codes if self._codes.shape[0] == n else np.zeros(n, dtype=np.uint16)
        order = np.argsort(codes, kind="stable")
        bounds = np.searchsorted(codes[order], np.arange(len(self._colours) + 2))
        for g, (colour, width) in enumerate(zip(self._colours, self._widths, strict=True)):
            idx = order[bounds[g + 1] : bounds[g + 2]]
            if not idx.size:
                continue
            poly = fn.create_qpolygonf(len(idx))
            np.matmul(self._xy[idx], a, out=fn.ndarray_from_qpolygonf(poly))
            fn.ndarray_from_qpolygonf(poly)[:] += shift
            pen = QPen(colour)
            pen.setWidthF(width)
            pen.setCosmetic(True)
            pen.setCapStyle(cap)
            painter.setPen(pen)
            painter.drawPoints(poly)
        painter.setTransform(t)

    # -- raster path -----------------------------------------------------------------------
    def _paint_raster(self, painter, widget) -> None:
        t = painter.transform()
        dev = painter.device()
        w, h = dev.width(), dev.height()
        if w <= 0 or h <= 0:
            return
        m = (t.m11(), t.m12(), t.m21(), t.m22(), t.dx(), t.dy())
        key = (self._version, m, w, h)
        if widget is None or len(self._xy) < ASYNC or not self.render_in_thread:
            if self._image is None or self._image[0] != key:
                self._image = (key, *self._job(key)())
            self._blit(painter, *self._image[:2], t)
            return
        if self._renderer is None:
            self._renderer = Renderer()
            self._renderer.done.connect(self._on_rendered, Qt.ConnectionType.QueuedConnection)
        if self._image is not None:  # the newest picture, moved to the current pan/zoom
            self._blit(painter, *self._image[:2], t)
        if (self._image is None or self._image[0] != key) and self._renderer.pending != key:
            self._renderer.submit(key, self._job(key))

    def _job(self, key: tuple):
        """A render of the current arrays (replaced, never changed, by set_points) under
        ``key`` = (version, transform, width, height); safe to run in another thread."""
        xy, codes, argb = self._xy, self._codes, self._argb
        if codes.shape[0] != xy.shape[0]:
            codes = np.zeros(xy.shape[0], dtype=np.uint16)
        sizes = (
            np.ones(len(argb), dtype=np.int64)
            if len(xy) >= HUGE
            else np.maximum(np.rint(self._widths), 1).astype(np.int64)
        )

        def render() -> tuple[QImage, np.ndarray]:
            pixels = rasterise(xy, codes, argb, sizes, key[1], key[2], key[3])
            image = QImage(pixels.data, key[2], key[3], 4 * key[2], _ARGB)
            return image, pixels

        return render

    @Slot()
    def _on_rendered(self) -> None:
        out = None if self._renderer is None else self._renderer.take()
        shown = -1 if self._image is None else self._image[0][0]
        if out is not None and out[1] is not None and out[0][0] >= shown:
            self._image = (out[0], *out[1])  # may be a frame behind: the next one follows
            self.update()

    def wait_rendered(self, timeout: float = 5.0) -> None:
        """Wait until the thread has rendered the latest request (screenshots, tests)."""
        end = time.perf_counter() + timeout
        while self._renderer is not None and self._renderer.pending is not None:
            if time.perf_counter() > end:
                break
            time.sleep(0.002)
        self._on_rendered()

    @staticmethod
    def _blit(painter, key: tuple, image: QImage, t: QTransform) -> None:
        """Draw ``image`` (rendered under ``key``'s transform) under the painter's ``t``."""
        drawn = QTransform(*key[1])
        if drawn == t:
            painter.resetTransform()
        else:
            inverse, ok = drawn.inverted()
            if not ok:
                return
            painter.setTransform(inverse * t)
        painter.drawImage(QPointF(0, 0), image)
        painter.setTransform(t)


def _range(xy: np.ndarray) -> np.ndarray:
    """[[min x, min y], [max x, max y]] of the finite points (NaN when none). Column by
    column: numpy's axis-0 reduction of an (n, 2) array takes ~70 ms at 1M, this ~3 ms."""
    if not xy.size:
        return np.full((2, 2), np.nan)
    cols = (xy[:, 0], xy[:, 1])
    lo, hi = [c.min() for c in cols], [c.max() for c in cols]
    if not np.isfinite([lo, hi]).all():
        with np.errstate(all="ignore"):
            ok = np.isfinite(xy).all(axis=1)
            if not ok.any():
                return np.full((2, 2), np.nan)
            lo, hi = [c[ok].min() for c in cols], [c[ok].max() for c in cols]
    return np.array([lo, hi], dtype=float)


_ARGB = QImage.Format.Format_ARGB32_Premultiplied
