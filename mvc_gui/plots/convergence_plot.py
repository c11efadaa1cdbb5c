"""Convergence: objective per iteration (log-scale option) and ACC/NMI/ARI when known."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QCheckBox

from mvc_gui.model.panel_notes import scores_note
from mvc_gui.model.run_history import LIVE_METRICS, RunHistory
from mvc_gui.plots.base import PlotBox

__all__ = ["ConvergencePlot"]

METRIC_PENS = {"acc": "#0072B2", "nmi": "#E69F00", "ari": "#009E73"}


class ConvergencePlot(PlotBox):
    def __init__(self, parent=None) -> None:
        view = pg.GraphicsLayoutWidget()
        super().__init__("Convergence", view, parent)
        self.objective = view.addPlot(row=0, col=0)
        self.objective.setLabel("left", "objective")
        self.objective.showGrid(x=True, y=True, alpha=0.15)
        self.curve = self.objective.plot(
            pen=pg.mkPen("#2b3440", width=2),
            symbol="o",
            symbolSize=4,
            symbolBrush="#2b3440",
            symbolPen=None,
            skipFiniteCheck=True,
        )
        self.curve.setDownsampling(auto=True)
        self.metrics = view.addPlot(row=1, col=0)
        self.metrics.setXLink(self.objective)
        self.metrics.setLabel("bottom", "iteration")
        self.metrics.setLabel("left", "score")
        self.metrics.setYRange(0, 1.02, padding=0)
        self.metrics.showGrid(x=True, y=True, alpha=0.15)
        # bottom right, in one row: scores live near the top, so the legend hides no data
        legend = self.metrics.addLegend(offset=(-5, -5), labelTextSize="8pt", colCount=3)
        self.metric_curves = {
            k: self.metrics.plot(pen=pg.mkPen(METRIC_PENS[k], width=2), name=k.upper())
            for k in LIVE_METRICS
        }
        legend.setBrush(pg.mkBrush(255, 255, 255, 200))
        # a method that labels samples only at the end: final scores as points, and why
        self.final_points = {
            k: self.metrics.plot(pen=None, symbol="o", symbolSize=8, symbolBrush=METRIC_PENS[k])
            for k in LIVE_METRICS
        }

        view.ci.layout.setRowStretchFactor(0, 3)
        view.ci.layout.setRowStretchFactor(1, 2)
        self.absent = ""  # why this method has no curves (set_absent), or ""
        self.log_box = QCheckBox("log scale")
        self.log_box.setToolTip("Objective on a logarithmic axis")
        self.log_box.toggled.connect(self._on_log_toggled)
        self.add_control(self.log_box)
        self.clear()

    def _on_log_toggled(self, on: bool) -> None:
        self.objective.setLogMode(y=on)

    def clear(
        self, label: str = "objective", labels_known: bool = True, method_title: str = ""
    ) -> None:
        # a long formula as axis label was clipped: the axis says "objective", the title
        # and tooltip carry the formula
        self.method_title = method_title
        short = label if len(label) <= 18 else "objective"
        self.title.setText("Convergence" if short == label else "Convergence (objective)")
        self.setToolTip(f"Objective: {label}")
        # only what changed: a new axis label re-lays out the plot (another full repaint)
        if self.objective.getAxis("left").labelText != short:
            self.objective.setLabel("left", short)
        self.absent = ""
        self.log_box.setVisible(True)
        self.set_note("")
        for c in (self.curve, *self.metric_curves.values(), *self.final_points.values()):
            if c.xData is not None and len(c.xData):
                c.setData([], [])
        self.metrics.setVisible(labels_known)

    def set_absent(self, note: str) -> None:
        """The method has no convergence to show (``panel_notes``): ``note`` says why, in
        place of the curves, until the next :meth:`clear`."""
        self.absent = note
        self.log_box.setVisible(not note)
        self.set_note(note, instead=True)

    def update_history(self, history: RunHistory) -> None:
        if self.absent:
            return
        y = np.asarray(history.objective, dtype=float)
        x = np.asarray(history.iterations, dtype=float)
        if self.log_box.isChecked() and y.size and np.any(y <= 0):
            self.log_box.setChecked(False)  # log of a non-positive objective is meaningless
        self.curve.setData(x, y)
        if history.metric_iterations:
            mx = np.asarray(history.metric_iterations, dtype=float)
            for k, curve in self.metric_curves.items():
                curve.setData(mx, np.asarray(history.metrics[k], dtype=float))
        elif self.metrics.isVisible() and history.iterations:
            self._final_scores(history)

    def _final_scores(self, history: RunHistory) -> None:
        final = history.final
        scores = final.metrics if final is not None else {}
        x = float(history.iterations[-1])
        for k, points in self.final_points.items():
            if k in scores:
                points.setData([x], [float(scores[k])])
        self.set_note(scores_note(self.method_title, False, bool(scores)))
