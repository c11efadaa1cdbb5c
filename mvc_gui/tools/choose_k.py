"""Choosing k and suggesting parameters without labels.

A "Number of clusters" dock shows the gap-score curve of the last n_clusters="auto" run (or
of "Estimate now") with its three ranked candidates marked on it, and the same candidates as
a short list with their evidence (gap score, stability); clicking a point or a list entry
sets that k in the method panel. The method panel's "Suggest parameters" button runs the label-free
suggestion (``core.experiments.tune``, as ``mvc tune``) and applies the best cell. Both
computations run in a worker thread; this module only starts them and shows their results.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.experiments.sweep import format_value
from core.experiments.tune import TuneResult, tune
from core.numerics.k_estimate import candidate_evidence, coarse_note, describe_estimate
from core.numerics.n_clusters import estimate_n_clusters
from mvc_gui.model.data_session import DataSession
from mvc_gui.plots.k_curve import CANDIDATE_COLOURS, KCurvePlot
from mvc_gui.run.workers import TaskWorker
from mvc_gui.tools.host import ToolHost

__all__ = ["ChooseK", "candidate_text", "install"]


def _estimate(session: DataSession, seed: int) -> dict[str, Any]:
    k_views = session.views_for_k()  # as a run's estimate reads them, whatever the method
    views = k_views() if k_views else session.prepared()[0]
    return estimate_n_clusters(views, seed).to_dict()


def _suggest(method: str, session: DataSession, params: dict[str, Any]) -> TuneResult:
    views, _ = session.prepared()
    base = {k: v for k, v in params.items() if k in ("n_clusters", "max_iter", "tol")}
    return tune(method, views, base, true_labels=session.labels, k_views=session.views_for_k())


def candidate_text(rank: int, k: int, gap: float | None, stability: float | None) -> str:
    """One entry of the candidate list: '1. k = 12: gap score 1.00, stability 0.97'."""
    evidence = []
    if gap is not None:
        evidence.append(f"gap score {gap:.2f}")
    if stability is not None:
        evidence.append(f"stability {stability:.2f}")
    return f"{rank}. k = {k}" + (f": {', '.join(evidence)}" if evidence else "")


class ChooseK(QWidget):
    """The dock's content: the curve, the ranked candidates, "Estimate now" and a status."""

    def __init__(self, win: ToolHost) -> None:
        super().__init__()
        self.win = win
        self.workers: list[TaskWorker] = []
        self.dock: QDockWidget | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.plot = KCurvePlot()
        layout.addWidget(self.plot, 1)
        self.candidates = QListWidget()
        self.candidates.setToolTip(
            "The most plausible numbers of clusters, best first: gap score (1 = the largest "
            "drop of the anchor-graph spectrum) and stability (agreement of clusterings of "
            "random subsamples, 1 = identical). Click one to use it."
        )
        self.candidates.setMaximumHeight(self.candidates.fontMetrics().height() * 4 + 12)
        self.candidates.itemClicked.connect(self._on_candidate_clicked)
        layout.addWidget(self.candidates)
        row = QHBoxLayout()
        self.estimate_button = QPushButton("Estimate now")
        self.estimate_button.setToolTip(
            "Estimate the number of clusters of the loaded data (eigengaps of the multi-view "
            "anchor graph, confirmed by stability), without running a method"
        )
        self.estimate_button.clicked.connect(self.estimate)
        row.addWidget(self.estimate_button)
        self.status = QLabel("Run with n clusters = auto, or Estimate now.")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row.addWidget(self.status, 1)
        layout.addLayout(row)
        self.plot.k_clicked.connect(self.use_k)
        win.controller.run_finished.connect(self.on_run_finished)
        panel = win.method_panel
        panel.suggest_button.setEnabled(True)
        panel.suggest_button.clicked.connect(self.suggest)

    # -- the curve ----------------------------------------------------------------------------
    def show_estimate(self, est: dict[str, Any], text: str) -> None:
        self.plot.set_estimate(est)
        self.candidates.clear()
        for rank, (k, gap, stab) in enumerate(candidate_evidence(est)[:3]):
            item = QListWidgetItem(candidate_text(rank + 1, k, gap, stab))
            item.setData(Qt.ItemDataRole.UserRole, k)
            item.setForeground(QColor(CANDIDATE_COLOURS[rank]))
            self.candidates.addItem(item)
        note = coarse_note(est)
        note = f" Note: {note[0].upper()}{note[1:]}." if note else ""
        self.status.setText(text + note + " Click a candidate or a point to use another k.")
        if self.dock is not None:
            self.dock.show()
            self.dock.raise_()

    def on_run_finished(self, history: Any) -> None:
        est = getattr(history.result, "n_clusters_estimate", None)
        if est:
            self.show_estimate(est, f"The last run estimated {describe_estimate(est)}.")

    def _on_candidate_clicked(self, item: QListWidgetItem) -> None:
        k = int(item.data(Qt.ItemDataRole.UserRole))
        self.plot.select(k)
        self.use_k(k)

    def use_k(self, k: int) -> None:
        self.win.method_panel.set_params({"n_clusters": k})
        self.status.setText(f"n clusters set to {k}; press Run.")

    def _start(self, fn: Any, *args: Any, done: Any, what: str) -> TaskWorker | None:
        if self.win.session is None:
            self.win.messages.show_message("error", "Load a dataset first (File > Open).")
            return None
        worker = TaskWorker(fn, *args, parent=self)
        worker.done.connect(done)
        worker.failed.connect(
            lambda msg, details: self.win.messages.show_message(
                "error", f"{what} failed: {msg}", details
            )
        )
        self.workers = [w for w in self.workers if w.is_alive()] + [worker]
        self.status.setText(f"{what}...")
        worker.start()
        return worker

    def estimate(self) -> TaskWorker | None:
        seed = self.win.method_panel.params().get("random_state") or 0
        return self._start(
            _estimate, self.win.session, seed, done=self._on_estimated, what="Estimating k"
        )

    def _on_estimated(self, est: dict[str, Any]) -> None:
        self.show_estimate(est, f"Estimated {describe_estimate(est)} in {est['seconds']:.1f} s.")

    # -- suggested parameters -------------------------------------------------------------------
    def suggest(self) -> TaskWorker | None:
        panel = self.win.method_panel
        if panel.method is None:
            return None
        return self._start(
            _suggest,
            panel.method,
            self.win.session,
            panel.params(),
            done=self._on_suggested,
            what="Suggesting parameters",
        )

    def _on_suggested(self, result: TuneResult) -> None:
        panel = self.win.method_panel
        if panel.method == result.method:
            panel.set_params(result.best["params"])
        text = ", ".join(f"{k} = {format_value(v)}" for k, v in result.best["params"].items())
        note = (
            f" (regret against the best cell by labels: {result.regret:.3f} ACC)"
            if result.regret is not None
            else ""
        )
        self.status.setText(f"Suggested for {result.method}: {text}{note}.")
        self.win.messages.show_message(
            "info", f"Suggested {result.method} parameters applied: {text}{note}."
        )


def install(win: ToolHost) -> ChooseK:
    """Add the "Number of clusters" dock and enable "Suggest parameters"; returns the tool."""
    tool = ChooseK(win)
    dock = win.add_dock(
        "Number of clusters", tool, Qt.DockWidgetArea.RightDockWidgetArea, "chooseKDock"
    )
    results = win.findChild(QDockWidget, "resultsDock")
    if results is not None:  # a tab next to Results, brought forward when a curve arrives
        win.tabifyDockWidget(results, dock)
        results.raise_()
    tool.dock = dock
    return tool
