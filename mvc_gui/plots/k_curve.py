"""The eigenvalue curve behind n_clusters="auto": the chosen k and the runner-up marked, and a
click on a point picks that k instead (``k_clicked``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal

from mvc_gui.plots.base import PlotBox

__all__ = ["KCurvePlot"]

CHOSEN, RUNNER_UP = "#D55E00", "#0072B2"


class KCurvePlot(PlotBox):
    """Eigenvalue i of the normalised anchor graph at x = i; k clusters leave a drop after
    the k-th point."""

    k_clicked = Signal(int)

    def __init__(self, parent=None) -> None:
        view = pg.PlotWidget()
        super().__init__("Number of clusters", view, parent)
        self.plot = view.getPlotItem()
        self.plot.setLabel("bottom", "k (eigenvalue index)")
        self.plot.setLabel("left", "eigenvalue")
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        self.curve = self.plot.plot(
            pen=pg.mkPen("#2b3440", width=2),
            symbol="o",
            symbolSize=7,
            symbolBrush="#2b3440",
            symbolPen=None,
        )
        self.curve.setCurveClickable(True)
        self.curve.sigPointsClicked.connect(self._on_points_clicked)
        self.chosen_line = pg.InfiniteLine(angle=90, pen=pg.mkPen(CHOSEN, width=2))
        self.runner_line = pg.InfiniteLine(
            angle=90, pen=pg.mkPen(RUNNER_UP, width=1, style=pg.QtCore.Qt.PenStyle.DashLine)
        )
        for line in (self.chosen_line, self.runner_line):
            line.setVisible(False)
            self.plot.addItem(line)
        self.estimate: dict[str, Any] | None = None
        self.selected: int | None = None
        self.setToolTip("Click a point to use that number of clusters")

    def set_estimate(self, estimate: Mapping[str, Any] | None) -> None:
        """Show an estimate (``KEstimate.to_dict()``); None clears the plot."""
        self.estimate = dict(estimate) if estimate else None
        if not estimate:
            self.curve.setData([], [])
            self.chosen_line.setVisible(False)
            self.runner_line.setVisible(False)
            self.title.setText("Number of clusters")
            self.selected = None
            return
        vals = np.asarray(estimate["eigenvalues"], dtype=float)
        self.curve.setData(np.arange(1, vals.size + 1), vals)
        self.runner_line.setPos(estimate["runner_up"] + 0.5)
        self.runner_line.setVisible(True)
        self.select(int(estimate["k"]))

    def select(self, k: int) -> None:
        """Mark k as the chosen number of clusters (the drop after the k-th eigenvalue)."""
        self.selected = k
        self.chosen_line.setPos(k + 0.5)
        self.chosen_line.setVisible(True)
        est = self.estimate or {}
        text = f"Number of clusters: {k}"
        if est:
            text += f" (estimated {est['k']}, runner-up {est['runner_up']})"
        self.title.setText(text)

    def _on_points_clicked(self, _item, points, *_args) -> None:
        if len(points):
            k = round(points[0].pos().x())
            if k >= 2:
                self.select(k)
                self.k_clicked.emit(k)
