"""Background threads: the solver worker and the embedding worker.

Each worker runs a plain Python thread and talks to the GUI thread only through Qt signals
(queued automatically across threads). Signals are coalesced: the thread appends to a
locked list and emits ``frames_ready`` only when that list was empty, so a fast solver can
never flood the event loop. Cancellation is cooperative: the thread checks its stop event
between solver states (or t-SNE chunks) and closes the generator.
"""

from __future__ import annotations

import threading
import time
import traceback
from typing import Any

import numpy as np
from PySide6.QtCore import QObject, Signal

from core.data.prepare import prepare_views
from core.numerics.layout import EmbeddingCancelled, embed, representation
from mvc_gui.model.data_session import DataSession
from mvc_gui.model.run_history import Frame
from mvc_gui.model.runner import PauseStep, RunEnd, run_solver
from mvc_gui.run.priority import lower_thread_priority

__all__ = [
    "EmbeddingWorker",
    "ProcessEmbeddingWorker",
    "ProcessSolverWorker",
    "RunEnd",
    "SolverWorker",
    "TaskWorker",
    "layout_key",
]


class _ThreadWorker(QObject):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, daemon=True, name=type(self).__name__)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def is_alive(self) -> bool:
        return self._thread.is_alive()

    def join(self, timeout: float | None = None) -> bool:
        if self._thread.ident is not None:
            self._thread.join(timeout)
        return not self._thread.is_alive()

    def _emit(self, signal: Any, *args: Any) -> None:
        try:
            signal.emit(*args)
        except RuntimeError:  # the receiver was deleted while we were finishing
            pass

    def _run(self) -> None:
        lower_thread_priority()  # below the GUI thread (and so are the children it starts)
        self._main()

    def _main(self) -> None:
        raise NotImplementedError


class SolverWorker(_ThreadWorker):
    """Runs ``solver.iterate`` on the session's prepared views; supports pause and step."""

    frames_ready = Signal()
    ended = Signal(object)  # RunEnd

    def __init__(self, run_id: int, solver: Any, session: DataSession, parent=None) -> None:
        super().__init__(parent)
        self.run_id = run_id
        self.solver = solver
        self.session = session
        self._frames: list[Frame] = []
        self._final: Frame | None = None  # the frame of the final state
        #: (end, final frame) -> (RunResult, PredictionModel | None), run in this thread
        self.build_result: Any = None
        self.control = PauseStep()
        self._wake = threading.Event()  # set on resume/step: a paused run continues at once

    # -- control (GUI thread) ------------------------------------------------------------
    def pause(self) -> None:
        self.control.pause()

    def resume(self) -> None:
        self.control.resume()
        self._wake.set()

    def step(self) -> None:
        """Run until the next optimisation iteration, then pause again."""
        self.control.step()
        self._wake.set()

    @property
    def paused(self) -> bool:
        return self.control.paused

    def take_frames(self) -> list[Frame]:
        with self._lock:
            frames, self._frames = self._frames, []
        return frames

    # -- thread ----------------------------------------------------------------------------
    def _push(self, frame: Frame) -> None:
        if frame.state.final:
            self._final = frame
        with self._lock:
            was_empty = not self._frames
            self._frames.append(frame)
        if was_empty:
            self._emit(self.frames_ready)

    # the Control protocol of mvc_gui.model.runner
    def wait_turn(self) -> bool:
        while self.control.paused and not self._stop.is_set():
            self._wake.wait(0.05)
            self._wake.clear()
        return not self._stop.is_set()

    def after_state(self, state: Any) -> None:
        self.control.after_state(state)

    def _main(self) -> None:
        s = self.session
        s.set_auto_rule(self.solver.auto_preprocessing)  # 'auto' as this method wants it
        end = run_solver(self.run_id, self.solver, s.prepared, s.labels, self._push, self,
                         s.observed, s.views_for_k())  # fmt: skip
        self._finish(end)
        self._emit(self.ended, end)

    def _finish(self, end: RunEnd) -> None:
        """Build the run record here (a thread of its own), not on the GUI thread."""
        if self.build_result is None or end.status != "finished" or self._final is None:
            return
        try:
            end.result, end.prediction = self.build_result(end, self._final)
        except Exception:
            end.result = end.prediction = None


