"""The curve behind n_clusters="auto": the gap score of every k (the multi-scale anchor-graph
spectrum), its three ranked candidates marked and labelled on it, and a click on a point
picks that k instead (``k_clicked``).

Estimates stored before the ranking (no ``curve``) show their eigenvalue curve as before:
eigenvalue i at x = i, k clusters leaving a drop after the k-th point.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal

from core.numerics.k_estimate import describe_estimate, ranked_candidates
from mvc_gui.plots.base import PlotBox

__all__ = ["CANDIDATE_COLOURS", "KCurvePlot"]

CHOSEN = "#D55E00"
#: the ranked candidates' markers, best first (colour-blind safe)
CANDIDATE_COLOURS = ("#D55E00", "#0072B2", "#009E73")
#: candidates this close share one label (the estimate and its neighbours k - 1, k + 1)
NEAR = 2


class KCurvePlot(PlotBox):
    """Gap score of k at x = k (or, for older estimates, eigenvalue i at x = i)."""

    k_clicked = Signal(int)

    def __init__(self, parent=None) -> None:
        view = pg.PlotWidget()
        super().__init__("Number of clusters", view, parent)
        self.plot = view.getPlotItem()
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        self.curve = self.plot.plot(
            pen=pg.mkPen("#2b3440", width=2),
            symbol="o",
            symbolSize=5,
            symbolBrush="#2b3440",
            symbolPen=None,
        )
        self.curve.setCurveClickable(True)
        self.curve.sigPointsClicked.connect(self._on_points_clicked)
        # the candidates: bigger markers on the curve, each with its k written above it
        self.markers = pg.ScatterPlotItem(size=13, pen=pg.mkPen("w", width=1.5))
        self.markers.sigClicked.connect(self._on_points_clicked)
        self.plot.addItem(self.markers)
        self.labels: list[pg.TextItem] = []
        self.chosen_line = pg.InfiniteLine(angle=90, pen=pg.mkPen(CHOSEN, width=2))
        self.chosen_line.setVisible(False)
        self.plot.addItem(self.chosen_line)
        self.estimate: dict[str, Any] | None = None
        self.selected: int | None = None
        self.ranked: list[int] = []
        self.setToolTip("Click a point to use that number of clusters")

    @property
    def has_scores(self) -> bool:
        """True when the curve is the gap score of k (not an older eigenvalue curve)."""
        return bool(self.estimate and self.estimate.get("curve"))

    def set_estimate(self, estimate: Mapping[str, Any] | None) -> None:
        """Show an estimate (``KEstimate.to_dict()``); None clears the plot."""
        self.estimate = dict(estimate) if estimate else None
        for label in self.labels:
            self.plot.removeItem(label)
        self.labels = []
        if not estimate:
            self.curve.setData([], [])
            self.markers.setData([])
            self.chosen_line.setVisible(False)
            self.title.setText("Number of clusters")
            self.selected = None
            self.ranked = []
            return
        self.ranked = ranked_candidates(estimate)
        if self.has_scores:
            ys = np.asarray(estimate["curve"], dtype=float)
            xs = np.arange(ys.size) + int(estimate.get("curve_k0", 2))
            self.plot.setLabel("bottom", "k (number of clusters)")
            self.plot.setLabel("left", "gap score")
        else:  # an estimate from before the ranking: its eigenvalues
            ys = np.asarray(estimate["eigenvalues"], dtype=float)
            xs = np.arange(1, ys.size + 1)
            self.plot.setLabel("bottom", "k (eigenvalue index)")
            self.plot.setLabel("left", "eigenvalue")
        self.curve.setData(xs, ys)
        spots, groups = [], []
        for rank, k in enumerate(self.ranked[:3]):
            at = np.flatnonzero(xs == k)
            if not at.size:
                continue
            y = float(ys[at[0]])
            spots.append({"pos": (k, y), "brush": pg.mkBrush(CANDIDATE_COLOURS[rank]), "data": k})
            near = next((g for g in groups if abs(g[0][0] - k) <= NEAR), None)
            if near is None:
                groups.append([(k, y, CANDIDATE_COLOURS[rank])])
            else:
                near.append((k, y, CANDIDATE_COLOURS[rank]))
        for group in groups:  # one label for neighbours: "9 (8, 10)", not three on one spot
            k, y, colour = group[0]
            others = ", ".join(str(j) for j, _, _ in group[1:])
            label = pg.TextItem(f"{k} ({others})" if others else f"{k}", color=colour)
            label.setAnchor((-0.15, 1.0))  # up and right of the point: clear of the k line
            label.setPos(k, max(y for _, y, _ in group))
            self.plot.addItem(label)
            self.labels.append(label)
        self.markers.setData(spots)
        if self.has_scores and self.ranked:
            # the curve's long tail says little: open on the candidates, zoom out to see it all
            right = min(float(xs[-1]), max(20.0, 3.0 * max(self.ranked[:3])))
            self.plot.setXRange(float(xs[0]) - 0.5, right + 0.5, padding=0.02)
            self.plot.enableAutoRange(axis="y")
        self.select(self.ranked[0])

    def line_position(self, k: int) -> float:
        """Where the chosen k is drawn: on its point (gap score), or in the drop after the
        k-th eigenvalue."""
        return float(k) if self.has_scores else k + 0.5

    def select(self, k: int) -> None:
        """Mark k as the chosen number of clusters."""
        self.selected = k
        self.chosen_line.setPos(self.line_position(k))
        self.chosen_line.setVisible(True)
        text = f"Number of clusters: {k}"
        if self.estimate:
            text += f"; estimated {describe_estimate(self.estimate)}"
        self.title.setText(text)

    def _on_points_clicked(self, _item, points, *_args) -> None:
        if len(points):
            k = round(points[0].pos().x())
            if k >= 2:
                self.select(k)
                self.k_clicked.emit(k)
