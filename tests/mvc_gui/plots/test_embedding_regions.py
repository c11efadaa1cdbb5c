"""The embedding's drawn regions: small layouts answer at once, large ones from a thread,
in the order the picks were made."""

from __future__ import annotations

import numpy as np

from mvc_gui.model.regions import points_in_polygon
from mvc_gui.plots.embedding_plot import REGION_IN_THREAD, EmbeddingPlot

SQUARE = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
RIGHT = np.array([[0.0, -5.0], [5.0, -5.0], [5.0, 5.0], [0.0, 5.0]])


def test_small_layout_selects_at_once(qtbot):
    plot = EmbeddingPlot()
    qtbot.addWidget(plot)
    xy = np.random.default_rng(0).standard_normal((1000, 2))
    plot.set_layout(xy, final=True)
    with qtbot.waitSignal(plot.region_selected) as got:
        picked = plot.select_polygon(SQUARE, "add")
    np.testing.assert_array_equal(picked, np.flatnonzero(points_in_polygon(xy, SQUARE)))
    assert got.args[1:] == ["add", "lasso"]


def test_large_layout_selects_from_a_thread_in_the_order_of_the_picks(qtbot):
    plot = EmbeddingPlot()
    qtbot.addWidget(plot)
    xy = np.random.default_rng(1).standard_normal((REGION_IN_THREAD + 1, 2)).astype(np.float32)
    plot.set_layout(xy, final=True)
    got = []
    plot.region_selected.connect(lambda picked, mode, shape: got.append((picked, mode)))
    assert plot.select_polygon(SQUARE) is None  # found in a thread
    assert plot.select_polygon(RIGHT, "add") is None
    assert not got  # nothing yet: the window went on
    qtbot.waitUntil(lambda: len(got) == 2, timeout=120_000)
    assert [mode for _, mode in got] == ["replace", "add"]
    for (picked, _), poly in zip(got, (SQUARE, RIGHT), strict=True):
        np.testing.assert_array_equal(picked, np.flatnonzero(points_in_polygon(xy, poly)))
