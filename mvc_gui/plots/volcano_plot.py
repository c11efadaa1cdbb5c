"""The volcano-style plot of a comparison: effect size d (x) against -log10 q (y), one point per
feature of a view; features with q below the threshold coloured by direction (higher in group A:
vermilion, lower: blue), the others grey. A click on a point emits ``feature_clicked`` with its
row in the table; ``mark(row)`` rings the feature shown elsewhere."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal

from mvc_gui.plots.base import PlotBox

__all__ = ["HIGHER", "LOWER", "VolcanoPlot", "volcano_xy"]

HIGHER, LOWER, NEUTRAL = "#D55E00", "#0072B2", "#b8bec6"  # Okabe-Ito, grey
_Q_FLOOR = 1e-300  # q = 0 (underflow) is drawn at 300, not at infinity


def volcano_xy(effect_d: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``(n, 2)`` points: effect d and -log10 q (q not yet computed: 0, on the axis)."""
    d = np.nan_to_num(np.asarray(effect_d, dtype=float), nan=0.0, posinf=0.0, neginf=0.0)
    qv = np.asarray(q, dtype=float)
    y = np.where(np.isfinite(qv), -np.log10(np.clip(qv, _Q_FLOOR, 1.0)), 0.0)
    return np.column_stack([d, y])


class VolcanoPlot(PlotBox):
    """Effect d against -log10 q for one view's features."""

    feature_clicked = Signal(int)  # row of the comparison table

    def __init__(self, parent=None) -> None:
        view = pg.PlotWidget()
        super().__init__("Volcano", view, parent)
        self.plot = view.getPlotItem()
        self.plot.setLabel("bottom", "effect d (A - B)")
        self.plot.setLabel("left", "-log10 q")
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        # one item per colour (a brush per point costs pyqtgraph ~50 ms per 5,000 points)
        self.layers = {}
        for colour in (NEUTRAL, LOWER, HIGHER):
            item = pg.ScatterPlotItem(size=6, pen=None, brush=pg.mkBrush(colour))
            item.sigClicked.connect(self._on_clicked)
            self.plot.addItem(item)
            self.layers[colour] = item
        self.threshold = pg.InfiniteLine(
            angle=0, pen=pg.mkPen("#6b7686", width=1, style=pg.QtCore.Qt.PenStyle.DashLine)
        )
        self.plot.addItem(self.threshold, ignoreBounds=True)
        self.marker = pg.ScatterPlotItem(size=14, brush=None, pen=pg.mkPen("#2b3440", width=2))
        self.plot.addItem(self.marker)
        self.xy = np.zeros((0, 2))
        self.setToolTip("Each point a feature; click one to see its distribution by group")

    def set_table(self, effect_d: np.ndarray, q: np.ndarray, alpha: float = 0.05) -> None:
        """Draw one view's features (``q`` all NaN: effect sizes only, on the x axis)."""
        self.xy = volcano_xy(effect_d, q)
        d = self.xy[:, 0]
        qv = np.asarray(q, dtype=float)
        sig = np.isfinite(qv) & (qv < alpha)
        masks = {HIGHER: sig & (d > 0), LOWER: sig & (d <= 0), NEUTRAL: ~sig}
        for colour, mask in masks.items():
            rows = np.flatnonzero(mask)
            self.layers[colour].setData(x=d[rows], y=self.xy[rows, 1], data=rows)
        self.threshold.setPos(-np.log10(alpha))
        self.threshold.setVisible(bool(np.isfinite(qv).any()))
        self.marker.setData([], [])
        n_sig = int(sig.sum())
        done = bool(np.isfinite(qv).any())
        self.title.setText(
            f"Volcano: {n_sig} of {d.size} with q < {alpha:g}" if done else "Volcano (effect d)"
        )

    def mark(self, row: int | None) -> None:
        """Ring the feature at ``row`` (None: no ring)."""
        if row is None or not 0 <= row < self.xy.shape[0]:
            self.marker.setData([], [])
        else:
            self.marker.setData([self.xy[row, 0]], [self.xy[row, 1]])

    def _on_clicked(self, _item, points, *_args) -> None:
        if len(points):
            self.feature_clicked.emit(int(points[0].data()))
