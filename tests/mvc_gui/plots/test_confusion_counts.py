"""Confusion-matrix numbers are drawn only when every one fits in its cell (at 1M samples the
counts are 5-6 characters wide and ran into each other; showing only those that fit showed the
small counts alone, read as the whole matrix)."""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QFont

from mvc_gui.plots.confusion_plot import CountsItem


def test_numbers_are_shown_only_when_every_one_fits(qtbot):
    item = CountsItem(QFont())
    counts = np.array([[123_456, 5], [7, 0]])
    item.set_cells(counts, counts / counts.sum(axis=1, keepdims=True))
    assert item.texts() == ["123.5k", "5", "7"]  # the data keep every non-zero count
    assert item.fitting(14.0) == []  # "5" and "7" fit, but alone they would mislead
    assert [c[2] for c in item.fitting(200.0)] == ["123.5k", "5", "7"]


def test_axis_names_are_thinned_where_they_would_run_together(qtbot):
    from mvc_gui.plots.confusion_plot import ConfusionPlot, thinned

    # room for every name: all kept, at the cells' centres
    assert thinned(["0", "1", "2"], 8.0, 20.0) == [(0.5, "0"), (1.5, "1"), (2.5, "2")]
    # 27 rows of 14 px names in 5 px cells: every 3rd named, ticks kept on every cell
    ticks = thinned([str(i + 1) for i in range(27)], 14.0, 5.0)
    assert len(ticks) == 27 and [t for _, t in ticks if t] == [str(i) for i in range(1, 28, 3)]
    # in the panel: 27 classes x 27 clusters in a small plot, then a large one
    plot = ConfusionPlot()
    qtbot.addWidget(plot)
    plot.resize(260, 240)
    plot.show()
    names = [f"class {i}" for i in range(27)]
    plot.reset(names)
    y = np.repeat(np.arange(27), 4)
    plot.set_labels(y, y.copy(), 27)
    qtbot.waitUntil(lambda: plot.plot.getViewBox().height() > 0, timeout=60_000)
    plot._update_ticks()

    def named(axis: str) -> int:
        return sum(1 for _, t in plot.plot.getAxis(axis)._tickLevels[0] if t)

    small = named("left"), named("bottom")
    assert 0 < small[0] < 27 and 0 < small[1] < 27  # thinned, never none
    plot.resize(1400, 1400)
    qtbot.waitUntil(lambda: plot.plot.getViewBox().height() > 900, timeout=60_000)
    plot._update_ticks()
    assert named("left") == 27 and named("bottom") == 27


def test_a_cell_says_its_count_when_pointed_at(qtbot):
    from mvc_gui.plots.confusion_plot import ConfusionPlot

    plot = ConfusionPlot()
    qtbot.addWidget(plot)
    plot.reset(["cat", "dog"])
    truth = np.array([0] * 30 + [1] * 10)
    found = np.array([1] * 27 + [0] * 3 + [0] * 10)  # cluster 1 is the cats' best match
    plot.set_labels(truth, found, 2)
    col = int(np.flatnonzero(plot.order == 1)[0])
    assert plot.cell_text(0, col) == "true class cat: 30 samples\nin cluster 1: 27 (90 % of them)"
    other = int(np.flatnonzero(plot.order == 0)[0])
    said = plot.cell_text(1, other)
    assert said == "true class dog: 10 samples\nin cluster 0: 10 (100 % of them)"
    # pointing at the cell shows it
    from PySide6.QtCore import QPointF
    from PySide6.QtWidgets import QToolTip

    plot.resize(400, 300)
    plot.show()
    vb = plot.plot.getViewBox()
    qtbot.waitUntil(lambda: vb.height() > 0, timeout=60_000)
    plot._on_mouse_moved(vb.mapViewToScene(QPointF(col + 0.5, 0.5)))
    assert QToolTip.text() == plot.cell_text(0, col)