class ProcessSolverWorker(SolverWorker):
    """Same interface, but the run happens in the SolverServer's child process; this
    thread only forwards the job, control messages and the frames coming back."""

    STOP_GRACE = 0.4  # seconds before a child that ignores Stop is terminated

    def __init__(self, run_id: int, solver: Any, session: DataSession, server, parent=None):
        super().__init__(run_id, solver, session, parent)
        self.server = server
        self._sent_job = False
        self._early: list[str] = []

    def _send(self, kind: str) -> None:
        """Control message; before the job is sent it waits in ``_early`` (the GUI thread
        never blocks on starting the child)."""
        with self._lock:
            if not self._sent_job:
                self._early.append(kind)
                return
        self.server.send_if_started((kind, self.run_id))

    # self.control mirrors the child's PauseStep (frames coming back drive after_state)
    def pause(self) -> None:
        self.control.pause()
        self._send("pause")

    def resume(self) -> None:
        self.control.resume()
        self._send("resume")

    def step(self) -> None:
        self.control.step()
        self._send("step")

    def _main(self) -> None:
        s, server = self.session, self.server
        end = None
        try:
            views = [s.dataset.views[i] for i in s.view_indices]
            methods = [s.methods[i] for i in s.view_indices]
            with self._lock:
                paused = self.control.paused
                job = (self.run_id, self.solver, views, methods, s.labels, paused, s.observed)
                self._early = [k for k in self._early if k != "pause"]
            server.send(("run", job))
            with self._lock:
                self._sent_job, early = True, self._early
            for kind in early:
                server.send_if_started((kind, self.run_id))
            deadline = None
            while end is None:
                if self._stop.is_set() and deadline is None:
                    self._send("stop")
                    deadline = time.perf_counter() + self.STOP_GRACE
                if deadline is not None and time.perf_counter() > deadline:
                    server.kill()
                    end = RunEnd(self.run_id, "stopped", None)
                elif server.conn.poll(0.05):
                    kind, payload = server.conn.recv()
                    if kind == "frame" and payload.run_id == self.run_id:
                        self.control.after_state(payload.state)
                        self._push(payload)
                    elif kind == "end" and payload.run_id == self.run_id:
                        end = payload
                elif not server.alive:
                    raise RuntimeError("the solver process ended unexpectedly")
        except Exception as exc:
            server.kill()
            end = RunEnd(self.run_id, "failed", None, str(exc), traceback.format_exc())
        self._finish(end)
        self._emit(self.ended, end)


def layout_key(session: DataSession, view: int | None, method: str = "tsne") -> tuple:
    """The cache key of a layout (``method``: "tsne" or "umap"): the session's
    representation, or one view's alone."""
    if view is None:
        return (*session.key, method)
    return (session.token, (view,), (session.methods[view],), session.auto_rule, method)


def _view_observed(session: DataSession, view: int) -> np.ndarray | None:
    mask = session.dataset.observed
    return None if mask is None or mask[:, view].all() else mask[:, [view]]


def _one_view(session: DataSession, view: int) -> tuple[list, list]:
    """One view of the dataset preprocessed alone (a per-view layout)."""
    return prepare_views(
        [session.dataset.views[view]],
        [session.methods[view]],
        session.auto_rule,
        _view_observed(session, view),
    )


