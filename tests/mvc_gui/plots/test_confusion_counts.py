"""Confusion-matrix numbers are drawn only where they fit in their cell (at 1M samples the
counts are 5-6 characters wide and ran into each other)."""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QFont

from mvc_gui.plots.confusion_plot import CountsItem


def test_numbers_wider_than_their_cell_are_left_out(qtbot):
    item = CountsItem(QFont())
    counts = np.array([[123_456, 5], [7, 0]])
    item.set_cells(counts, counts / counts.sum(axis=1, keepdims=True))
    assert item.texts() == ["123.5k", "5", "7"]  # the data keep every non-zero count
    narrow = [c[2] for c in item.fitting(14.0)]
    assert narrow == ["5", "7"]
    assert [c[2] for c in item.fitting(200.0)] == ["123.5k", "5", "7"]
