"""The frame shared by the experiment windows (Tools > Parameter sweep, Tools > Noise robustness).

A plan (:class:`core.experiments.plan.BatchPlan`) runs in an :class:`ExperimentWorker` thread,
so the window stays responsive. This base class owns the Start / Cancel / Export CSV buttons,
the progress bar and status line, the warnings about failed runs as they arrive, plot export,
and cancelling when the window or the main window closes. A subclass builds its inputs and
plots, and fills in the hooks: ``_make_plan``, ``_begin`` (reset the plots, return the job),
``_inputs``, ``_row_added`` and ``_csv_name`` (``refresh``, ``_sync`` and ``_end_text`` are
optional).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLayout,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.data.dataset import DataError
from core.experiments.plan import BatchPlan
from core.methods.params import ParamError
from mvc_gui.panels.message_bar import MessageBar
from mvc_gui.run.experiment_worker import ExperimentWorker, Job
from mvc_gui.tools.host import ToolHost

__all__ = ["ExperimentWindow", "WindowLauncher"]

_ENDED = {"finished": "Finished", "cancelled": "Cancelled", "failed": "Stopped"}


class ExperimentWindow(QWidget):
    title = "Experiment"
    idle_text = "Choose the settings, then Start."
    start_error = "Cannot start"  # followed by ": <the problem>"
    failed_text = "The experiment failed"
    nothing_text = "Nothing to export yet: run the experiment first."
    csv_title = "Export table"

    def __init__(self, win) -> None:
        super().__init__(win, Qt.WindowType.Window)
        self.win = win
        self.setWindowTitle(f"{self.title} \u2014 MVC Studio")
        self.plan: BatchPlan | None = None
        self.worker: ExperimentWorker | None = None
        self.messages = MessageBar()
        self.jobs = QSpinBox()
        self.jobs.setRange(1, max(os.cpu_count() or 1, 1) * 4)
        self.jobs.setValue(os.cpu_count() or 1)
        self.jobs.setToolTip("Runs in parallel (processes; 1 runs them one after another)")
        self.start_button = QPushButton("Start")
        self.cancel_button = QPushButton("Cancel")
        self.export_button = QPushButton("Export CSV...")
        self.progress = QProgressBar()
        self.status = QLabel(self.idle_text)
        self.start_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.export_button.clicked.connect(self.export_csv)
        win.installEventFilter(self)  # cancel the run when the main window closes

    def _lay_out(self, inputs: QLayout, results: QWidget) -> None:
        """Messages, the subclass's inputs, the buttons, the status, then the results."""
        buttons = QHBoxLayout()
        for b in (self.start_button, self.cancel_button, self.export_button):
            buttons.addWidget(b)
        buttons.addWidget(self.progress, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.messages)
        layout.addLayout(inputs)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        layout.addWidget(results, 1)

    # -- hooks -------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Bring the inputs up to date with the main window (when the window is shown)."""

    def _sync(self, session) -> None:
        """Before planning a run: refresh inputs that went stale."""

    def _make_plan(self, session) -> BatchPlan:
        raise NotImplementedError

    def _begin(self, session, plan: BatchPlan) -> Job:
        """Reset the plots and the status for ``plan``; the job for the worker thread."""
        raise NotImplementedError

    def _inputs(self) -> tuple[QWidget, ...]:
        """Widgets locked while a run is going."""
        return (self.jobs,)

    def _row_added(self) -> None:
        """Redraw after a row arrived."""

    def _end_text(self, summary: str) -> str:
        return f"{summary}."

    def _csv_name(self) -> str:
        raise NotImplementedError

    # -- running -----------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.worker is not None

    def start(self) -> None:
        session = self.win.session
        if self.running:
            return
        if session is None:
            self.messages.show_message("error", "Load a dataset first (File > Open).")
            return
        self._sync(session)
        try:
            session.check()
            plan = self._make_plan(session)
        except (ParamError, DataError) as exc:
            self.messages.show_message("error", f"{self.start_error}: {exc}")
            return
        self.messages.clear()
        self.plan = plan
        self.progress.setRange(0, len(plan.tasks))
        self.progress.setValue(0)
        self.worker = worker = ExperimentWorker(self._begin(session, plan), parent=self)
        worker.row_ready.connect(lambda i, row: self._on_row(worker, i, row))
        worker.ended.connect(lambda *a: self._on_ended(worker, *a))
        self._set_running(True)
        worker.start()

    def cancel(self) -> None:
        if self.worker is not None:
            self.worker.cancel()
            self.status.setText("Cancelling...")

    def _on_row(self, worker: ExperimentWorker, index: int, row: dict[str, Any]) -> None:
        if worker is not self.worker:  # a late row of a run replaced since
            return
        self.progress.setValue(self.progress.value() + 1)
        if row["status"] == "error":
            what = self.plan.describe_index(index)
            self.messages.show_message("warning", f"{what} failed: {row['error']}")
        self._row_added()

    def _on_ended(self, worker: ExperimentWorker, status: str, message: str, details: str) -> None:
        if worker is not self.worker:
            return
        self.worker = None
        self._set_running(False)
        if status == "failed":
            self.messages.show_message("error", f"{self.failed_text}: {message}", details)
        done = sum(r is not None for r in self.plan.rows)
        self.status.setText(
            self._end_text(f"{_ENDED[status]}: {done} of {len(self.plan.rows)} runs")
        )

    def _set_running(self, running: bool) -> None:
        self.start_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.export_button.setEnabled(not running and self.plan is not None)
        for w in self._inputs():
            w.setEnabled(not running)

    # -- export ------------------------------------------------------------------------------
    def export_csv(self) -> None:
        if self.plan is None:
            self.messages.show_message("error", self.nothing_text)
            return
        if path := self.win.ask_save_path(self.csv_title, self._csv_name(), "CSV (*.csv)"):
            try:
                self.plan.write_csv(path)
            except OSError as exc:
                self.messages.show_message("error", f"Could not write {path}: {exc}")
                return
            self.status.setText(f"Wrote {path}")

    def _export_plot(self, title: str, file_name: str, box: Any) -> None:
        """Save ``box.scene_item()`` as PNG or SVG."""
        from mvc_gui.plots.base import export_item

        if path := self.win.ask_save_path(title, file_name, "PNG (*.png);;SVG (*.svg)"):
            try:
                export_item(path, box.scene_item())
            except OSError as exc:
                self.messages.show_message("error", f"Could not write {path}: {exc}")

    # -- closing -----------------------------------------------------------------------------
    def shutdown(self, timeout: float = 3.0) -> None:
        if self.worker is not None:
            self.worker.cancel()
            self.worker.join(timeout)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self.win and event.type() == QEvent.Type.Close:
            self.shutdown()
        return False

    def closeEvent(self, event) -> None:
        self.cancel()
        event.accept()


class WindowLauncher:
    """A Tools menu action showing one tool window, created on first use, refreshed on show."""

    def __init__(self, host: ToolHost, make: Callable[[Any], ExperimentWindow], text: str,
                 tip: str) -> None:  # fmt: skip
        self.window: ExperimentWindow | None = None
        self.action = QAction(text, host)
        self.action.setStatusTip(tip)
        self.action.triggered.connect(lambda _=False: self.show(host, make))
        host.tools_menu.addAction(self.action)

    def show(self, host: ToolHost, make: Callable[[Any], ExperimentWindow]) -> ExperimentWindow:
        if self.window is None:
            self.window = make(host)
        self.window.refresh()
        self.window.show()
        self.window.raise_()
        return self.window
