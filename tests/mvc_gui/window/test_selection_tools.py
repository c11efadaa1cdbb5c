"""Selecting on the real window with the mouse: lasso and rectangle drags on the embedding's
viewport (Shift adds, Ctrl subtracts), clicks on a point, a legend entry, a confusion cell and
a heat-map block; every pick is linked into the plots and the Selection dock."""

from __future__ import annotations

import itertools

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from mvc_gui.model.regions import points_in_polygon

SHIFT, CTRL = Qt.KeyboardModifier.ShiftModifier, Qt.KeyboardModifier.ControlModifier
NONE = Qt.KeyboardModifier.NoModifier


@pytest.fixture
def every_move():
    """pyqtgraph drops mouse moves closer than 1/60 s apart (its mouseRateLimit): the moves
    of a test follow each other within microseconds, so each one counts here."""
    before = pg.getConfigOption("mouseRateLimit")
    pg.setConfigOption("mouseRateLimit", 0)
    yield
    pg.setConfigOption("mouseRateLimit", before)


@pytest.fixture
def ran(qtbot, loaded, every_move):
    """The loaded window on screen, a run finished and its layout drawn."""
    loaded.resize(1280, 800)
    loaded.show()
    qtbot.waitExposed(loaded)
    loaded.method_panel.set_params({"n_clusters": 3, "max_iter": 5})
    with qtbot.waitSignal(loaded.controller.run_finished, timeout=120_000):
        loaded.run()
    emb = loaded.plots["embedding"]
    qtbot.waitUntil(lambda: emb.xy is not None and not loaded.embedder.busy, timeout=120_000)
    emb.vb.autoRange(padding=0.05)
    qtbot.wait(10)
    yield loaded
    _release_keys(emb.view.viewport())  # leave no modifier held for the next test


def _to_pixel(emb, x: float, y: float) -> QPoint:
    """Data coordinates -> the embedding viewport's pixel."""
    scene = emb.vb.mapViewToScene(QPointF(x, y))
    return emb.view.mapFromScene(scene)


def _to_data(emb, p: QPoint) -> tuple[float, float]:
    d = emb.vb.mapSceneToView(emb.view.mapToScene(p))
    return d.x(), d.y()


def _move(widget, p: QPoint, modifier=NONE) -> None:
    """A mouse move with the left button held (QTest's moves carry no buttons)."""
    local = QPointF(p)
    event = QMouseEvent(
        QEvent.Type.MouseMove, local, QPointF(widget.mapToGlobal(p)), Qt.MouseButton.NoButton,
        Qt.MouseButton.LeftButton, modifier,
    )  # fmt: skip
    QApplication.sendEvent(widget, event)


def _release_keys(widget) -> None:
    """The modifier keys let go, as a user does after a Shift+drag (the application keeps
    the modifiers of the last input event, which picks without an event of their own read)."""
    QTest.keyRelease(widget, Qt.Key.Key_Shift)


