"""Kaplan-Meier curves per cluster (steps), with the log-rank p in the title; the curves are
what ``core.analysis.association.survival`` computed."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pyqtgraph as pg

from mvc_gui.plots.base import PlotBox
from mvc_gui.plots.distribution_plot import PALETTE

__all__ = ["SurvivalPlot", "step_xy"]


def step_xy(time: np.ndarray, survival: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The staircase through (time, survival): flat until each event time, then down."""
    t = np.asarray(time, dtype=float)
    s = np.asarray(survival, dtype=float)
    if t.size == 0:
        return t, s
    x = np.repeat(t, 2)[1:]
    y = np.repeat(s, 2)[:-1]
    return x, y


class SurvivalPlot(PlotBox):
    """Survival probability against time, one curve per cluster."""

    def __init__(self, parent=None) -> None:
        view = pg.PlotWidget()
        super().__init__("Survival by cluster", view, parent)
        self.plot = view.getPlotItem()
        self.plot.setLabel("left", "survival probability")
        self.plot.setLabel("bottom", "time")
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        self.plot.setYRange(0, 1.02, padding=0)
        self.legend = self.plot.addLegend(offset=(-10, 10))
        self.curves: dict[int, pg.PlotDataItem] = {}
        self.set_note("Choose a time and an event column, then Kaplan-Meier.", instead=True)

    def set_curves(
        self, curves: Mapping[int, tuple[np.ndarray, np.ndarray]], p: float, time_name: str = ""
    ) -> None:
        self.plot.clear()
        self.legend.clear()
        self.curves = {}
        for i, (cluster, (t, s)) in enumerate(sorted(curves.items())):
            x, y = step_xy(t, s)
            item = self.plot.plot(x, y, pen=pg.mkPen(PALETTE[i % len(PALETTE)], width=2),
                                  name=f"cluster {cluster}")  # fmt: skip
            self.curves[int(cluster)] = item
        self.plot.setLabel("bottom", time_name or "time")
        self.title.setText(f"Survival by cluster: log-rank p = {p:.3g}")
        self.set_note("")
