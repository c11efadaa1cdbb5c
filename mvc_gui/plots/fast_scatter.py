"""FastScatter: draws many points in a few QPainter.drawPoints calls (one per colour).

pyqtgraph's ScatterPlotItem spends ~0.3 s of Python per 100k points in ``setData`` (one
atlas lookup per point), which would freeze the window at every animation frame. Here the
points of each group are mapped to device pixels and copied into a QPolygonF with numpy
(no Python loop), then drawn with a round (or, for many points, square) pen: a 100k-point
frame costs a few milliseconds to set up and ~20 ms to paint.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from pyqtgraph import functions as fn
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPen

__all__ = ["FastScatter"]

LARGE = 3_000  # above this: square, non-antialiased dots (~2 ms per 10k points)
HUGE = 500_000  # above this: 1-pixel dots (one numpy pass per colour instead of size**2)


class FastScatter(pg.GraphicsObject):
    def __init__(self) -> None:
        super().__init__()
        self._groups: list[tuple[np.ndarray, QPen]] = []
        self._argb: list[int] = []  # premultiplied ARGB32 per group (raster path)
        self._bounds = QRectF()
        self._xy = np.zeros((0, 2))
        self._range = np.zeros((2, 2))  # min and max per axis, computed once per frame

    def set_points(
        self, xy: np.ndarray, groups: list[np.ndarray], styles: list[tuple[QColor, float]]
    ) -> None:
        """Points ``xy[idx]`` of each group drawn with its (colour, pixel size)."""
        self.prepareGeometryChange()
        self._xy = xy
        out, argb = [], []
        # round antialiased dots look best but cost ~5 us each: square ones for larger sets
        cap = Qt.PenCapStyle.RoundCap if len(xy) < LARGE else Qt.PenCapStyle.SquareCap
        for idx, (colour, size) in zip(groups, styles, strict=True):
            if idx.size == 0:
                continue
            pen = QPen(colour)
            pen.setWidthF(size)
            pen.setCosmetic(True)
            pen.setCapStyle(cap)
            out.append((np.ascontiguousarray(xy[idx]), pen))
            a = colour.alpha()
            argb.append(
                (a << 24)
                | ((colour.red() * a // 255) << 16)
                | ((colour.green() * a // 255) << 8)
                | (colour.blue() * a // 255)
            )
        self._groups, self._argb = out, argb
        if xy.size:
            cols = np.ascontiguousarray(xy.T)  # a reduction down an (n, 2) array is ~20x slower
            lo, hi = cols.min(axis=1), cols.max(axis=1)
            self._range = np.array([lo, hi], dtype=float)
            self._bounds = QRectF(lo[0], lo[1], hi[0] - lo[0], hi[1] - lo[1])
        else:
            self._bounds = QRectF()
        self.informViewBoundsChanged()  # lets the ViewBox auto-range follow the layout
        self.update()

    def dataBounds(self, ax: int, frac: float = 1.0, orthoRange=None):
        if not self._xy.size:
            return None, None
        return float(self._range[0, ax]), float(self._range[1, ax])

    def boundingRect(self) -> QRectF:
        px = self.pixelLength(None) or 0.0
        return self._bounds.adjusted(-4 * px, -4 * px, 4 * px, 4 * px)

    def paint(self, painter, option, widget=None) -> None:
        if (
            len(self._xy) >= LARGE
            and painter.paintEngine().type() == painter.paintEngine().Type.Raster
        ):
            self._paint_raster(painter)
            return
        # map to device pixels ourselves: a round cap drawn under the view's anisotropic
        # scale would come out as an ellipse
        t = painter.transform()
        a = np.array([[t.m11(), t.m12()], [t.m21(), t.m22()]])
        shift = np.array([t.dx(), t.dy()])
        painter.resetTransform()
        painter.setRenderHint(painter.RenderHint.Antialiasing, len(self._xy) < LARGE)
        for pts, pen in self._groups:
            poly = fn.create_qpolygonf(len(pts))
            np.matmul(pts, a, out=fn.ndarray_from_qpolygonf(poly))
            fn.ndarray_from_qpolygonf(poly)[:] += shift
            painter.setPen(pen)
            painter.drawPoints(poly)
        painter.setTransform(t)

    def _paint_raster(self, painter) -> None:
        """Large sets: write square dots into an ARGB image with numpy, draw it once.

        QPainter.drawPoints with a 3-pixel pen costs ~25-50 ms per 100k points (every dot
        is stroked); numpy index assignment costs a few ms and the image one blit.
        """
        t = painter.transform()
        dev = painter.device()
        w, h = dev.width(), dev.height()
        if w <= 0 or h <= 0:
            return
        a = np.array([[t.m11(), t.m12()], [t.m21(), t.m22()]])
        shift = np.array([t.dx(), t.dy()])
        buf = np.zeros((h, w), dtype=np.uint32)
        flat = buf.reshape(-1)
        for (pts, pen), argb in zip(self._groups, self._argb, strict=True):
            size = 1 if len(self._xy) >= HUGE else max(round(pen.widthF()), 1)
            dev_xy = pts @ a + shift - (size - 1) / 2
            ij = np.floor(dev_xy).astype(np.int64)
            x, y = ij[:, 0], ij[:, 1]
            ok = (x > -size) & (x < w) & (y > -size) & (y < h)
            x, y = x[ok], y[ok]
            for dy in range(size):
                yy = y + dy
                for dx in range(size):
                    xx = x + dx
                    inside = (xx >= 0) & (xx < w) & (yy >= 0) & (yy < h)
                    flat[yy[inside] * w + xx[inside]] = argb
        image = QImage(buf.data, w, h, 4 * w, QImage.Format.Format_ARGB32_Premultiplied)
        painter.resetTransform()
        painter.drawImage(QPointF(0, 0), image)
        painter.setTransform(t)