def _drag(emb, corners_data, modifier=NONE) -> np.ndarray:
    """Drag through the corners (data coordinates) in straight 4-pixel steps, as a hand
    would, and return the polygon of the pixels passed through, in data coordinates."""
    viewport = emb.view.viewport()
    pixels = [_to_pixel(emb, x, y) for x, y in corners_data]
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, modifier, pixels[0])
    for a, b in itertools.pairwise(pixels):
        steps = max(1, int(max(abs(b.x() - a.x()), abs(b.y() - a.y())) // 4))
        for s in range(1, steps + 1):
            p = QPoint(a.x() + (b.x() - a.x()) * s // steps, a.y() + (b.y() - a.y()) * s // steps)
            _move(viewport, p, modifier)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, modifier, pixels[-1])
    _release_keys(viewport)
    return np.array([_to_data(emb, p) for p in pixels])


def _span(emb):
    xy = emb.xy
    (x0, y0), (x1, y1) = xy.min(axis=0), xy.max(axis=0)
    return x0, y0, x1 - x0, y1 - y0


def test_lasso_selects_the_samples_inside_and_shift_adds_ctrl_subtracts(ran):
    emb, sel = ran.plots["embedding"], ran.selection
    emb.tool_buttons["lasso"].click()
    assert emb.tool == "lasso"
    x0, y0, w, h = _span(emb)
    # a non-convex lasso: an L over the left and bottom of the layout
    lasso = [(x0, y0), (x0 + 0.7 * w, y0), (x0 + 0.7 * w, y0 + 0.35 * h),
             (x0 + 0.35 * w, y0 + 0.35 * h), (x0 + 0.35 * w, y0 + h), (x0, y0 + h)]  # fmt: skip
    drawn = _drag(emb, lasso)
    first = np.flatnonzero(points_in_polygon(emb.xy, drawn))
    assert 0 < first.size < 150
    np.testing.assert_array_equal(sel.indices, first)
    assert emb.selected is not None and emb.selected.sum() == first.size
    assert "lasso" in sel.description
    # Shift adds a second region (the right half: it holds the rightmost sample, which the
    # L leaves out)
    corner = [(x0 + 0.5 * w, y0), (x0 + w, y0), (x0 + w, y0 + h), (x0 + 0.5 * w, y0 + h)]
    added = np.flatnonzero(points_in_polygon(emb.xy, _drag(emb, corner, SHIFT)))
    assert np.setdiff1d(added, first).size
    np.testing.assert_array_equal(sel.indices, np.union1d(first, added))
    # Ctrl takes a band across the middle out
    band = [(x0, y0 + 0.2 * h), (x0 + w, y0 + 0.2 * h), (x0 + w, y0 + 0.8 * h),
            (x0, y0 + 0.8 * h)]  # fmt: skip
    taken = np.flatnonzero(points_in_polygon(emb.xy, _drag(emb, band, CTRL)))
    np.testing.assert_array_equal(sel.indices, np.setdiff1d(np.union1d(first, added), taken))
    # no modifier replaces
    again = np.flatnonzero(points_in_polygon(emb.xy, _drag(emb, corner)))
    np.testing.assert_array_equal(sel.indices, again)


def test_rectangle_tool_and_pointer_pan(ran):
    emb, sel = ran.plots["embedding"], ran.selection
    emb.tool_buttons["rectangle"].click()
    x0, y0, w, h = _span(emb)
    drawn = _drag(emb, [(x0 + 0.1 * w, y0 + 0.1 * h), (x0 + 0.6 * w, y0 + 0.9 * h)])
    (ax, ay), (bx, by) = drawn
    xy = emb.xy
    inside = (xy[:, 0] >= min(ax, bx)) & (xy[:, 0] <= max(ax, bx))
    inside &= (xy[:, 1] >= min(ay, by)) & (xy[:, 1] <= max(ay, by))
    assert inside.any()
    np.testing.assert_array_equal(sel.indices, np.flatnonzero(inside))
    # back to the pointer: a drag pans the view and leaves the selection alone
    emb.tool_buttons["pointer"].click()
    before = emb.vb.viewRect()
    _drag(emb, [(x0 + 0.5 * w, y0 + 0.5 * h), (x0 + 0.8 * w, y0 + 0.5 * h)])
    assert emb.vb.viewRect() != before
    np.testing.assert_array_equal(sel.indices, np.flatnonzero(inside))


def test_clicks_pick_a_cluster_a_legend_entry_a_confusion_cell_and_a_heat_map_block(ran, qtbot):
    emb, sel = ran.plots["embedding"], ran.selection
    labels = ran.controller.history.labels
    # a click on a point: its cluster; Shift+click on another cluster's point adds it
    i = int(np.flatnonzero(labels == 0)[0])
    viewport = emb.view.viewport()
    QTest.mouseClick(viewport, Qt.MouseButton.LeftButton, NONE, _to_pixel(emb, *emb.xy[i]))
    np.testing.assert_array_equal(sel.indices, np.flatnonzero(labels == 0))
    j = int(np.flatnonzero(labels == 2)[0])
    QTest.mouseClick(viewport, Qt.MouseButton.LeftButton, SHIFT, _to_pixel(emb, *emb.xy[j]))
    _release_keys(viewport)
    np.testing.assert_array_equal(sel.indices, np.flatnonzero(labels != 1))
    # a confusion cell: that reference class inside that cluster
    conf = ran.plots["confusion"]
    ran.presenter.select_cell(1, 2, "replace")
    truth = ran.session.labels
    np.testing.assert_array_equal(sel.indices, np.flatnonzero((truth == 1) & (labels == 2)))
    # the colour legend (colour by the reference labels): a category, Ctrl takes it out
    emb.chooser.select(("truth",))
    emb.legend.entry_clicked.emit(0, "replace")
    np.testing.assert_array_equal(sel.indices, np.flatnonzero(truth == 0))
    emb.legend.entry_clicked.emit(0, "subtract")
    assert not sel
    # a heat-map block: its rows' cluster (framed in the heat map and the confusion)
    heat = ran.plots["heatmap"]
    qtbot.waitUntil(lambda: heat.heat is not None, timeout=120_000)
    row = int(np.flatnonzero(heat.heat.row_cluster == 1)[0])
    vb = heat.plot.getViewBox()
    scene = vb.mapViewToScene(QPointF(heat.heat.image.shape[1] / 2, row + 0.5))
    assert heat.cluster_at(scene) == 1
    heat.cluster_clicked.emit(heat.cluster_at(scene))
    np.testing.assert_array_equal(sel.indices, np.flatnonzero(labels == 1))
    assert heat.highlight.isVisible() and conf.highlight.isVisible()
