"""Tools > Noise robustness: score and view weights against Gaussian noise on chosen views.

The RG-MVC experiment for any methods: Gaussian noise (level x each feature's std, on 80 % of
the entries; ``core.experiments.robustness``) on the ticked views, every method rerun per level
and seed in an :class:`ExperimentWorker` thread (joblib inside). Left: the score against the
noise level, one line per method (mean over seeds, error bars one std). Right: each method's
learned view weights against the level, one line per view.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from core.data.dataset import DataError
from core.experiments.robustness import Robustness, run_robustness
from core.experiments.sweep import parse_seeds
from core.methods import REGISTRY
from mvc_gui.model.palette import cluster_colors
from mvc_gui.plots.base import PlotBox
from mvc_gui.run.experiment_worker import Job
from mvc_gui.tools.experiment_window import ExperimentWindow, WindowLauncher
from mvc_gui.tools.host import ToolHost

__all__ = ["RobustnessWindow", "install"]

SCORES = ("acc", "nmi", "ari", "ari_vs_clean", "silhouette")


def _checklist(items: list[str], checked: set[str]) -> QListWidget:
    box = QListWidget()
    for text in items:
        item = QListWidgetItem(text)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked if text in checked else Qt.CheckState.Unchecked)
        box.addItem(item)
    return box


def _checked(box: QListWidget) -> list[int]:
    return [i for i in range(box.count()) if box.item(i).checkState() == Qt.CheckState.Checked]


def _pen(i: int) -> Any:
    r, g, b = cluster_colors(max(i + 1, 2))[i]
    return pg.mkPen((r, g, b), width=2)


class RobustnessWindow(ExperimentWindow):
    title = "Noise robustness"
    idle_text = "Tick methods and noisy views, then Start."
    csv_title = "Export robustness table"
    plan: Robustness | None

    def __init__(self, win) -> None:
        super().__init__(win)
        self.methods = _checklist(list(REGISTRY), {win.method_panel.method or ""})
        self.methods.setToolTip(
            "Methods to compare (each with its parameters from the method panel)"
        )
        self.views = QListWidget()
        self.views.setToolTip("Views that receive the noise (the others stay clean)")
        self.levels = QLineEdit("0, 0.25, 0.5, 1, 2")
        self.levels.setToolTip("Noise levels α: noise std = α x each feature's std")
        self.seeds = QLineEdit("0, 1, 2")
        self.fraction = QDoubleSpinBox()
        self.fraction.setRange(0.0, 1.0)
        self.fraction.setSingleStep(0.05)
        self.fraction.setValue(0.8)
        self.fraction.setToolTip("Share of the entries of a noisy view that get noise (paper: 0.8)")
        self.score = QComboBox()
        self.score.addItems(SCORES)
        self.score.setToolTip(
            "ari_vs_clean: agreement with the same method's labels at the "
            "lowest level (needs no true labels)"
        )
        for box in (self.methods, self.views):
            box.setMaximumHeight(150)
        lists = QHBoxLayout()
        for title, box in (("Methods", self.methods), ("Noisy views", self.views)):
            col = QVBoxLayout()
            col.addWidget(QLabel(title))
            col.addWidget(box)
            lists.addLayout(col)
        form = QFormLayout()
        form.addRow("Noise levels", self.levels)
        form.addRow("Seeds", self.seeds)
        form.addRow("Noisy share", self.fraction)
        form.addRow("Parallel runs", self.jobs)
        form.addRow("Score", self.score)
        lists.addLayout(form)
        self.score_view = pg.PlotWidget()
        self.score_plot = self.score_view.getPlotItem()
        self.score_plot.setLabel("bottom", "noise level α")
        self.score_plot.getAxis("left").enableAutoSIPrefix(False)  # scores, not "x0.001"
        self.score_plot.showGrid(x=True, y=True, alpha=0.15)
        self.score_plot.addLegend(offset=(-10, 10))
        self.weights_view = pg.GraphicsLayoutWidget()
        split = QSplitter(Qt.Orientation.Horizontal)
        self.score_box = PlotBox("Score vs noise", self.score_view)
        self.weights_box = PlotBox("View weights vs noise", self.weights_view)
        split.addWidget(self.score_box)
        split.addWidget(self.weights_box)
        self._lay_out(lists, split)
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.error_bars: dict[str, pg.ErrorBarItem] = {}
        self.weight_curves: dict[str, list[pg.PlotDataItem]] = {}
        self.weight_plots: dict[str, pg.PlotItem] = {}
        self.score.currentIndexChanged.connect(self._redraw)
        for box, name in ((self.score_box, "score"), (self.weights_box, "weights")):
            box.export_button.clicked.connect(
                lambda _=False, b=box, n=name: self._export_plot(
                    "Export plot", f"robustness_{n}.png", b
                )
            )
        win.data_loaded.connect(self.refresh)
        win.dataset_panel.selection_changed.connect(self.refresh)
        self.resize(1100, 680)
        self._set_running(False)
        self.refresh()

    def refresh(self) -> None:
        """List the session's included views; even-numbered ones ticked (as in the paper)."""
        if self.running:
            return
        names = self.win.session.view_names if self.win.session else []
        self.views.clear()
        for i, name in enumerate(names):
            item = QListWidgetItem(f"{i + 1}: {name}")
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            even = (i + 1) % 2 == 0
            item.setCheckState(Qt.CheckState.Checked if even else Qt.CheckState.Unchecked)
            self.views.addItem(item)

    def _sync(self, session) -> None:
        if self.views.count() != len(session.view_names):
            self.refresh()

    def _make_plan(self, session) -> Robustness:
        methods = [list(REGISTRY)[i] for i in _checked(self.methods)]
        if not methods:
            raise DataError("tick at least one method")
        noisy = _checked(self.views)
        if not noisy:
            raise DataError("tick at least one view to corrupt")
        try:
            levels = [
                float(t) for t in self.levels.text().replace(";", ",").split(",") if t.strip()
            ]
        except ValueError:
            raise DataError(
                f"noise levels must be numbers like 0, 0.5, 1; got {self.levels.text()!r}"
            ) from None
        panel = self.win.method_panel
        params = [(m, panel.form(m).values()) for m in methods]
        return Robustness(params, levels, parse_seeds(self.seeds.text()), noisy, session.view_names)

    def _begin(self, session, plan: Robustness) -> Job:
        self._reset_plots()
        self.score.setCurrentText("acc" if session.labels is not None else "ari_vs_clean")
        self.status.setText(f"Running {len(plan.trials)} runs...")
        idx = session.view_indices
        views = [session.dataset.views[i] for i in idx]
        prep = [session.methods[i] for i in idx]
        n_jobs, fraction = self.jobs.value(), self.fraction.value()

        def job(on_row, cancel) -> None:  # in the worker thread
            run_robustness(
                plan,
                views,
                session.labels,
                preprocessing=prep,
                fraction=fraction,
                n_jobs=n_jobs,
                on_row=on_row,
                cancel=cancel,
            )

        return job

    def _row_added(self) -> None:
        self._redraw()

    def _inputs(self) -> tuple[QWidget, ...]:
        return (self.methods, self.views, self.levels, self.seeds, self.fraction, self.jobs)

    # -- plots -----------------------------------------------------------------------------------
    def _reset_plots(self) -> None:
        self.score_plot.clear()
        self.curves, self.error_bars, self.weight_curves, self.weight_plots = {}, {}, {}, {}
        self.weights_view.clear()
        plan = self.plan
        noisy = set(plan.noisy_views)
        methods = plan.method_names()
        for i, method in enumerate(methods):
            pen = _pen(i)
            self.curves[method] = self.score_plot.plot(
                [], [], pen=pen, symbol="o", symbolSize=6, symbolBrush=pen.color(), name=method
            )
            self.error_bars[method] = pg.ErrorBarItem(pen=pen, beam=0.03)
            self.score_plot.addItem(self.error_bars[method])
        # one key for all weight plots: view colours, dashed = noisy
        key = []
        for v, name in enumerate(plan.view_names):
            dash = "- - " if v in noisy else "— "
            key.append(f"<span style='color:{_pen(v).color().name()}'>{dash}{name}</span>")
        self.weights_view.addLabel("&nbsp;&nbsp;".join(key), row=0, col=0, size="8pt")
        for i, method in enumerate(methods):
            plot = self.weights_view.addPlot(row=i + 1, col=0, title=method)
            self.weight_plots[method] = plot
            plot.setLabel("left", "weight")
            plot.getAxis("left").enableAutoSIPrefix(False)
            plot.setYRange(0, 1, padding=0.02)  # weights sum to 1: same scale for every method
            plot.showGrid(y=True, alpha=0.15)
            curves = []
            for v in range(len(plan.view_names)):
                style = Qt.PenStyle.DashLine if v in noisy else Qt.PenStyle.SolidLine
                curves.append(
                    plot.plot([], [], pen=pg.mkPen(_pen(v).color(), width=2, style=style))
                )
            self.weight_curves[method] = curves
            if i == len(methods) - 1:
                plot.setLabel("bottom", "noise level α")

    def _redraw(self) -> None:
        plan = self.plan
        if plan is None or not self.curves:
            return
        score = self.score.currentText()
        self.score_plot.setLabel("left", score)
        for method, (levels, mean, std) in plan.summary(score).items():
            ok = np.isfinite(mean)
            self.curves[method].setData(levels[ok], mean[ok])
            self.error_bars[method].setData(x=levels[ok], y=mean[ok], height=2 * std[ok])
        for method, table in plan.weight_summary().items():
            plot = self.weight_plots[method]
            if table is None:
                done = any(r and r["method"] == method for r in plan.rows)
                if done:
                    plot.setTitle(f"{method}: no view weights")
                continue
            ok = np.isfinite(table[:, 0])
            for v, curve in enumerate(self.weight_curves[method]):
                curve.setData(np.array(plan.levels)[ok], table[ok, v])

    def _csv_name(self) -> str:
        return f"{self.win.session.dataset.name}_robustness.csv"


def install(host: ToolHost) -> WindowLauncher:
    """Tools > Noise robustness... (one window per main window, created on first use)."""
    return WindowLauncher(
        host,
        RobustnessWindow,
        "Noise &robustness...",
        "Accuracy and view weights of methods as noise is added to some views",
    )