class EmbeddingWorker(_ThreadWorker):
    """Computes the 2-D layout of the session's representation, reporting intermediate frames.

    ``latest()`` returns the newest (iteration, layout); ``ended`` carries (key, layout or
    None, error text).
    """

    frame_ready = Signal()
    ended = Signal(object, object, str)

    def __init__(
        self,
        session: DataSession,
        n_jobs: int = 1,
        parent=None,
        view: int | None = None,
        method: str = "tsne",
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.view = view  # None: the included views; else this view of the dataset alone
        self.method = method  # "tsne" or "umap" (core.numerics.layout.embed)
        self.key = layout_key(session, view, method)
        self.n_jobs = n_jobs
        self._latest: tuple[int, np.ndarray] | None = None
        self._released = threading.Event()  # cleared: the layout waits at its next frame
        self._released.set()

    def hold(self, held: bool) -> None:
        """Make the layout wait at its next frame (``True``) or go on (GUI thread)."""
        if held:
            self._released.clear()
        else:
            self._released.set()

    def latest(self) -> tuple[int, np.ndarray] | None:
        with self._lock:
            out, self._latest = self._latest, None
        return out

    def _callback(self, iteration: int, layout: np.ndarray) -> bool:
        with self._lock:
            was_empty = self._latest is None
            self._latest = (iteration, layout)
        if was_empty:
            self._emit(self.frame_ready)
        while not self._released.wait(0.05) and not self._stop.is_set():
            pass
        return self._stop.is_set()

    def _main(self) -> None:
        try:
            s, v = self.session, self.view
            views, _ = s.prepared() if v is None else _one_view(s, v)
            if self._stop.is_set():
                raise EmbeddingCancelled("cancelled")
            x = representation(views)
            layout = embed(x, method=self.method, callback=self._callback, n_jobs=self.n_jobs)
            self._emit(self.ended, self.key, layout, "")
        except EmbeddingCancelled:
            self._emit(self.ended, self.key, None, "")
        except Exception as exc:
            self._emit(self.ended, self.key, None, f"{exc}\n\n{traceback.format_exc()}")


class ProcessEmbeddingWorker(EmbeddingWorker):
    """The layout computed in the embedding child process; this thread forwards frames."""

    def __init__(
        self,
        session: DataSession,
        server,
        parent=None,
        view: int | None = None,
        method: str = "tsne",
    ) -> None:
        super().__init__(session, parent=parent, view=view, method=method)
        self.server = server

    def hold(self, held: bool) -> None:
        """Hold or release the child's layout at its next frame."""
        was = not self._released.is_set()
        super().hold(held)
        if held != was:
            self.server.send_if_started(("hold" if held else "release", id(self), None))

    def _main(self) -> None:
        s, server, job = self.session, self.server, id(self)
        try:
            idx = s.view_indices if self.view is None else [self.view]
            views = [s.dataset.views[i] for i in idx]
            methods = [s.methods[i] for i in idx]
            observed = s.observed if self.view is None else _view_observed(s, self.view)
            options = {"layout": self.method}
            server.send(("embed", job, (views, methods, s.auto_rule, observed, options)))
            if not self._released.is_set():  # held before the child knew the job
                server.send_if_started(("hold", job, None))
            deadline = None
            while True:
                if self._stop.is_set() and deadline is None:
                    server.send_if_started(("stop", job, None))
                    deadline = time.perf_counter() + 0.5
                if deadline is not None and time.perf_counter() > deadline:
                    server.kill()
                    self._emit(self.ended, self.key, None, "")
                    return
                if server.conn.poll(0.05):
                    kind, got, payload = server.conn.recv()
                    if got != job:
                        continue
                    if kind == "frame":
                        self._callback(*payload)
                    elif kind == "end":
                        layout, error, chosen = payload
                        s.chosen.update(zip(idx, chosen, strict=False))
                        self._emit(self.ended, self.key, layout, error)
                        return
                elif not server.alive:
                    raise RuntimeError("the embedding process ended unexpectedly")
        except Exception as exc:
            server.kill()
            self._emit(self.ended, self.key, None, f"{exc}\n\n{traceback.format_exc()}")


class TaskWorker(_ThreadWorker):
    """Runs one function in a thread (e.g. loading a file); ``done(result)`` or
    ``failed(message, details)``."""

    done = Signal(object)
    failed = Signal(str, str)

    def __init__(self, fn: Any, *args: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._fn, self._args = fn, args

    def _main(self) -> None:
        # released once taken: a finished worker stays its parent's child, so the autosave's
        # workers (one per write) kept every run they wrote alive after it left the run list
        (fn, args), self._fn, self._args = (self._fn, self._args), None, ()
        try:
            result = fn(*args)
        except Exception as exc:
            del fn, args
            self._emit(self.failed, str(exc), traceback.format_exc())
        else:
            del fn, args
            self._emit(self.done, result)
