"""Screenshots of selecting and naming groups in the window, for docs/analysis.md and the
README (run offscreen: ``QT_QPA_PLATFORM=offscreen python scripts/screenshot_selection.py``;
writes docs/screenshots/selection_*.png).

The digits demo gets a "digit" metadata column (the digit's name) so the Selection dock can
count a lasso by it. The lasso is drawn with mouse events on the embedding's viewport, as a
user would; the second shot is taken while a Shift+lasso is being drawn.
"""

from __future__ import annotations

import itertools

import numpy as np
import pyqtgraph as pg
from demo_window import OUT, digit_names, finished_demo, wait
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDockWidget


def _pixel(emb, x: float, y: float) -> QPoint:
    return emb.view.mapFromScene(emb.vb.mapViewToScene(QPointF(x, y)))


def _move(widget, p: QPoint) -> None:
    event = QMouseEvent(QEvent.Type.MouseMove, QPointF(p), QPointF(widget.mapToGlobal(p)),
                        Qt.MouseButton.NoButton, Qt.MouseButton.LeftButton,
                        Qt.KeyboardModifier.NoModifier)  # fmt: skip
    QApplication.sendEvent(widget, event)


def _lasso(emb, points, modifier=Qt.KeyboardModifier.NoModifier, release=True) -> None:
    """Drag through ``points`` (data coordinates) in small steps; release unless asked not."""
    viewport = emb.view.viewport()
    pixels = [_pixel(emb, x, y) for x, y in points]
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, modifier, pixels[0])
    for a, b in itertools.pairwise(pixels):
        for s in range(1, 9):
            _move(viewport, QPoint(a.x() + (b.x() - a.x()) * s // 8,
                                   a.y() + (b.y() - a.y()) * s // 8))  # fmt: skip
    if release:
        QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, modifier, pixels[-1])


def _around(xy: np.ndarray, k: int = 14, grow: float = 1.25) -> list[tuple[float, float]]:
    """A free-hand-looking loop around the points ``xy``: k angles, each at the farthest
    point's distance in that direction, a little further out."""
    centre = np.median(xy, axis=0)
    d = xy - centre
    angle = np.arctan2(d[:, 1], d[:, 0])
    radius = np.hypot(d[:, 0], d[:, 1])
    loop = []
    for t in np.linspace(-np.pi, np.pi, k, endpoint=False):
        near = np.abs(np.angle(np.exp(1j * (angle - t)))) < np.pi / k * 1.5
        r = (np.quantile(radius[near], 0.95) if near.any() else np.median(radius)) * grow
        loop.append((centre[0] + r * np.cos(t), centre[1] + r * np.sin(t)))
    return [*loop, loop[0]]


def main() -> None:
    app = QApplication([])  # noqa: F841 (kept alive while the window lives)
    pg.setConfigOption("mouseRateLimit", 0)  # every move of the scripted drag counts
    win = finished_demo(lambda ds: {"digit": digit_names(ds)})
    ds = win.session.dataset
    emb = win.plots["embedding"]
    wait(lambda: False, 0.5)
    dock = win.findChild(QDockWidget, "selectionDock")
    dock.show()
    dock.raise_()
    panel = win.selection_panel
    panel.column_box.setCurrentIndex(panel.column_box.findText("digit"))
    labels = win.controller.history.labels
    emb.set_tool("lasso")
    # a lasso around the cluster holding most threes (and whatever lies close to it)
    first = labels == np.bincount(labels[ds.labels == 3]).argmax()
    _lasso(emb, _around(emb.xy[first], grow=1.6))
    wait(lambda: panel.composition is not None, 60)
    wait(lambda: False, 0.5)
    win.grab().save(str(OUT / "selection_lasso.png"))
    panel.name_group("threes")
    emb.chooser.select(("groups",))
    # a Shift+lasso being drawn around another cluster (the first selection stays lit)
    emb.chooser.select(("clusters",))
    other = labels == np.bincount(labels[ds.labels == 0]).argmax()
    loop = _around(emb.xy[other])
    _lasso(emb, loop[: len(loop) * 3 // 4], Qt.KeyboardModifier.ShiftModifier, release=False)
    wait(lambda: False, 0.3)
    win.grab().save(str(OUT / "selection_add.png"))
    QTest.mouseRelease(emb.view.viewport(), Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.ShiftModifier, _pixel(emb, *loop[-1]))  # fmt: skip
    wait(lambda: False, 0.5)
    from mvc_gui.plots.figure import FigureSize

    win.export_figure_page(FigureSize(180, 110, "mm", 110), str(OUT / "selection_figure.png"))
    win.embedder.shutdown(5.0)
    win.controller.shutdown(5.0)


if __name__ == "__main__":
    main()
