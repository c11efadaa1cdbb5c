"""Tools > Parameter sweep: two parameters of the current method over grids, as a heat map.

The window reads the main window's dataset, method and parameters when Start is pressed; the
sweep runs in an :class:`ExperimentWorker` thread (preprocessing included) that drives
joblib, so the window stays responsive and Cancel stops it. Cells fill in as runs finish.
Clicking a cell copies its parameters and seed into the method panel and starts that run in
the main window, where it converges live (runs are seeded, so it is the same run).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QComboBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QWidget

from core.experiments.sweep import (
    Sweep,
    default_values,
    format_value,
    parse_seeds,
    parse_values,
    run_sweep,
    sweepable,
)
from core.methods import REGISTRY
from core.methods.params import ParamError
from mvc_gui.plots.sweep_heatmap import SweepHeatmap
from mvc_gui.run.experiment_worker import Job
from mvc_gui.tools.experiment_window import ExperimentWindow, WindowLauncher
from mvc_gui.tools.host import ToolHost

__all__ = ["SweepWindow", "install"]

NONE = "(none)"
_PLAIN = ("n_clusters", "max_iter", "tol")  # valid sweep axes, but rarely the interesting ones


def _join(values: list[Any]) -> str:
    return ", ".join(format_value(v) for v in values)


class SweepWindow(ExperimentWindow):
    title = "Parameter sweep"
    idle_text = "Choose parameters and grids, then Start."
    start_error = "Cannot start the sweep"
    failed_text = "The sweep failed"
    nothing_text = "Nothing to export yet: run a sweep first."
    csv_title = "Export sweep table"
    plan: Sweep | None

    def __init__(self, win) -> None:
        super().__init__(win)
        self._method: str | None = None
        self.method_label = QLabel()
        self.x_param, self.y_param = QComboBox(), QComboBox()
        self.x_values, self.y_values = QLineEdit(), QLineEdit()
        for edit in (self.x_values, self.y_values):
            edit.setToolTip(
                "Values separated by commas, or lo:hi:count for an even (log-scale "
                "parameters: geometric) range"
            )
        self.seeds = QLineEdit("0")
        self.seeds.setToolTip("Seeds run in every cell, e.g. 0,1,2 (stability needs two or more)")
        self.score = QComboBox()
        self.score.setToolTip("The score drawn in the heat map (mean over seeds)")
        form = QFormLayout()
        form.addRow("Method", self.method_label)
        for label, combo, edit in (
            ("Columns", self.x_param, self.x_values),
            ("Rows", self.y_param, self.y_values),
        ):
            row = QHBoxLayout()
            row.addWidget(combo)
            row.addWidget(edit, 1)
            form.addRow(label, row)
        form.addRow("Seeds", self.seeds)
        form.addRow("Parallel runs", self.jobs)
        form.addRow("Score", self.score)
        self.heat = SweepHeatmap()
        self._lay_out(form, self.heat)
        self.x_param.currentIndexChanged.connect(lambda: self._fill(self.x_param, self.x_values))
        self.y_param.currentIndexChanged.connect(lambda: self._fill(self.y_param, self.y_values))
        self.score.currentIndexChanged.connect(self._redraw)
        self.heat.cell_clicked.connect(self.load_cell)
        self.heat.export_button.clicked.connect(self.export_plot)
        win.method_panel.method_changed.connect(lambda _name: self.refresh())
        self.resize(760, 640)
        self._set_running(False)
        self.refresh()

    # -- parameters ---------------------------------------------------------------------------
    def refresh(self) -> None:
        """Offer the current method's parameters (unless a sweep is running)."""
        method = self.win.method_panel.method
        if self.running or method is None or method == self._method:
            return
        self._method = method
        self.method_label.setText(REGISTRY[method].title or method)
        params = sweepable(method)
        names = [p.name for p in params]
        first = [p.name for p in params if not p.advanced and p.name not in _PLAIN] + names
        picks = list(dict.fromkeys(first))
        for combo, extra, pick in (
            (self.x_param, [], picks[0]),
            (self.y_param, [NONE], picks[1] if len(picks) > 1 else NONE),
        ):
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(extra + names)
            combo.setCurrentText(pick)
            combo.blockSignals(False)
        self._fill(self.x_param, self.x_values)
        self._fill(self.y_param, self.y_values)

    def _fill(self, combo: QComboBox, edit: QLineEdit) -> None:
        name = combo.currentText()
        spec = REGISTRY[self._method].param_spec if self._method else None
        if spec is None or name not in spec:
            edit.setText("")
            edit.setEnabled(False)
            return
        edit.setEnabled(True)
        p = spec[name]
        edit.setText(_join(default_values(p)))
        edit.setToolTip(f"{p.help} ({p.range_text()}). Values separated by commas.")

    def _make_plan(self, session) -> Sweep:
        method = self.win.method_panel.method
        axes = [parse_values(method, self.x_param.currentText(), self.x_values.text())]
        if self.y_param.currentText() != NONE:
            if self.y_param.currentText() == self.x_param.currentText():
                raise ParamError("choose two different parameters for columns and rows")
            axes.append(parse_values(method, self.y_param.currentText(), self.y_values.text()))
        base = dict(self.win.method_panel.params())
        return Sweep(method, axes, parse_seeds(self.seeds.text()), base)

    # -- running -------------------------------------------------------------------------------
    def _sync(self, session) -> None:
        if self.win.method_panel.method != self._method:
            self.refresh()

    def _begin(self, session, sweep: Sweep) -> Job:
        x, *rest = sweep.axes
        y = rest[0] if rest else None
        self.heat.set_axes(
            x.name,
            [format_value(v) for v in x.values],
            y.name if y else None,
            [format_value(v) for v in y.values] if y else [],
        )
        self.status.setText(f"Running {len(sweep.cells)} runs of {sweep.method}...")
        n_jobs = self.jobs.value()

        def job(on_row, cancel) -> None:  # in the worker thread
            views, _ = session.prepared()
            run_sweep(
                sweep, views, session.labels, n_jobs=n_jobs, on_row=on_row, cancel=cancel,
                k_views=session.views_for_k(),
            )  # fmt: skip

        return job

    def _row_added(self) -> None:
        self._update_scores()
        self._redraw()

    def _end_text(self, summary: str) -> str:
        failed = sum(1 for r in self.plan.rows if r and r["status"] == "error")
        return f"{summary} ({failed} failed). Click a cell to load that run."

    def _inputs(self) -> tuple[QWidget, ...]:
        return (self.x_param, self.y_param, self.x_values, self.y_values, self.seeds, self.jobs)

    def _set_running(self, running: bool) -> None:
        super()._set_running(running)
        if not running:
            self.y_values.setEnabled(self.y_param.currentText() != NONE)

    def _update_scores(self) -> None:
        names = self.plan.scores()
        current = self.score.currentText()
        if names == [self.score.itemText(i) for i in range(self.score.count())]:
            return
        self.score.blockSignals(True)
        self.score.clear()
        self.score.addItems(names)
        preferred = [current, "acc", "silhouette"]
        self.score.setCurrentText(
            next((s for s in preferred if s in names), names[0] if names else "")
        )
        self.score.blockSignals(False)

    def _redraw(self) -> None:
        if self.plan is not None and self.score.currentText():
            self.heat.set_values(self.plan.grid(self.score.currentText()))
            self.heat.title.setText(f"Sweep: {self.score.currentText()} (mean over seeds)")

    # -- results -------------------------------------------------------------------------------
    def load_cell(self, ix: int, iy: int) -> None:
        """Run the cell's parameters (first seed) in the main window."""
        sweep = self.plan
        if sweep is None:
            return
        coords = (ix, iy)[: len(sweep.axes)]
        cell = next(c for c in sweep.cells if c.coords == coords)
        panel = self.win.method_panel
        if panel.method != sweep.method:
            panel.set_method(sweep.method)
        panel.set_params(cell.params)
        self.win.run()
        self.win.stage_label.setText(f"Sweep cell: {sweep.describe(cell)}")

    def _csv_name(self) -> str:
        return f"{self.win.session.dataset.name}_{self.plan.method}_sweep.csv"

    def export_plot(self) -> None:
        self._export_plot("Export heat map", "sweep.png", self.heat)


def install(host: ToolHost) -> WindowLauncher:
    """Tools > Parameter sweep... (one window per main window, created on first use)."""
    return WindowLauncher(
        host,
        SweepWindow,
        "Parameter &sweep...",
        "Run the current method over a grid of two parameters",
    )
