"""A background thread that drives a sweep or a robustness experiment (joblib inside).

The GUI thread never waits on it: each finished run arrives as ``row_ready(index, row)`` and the
end as ``ended(status, message, details)`` with status "finished", "cancelled" or "failed" (both
queued to the GUI thread because they are emitted from this thread). ``cancel()`` sets the
batch's :class:`~core.experiments.parallel.CancelFlag`: running jobs stop at their next solver
state, queued ones are dropped. The thread plumbing (start, join, emitting to a window that may
be gone) is the other workers' ``_ThreadWorker``.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from core.experiments.parallel import CancelFlag
from mvc_gui.run.workers import _ThreadWorker

__all__ = ["ExperimentWorker"]

Job = Callable[[Callable[[int, dict[str, Any]], None], CancelFlag], None]


class ExperimentWorker(_ThreadWorker):
    row_ready = Signal(int, object)
    ended = Signal(str, str, str)

    def __init__(self, job: Job, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._job = job
        self.flag = CancelFlag()

    def cancel(self) -> None:
        self.stop()
        self.flag.set()

    def _main(self) -> None:
        status, message, details = "finished", "", ""
        try:
            self._job(lambda i, row: self._emit(self.row_ready, i, row), self.flag)
            if self.flag.is_set():
                status = "cancelled"
        except Exception as exc:
            status, message, details = "failed", str(exc), traceback.format_exc()
        finally:
            self.flag.cleanup()
        self._emit(self.ended, status, message, details)
