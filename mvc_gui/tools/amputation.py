"""Tools > Missing views: score against the share of samples that miss views (amputation).

The noise robustness window in another mode (``core.experiments.missing``): views are removed
from a growing share of the samples (each keeps at least one), every method rerun per rate
and seed. Methods that handle incomplete views (FMDC, DTLL, ALPC, MVSC-HFD) get the observed
mask and never read the removed rows; the others get them filled (the view's mean over its
observed samples, or zeros). Left: the score against the missing rate, one line per method; right:
each method's view weights against the rate.
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel

from core.data.dataset import DataError
from core.experiments.amputation import FILLS
from core.experiments.missing import Amputation, handling, run_amputation
from core.experiments.sweep import parse_seeds
from core.methods import REGISTRY
from mvc_gui.run.experiment_worker import Job
from mvc_gui.tools.experiment_window import WindowLauncher
from mvc_gui.tools.host import ToolHost
from mvc_gui.tools.robustness import RobustnessWindow, _checked

__all__ = ["AmputationWindow", "install"]

AXIS = "share of samples missing views"


class AmputationWindow(RobustnessWindow):
    title = "Missing views"
    idle_text = "Tick methods, set the missing rates, then Start."
    csv_title = "Export missing-views table"
    plan: Amputation | None

    def __init__(self, win) -> None:
        self.fill = QComboBox()  # before the base builds the window (it lists the inputs)
        super().__init__(win)
        # the noise inputs have no meaning here: hide them with their captions
        for label in self.findChildren(QLabel):
            if label.text() == "Noisy views":
                label.hide()
        self.views.hide()
        form = next(f for f in self.findChildren(QFormLayout) if f.indexOf(self.fraction) >= 0)
        form.setRowVisible(self.fraction, False)
        form.labelForField(self.levels).setText("Missing rates")
        self.levels.setText("0, 0.1, 0.3, 0.5")
        self.levels.setToolTip(
            "Shares of the samples that lose views (each keeps at least one view)"
        )
        self.fill.addItems(FILLS)
        self.fill.setCurrentText("mean")
        self.fill.setToolTip(
            "How methods without incomplete-view support get the removed views: the view's "
            "mean over its observed samples, or zeros"
        )
        form.insertRow(form.getWidgetPosition(self.jobs)[0], "Fill for others", self.fill)
        self.score_box.title.setText("Score vs missing rate")
        self.weights_box.title.setText("View weights vs missing rate")
        self.score_plot.setLabel("bottom", AXIS)
        self.resize(1100, 680)

    def _make_plan(self, session) -> Amputation:
        methods = [list(REGISTRY)[i] for i in _checked(self.methods)]
        if not methods:
            raise DataError("tick at least one method")
        try:
            rates = [float(t) for t in self.levels.text().replace(";", ",").split(",") if t.strip()]
        except ValueError:
            raise DataError(
                f"missing rates must be numbers like 0.1, 0.3, 0.5; got {self.levels.text()!r}"
            ) from None
        if not rates:
            raise DataError("give at least one missing rate")
        panel = self.win.method_panel
        params = [(m, panel.form(m).values()) for m in methods]
        fill = self.fill.currentText()
        seeds = parse_seeds(self.seeds.text())
        return Amputation(params, rates, seeds, [], session.view_names, fill=fill)

    def _begin(self, session, plan: Amputation) -> Job:
        self._reset_plots()
        self.score.setCurrentText("acc" if session.labels is not None else "ari_vs_clean")
        how = ", ".join(f"{m}: {handling(m, plan.fill)}" for m in plan.method_names())
        self.status.setText(f"Running {len(plan.trials)} runs ({how})...")
        idx = session.view_indices
        views = [session.dataset.views[i] for i in idx]
        prep = [session.methods[i] for i in idx]
        n_jobs = self.jobs.value()

        def job(on_row, cancel) -> None:  # in the worker thread
            run_amputation(
                plan,
                views,
                session.labels,
                preprocessing=prep,
                n_jobs=n_jobs,
                on_row=on_row,
                cancel=cancel,
            )

        return job

    def _reset_plots(self) -> None:
        super()._reset_plots()
        plots = list(self.weight_plots.values())
        if plots:
            plots[-1].setLabel("bottom", AXIS)

    def _inputs(self):
        return (self.methods, self.levels, self.seeds, self.fill, self.jobs)

    def _csv_name(self) -> str:
        return f"{self.win.session.dataset.name}_missing_views.csv"


def install(host: ToolHost) -> WindowLauncher:
    """Tools > Missing views... (one window per main window, created on first use)."""
    return WindowLauncher(
        host,
        AmputationWindow,
        "&Missing views (amputation)...",
        "Accuracy of methods as views are removed from a growing share of the samples",
    )
