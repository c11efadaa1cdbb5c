"""The window's file loading: one isolated load at a time, its progress in the status bar and
a Cancel button beside it.

Every file the window opens (File > Open, recent files, drops, a session's data) goes through
:meth:`FileLoading.load`. A newer load cancels the one under way; when a load fails or is
cancelled the current dataset stays and the message bar says why.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QPushButton

from core.data.io import DataSpec
from mvc_gui.run.load_worker import LoadLimits, LoadWorker

__all__ = ["FileLoading"]


class FileLoading(QObject):
    """Needs the window's ``stage_label``, ``progress``, ``messages``, ``session`` and
    ``statusBar()``. ``failed(message, details)`` after a failed load; ``finished()`` after
    any load ends (done, failed or cancelled)."""

    failed = Signal(str, str)
    finished = Signal()
    summary_updated = Signal()

    def __init__(self, win: Any) -> None:
        super().__init__(win)
        self.win = win
        self.limits = LoadLimits()
        self.current: LoadWorker | None = None
        self._workers: list[LoadWorker] = []
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop reading the file; the current data stays")
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.hide()
        win.statusBar().addPermanentWidget(self.cancel_button)

    @property
    def busy(self) -> bool:
        return self.current is not None

    def load(
        self,
        path: str | DataSpec,
        done: Callable[[tuple], None],
        failed: Callable[[str], None] | None = None,
    ) -> LoadWorker:
        """Read ``path`` (or the files a DataSpec names) in a child process;
        ``done((session, summary))`` on success, else the message bar says why and
        ``failed(message)`` is called (also when cancelled)."""
        self.cancel()
        if isinstance(path, DataSpec):  # views and metadata from several files
            name = "views " + ", ".join(v.name for v in path.views)
        else:
            path = str(path)
            name = Path(path).name
        worker = LoadWorker(path, self.limits, parent=self)
        worker.progress.connect(lambda f, what: self._on_progress(worker, name, f, what))
        worker.done.connect(lambda res: self._end(worker) and done(res))
        worker.summary_ready.connect(self._on_summary)
        worker.failed.connect(lambda msg, det: self._on_failed(worker, msg, det, failed))
        worker.cancelled.connect(lambda: self._on_cancelled(worker, name, failed))
        self._workers = [w for w in self._workers if w.is_alive()] + [worker]
        self.current = worker
        self.win.stage_label.setText(f"Loading {name}...")
        self.win.progress.setValue(0)
        self.cancel_button.show()
        worker.start()
        return worker

    def cancel(self) -> None:
        """Cancel the load under way (its child is killed); the current data stays."""
        if self.current is not None:
            self.current.stop()

    def shutdown(self, timeout: float = 2.0) -> None:
        for w in self._workers:
            w.stop()
        for w in self._workers:
            w.join(timeout)

    # -- slots (GUI thread) ---------------------------------------------------------------------
    def _end(self, worker: LoadWorker) -> bool:
        """Whether ``worker`` is the current load (stale ones are ignored); resets the UI."""
        if worker is not self.current:
            return False
        self.current = None
        self.cancel_button.hide()
        self.win.progress.setValue(0)
        self.finished.emit()
        return True

    def _on_summary(self, session: object, summary: dict) -> None:
        """The exact summary of a memory-mapped file, after the sampled one it replaces."""
        if self.win.session is session:
            self.win.dataset_panel.set_session(session, summary)
            self.summary_updated.emit()

    def _on_progress(self, worker: LoadWorker, name: str, fraction: float, what: str) -> None:
        if worker is self.current:
            self.win.stage_label.setText(f"Loading {name}: {what}...")
            self.win.progress.setValue(int(1000 * min(max(fraction, 0.0), 1.0)))

    def _on_failed(self, worker: LoadWorker, message: str, details: str, then=None) -> None:
        if not self._end(worker):
            return
        self.win.stage_label.setText("Ready.")
        keep = " The previous dataset stays loaded." if self.win.session else ""
        text = f"Could not open the data: {message.rstrip('.')}.{keep}"
        self.win.messages.show_message("error", text, details)
        self.failed.emit(message, details)
        if then is not None:
            then(message)

    def _on_cancelled(self, worker: LoadWorker, name: str, then=None) -> None:
        if not self._end(worker):
            return
        keep = "; the previous dataset stays loaded" if self.win.session else ""
        self.win.stage_label.setText(f"Loading {name} was cancelled{keep}.")
        if then is not None:
            then(f"loading {name} was cancelled")
