"""Autosave: a crash or a kill never loses the session.

The window's session (data source, view choices, method, parameters and runs; the format of
:mod:`core.records.session_file`) is written atomically after every change of the run list and
on a timer when anything changed, to ``<AppDataLocation>/autosave/session-<pid>-<window>.mvcs.json``
(``MVC_AUTOSAVE_DIR`` replaces the folder; tests point it at a temporary one). A clean exit
removes the file. So a file whose process is gone was left by a session that crashed or was
killed: the next window offers to restore it in its message bar (non-modal), and restoring
opens it like File > Open session.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import time
from pathlib import Path

from PySide6.QtCore import QObject, QStandardPaths, QTimer, Signal

from core.records.session_file import SessionFileError, save_session
from mvc_gui.run.workers import TaskWorker
from mvc_gui.tools.host import ToolHost
from mvc_gui.tools.runs import RunListPanel
from mvc_gui.tools.sessions import SessionIO

__all__ = ["INTERVAL_MS", "Autosave", "autosave_folder", "install"]

INTERVAL_MS = 60_000
_PREFIX, _SUFFIX = "session-", ".mvcs.json"
_WINDOWS = itertools.count(1)  # several windows in one process each keep their own file


def autosave_folder() -> Path:
    """Where autosaves live: ``$MVC_AUTOSAVE_DIR``, else the per-user application data folder."""
    if folder := os.environ.get("MVC_AUTOSAVE_DIR"):
        return Path(folder)
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(base or Path.home() / ".mvc-studio") / "autosave"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # exists, owned by someone else
    return True


def orphans(folder: Path) -> list[Path]:
    """Autosaves whose process is gone (a crash or a kill), newest first."""
    found = []
    for p in folder.glob(f"{_PREFIX}*{_SUFFIX}"):
        pid = p.name.removeprefix(_PREFIX).removesuffix(_SUFFIX).partition("-")[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            found.append(p)
    return sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)


class Autosave(QObject):
    """Writes this window's autosave; ``saved(path)`` after each write; ``offered(path)`` when
    an orphaned autosave is offered for restoring."""

    saved = Signal(str)
    offered = Signal(str)

    def __init__(
        self, host: ToolHost, runs: RunListPanel, sessions: SessionIO, folder: Path | None = None
    ) -> None:
        super().__init__(host)
        self.host, self.runs, self.sessions = host, runs, sessions
        self.folder = folder or autosave_folder()
        self.path = self.folder / f"{_PREFIX}{os.getpid()}-{next(_WINDOWS)}{_SUFFIX}"
        self._closed = False
        self._written: tuple | None = None
        self._writer: TaskWorker | None = None
        self._again = self._busy = False
        self._offer: Path | None = None
        self.timer = QTimer(self)
        self.timer.setInterval(INTERVAL_MS)
        self.timer.timeout.connect(self.save_now)
        self.timer.start()
        runs.entries_changed.connect(self.save_now)
        host.closing.connect(self.finish)

    def _signature(self) -> tuple:
        """Cheap: what a session file would hold, without encoding any labels."""
        s, panel = self.host.session, self.host.method_panel
        runs = tuple(e.number for e in self.runs.entries)
        if s is None:
            return (None, runs)
        params = tuple(sorted((k, repr(v)) for k, v in panel.params().items()))
        return (s.token, tuple(s.included), tuple(s.methods), panel.method, params, runs)

    def save_now(self) -> TaskWorker | None:
        """Write the autosave (in a worker) if anything changed since the last write."""
        if self._closed:
            return None
        if self._busy:  # (not the thread's is_alive: it outlives its done signal briefly)
            self._again = True  # one more write once this one is done
            return None
        sig = self._signature()
        if sig == self._written or self.host.session is None:
            return None
        try:
            state, _ = self.sessions.capture()
        except SessionFileError:  # data not from a file or a demo: nothing to refer to
            return None
        self.folder.mkdir(parents=True, exist_ok=True)
        worker = TaskWorker(save_session, self.path, state, parent=self)
        worker.done.connect(lambda _p: self._on_written(sig))
        worker.failed.connect(lambda msg, _d: self._on_failed(msg))
        self._writer, self._busy = worker, True
        worker.start()
        return worker

    def _on_written(self, sig: tuple) -> None:
        self._written = sig
        self.saved.emit(str(self.path))
        self._follow_up()

    def _on_failed(self, message: str) -> None:
        self.host.messages.show_message("warning", f"Could not autosave the session: {message}")
        self._follow_up()

    def _follow_up(self) -> None:
        self._busy = False
        if self._again:
            self._again = False
            self.save_now()

    # -- after a crash ----------------------------------------------------------------------------
    def offer_restore(self) -> Path | None:
        """Offer the newest orphaned autosave in the message bar; returns it (or None)."""
        found = orphans(self.folder) if self.folder.is_dir() else []
        if not found:
            return None
        self._offer = found[0]
        when = time.strftime("%H:%M on %d %b", time.localtime(found[0].stat().st_mtime))
        self.host.messages.show_message(
            "warning",
            f"MVC Studio did not close cleanly last time; its session was autosaved at {when}. "
            "Restore it (data, choices and runs)?",
            action=("Restore", self.restore),
        )
        self.offered.emit(str(found[0]))
        return found[0]

    def restore(self) -> None:
        """Open the offered autosave like a session file; it is removed once restored."""
        if (path := self._offer) is None:
            return
        done = self.sessions.restored

        def tidy(_warnings: list) -> None:
            done.disconnect(tidy)
            with contextlib.suppress(OSError):
                path.unlink()

        done.connect(tidy)
        self.sessions.open(str(path))

    def finish(self) -> None:
        """A clean exit: stop, wait for a write under way, remove this window's autosave."""
        self._closed = True
        self.timer.stop()
        if self._writer is not None:
            self._writer.join(5.0)
        with contextlib.suppress(OSError):
            self.path.unlink()


def install(host: ToolHost, runs: RunListPanel, sessions: SessionIO) -> Autosave:
    """Autosave the session; offer to restore one a crashed window left behind."""
    autosave = Autosave(host, runs, sessions)
    QTimer.singleShot(0, autosave.offer_restore)  # once the window is built
    return autosave
