"""RunController: owns the one solver worker, keeps the run history, throttles redraws.

Signals (all emitted in the GUI thread):

* ``run_started(history)``; ``iteration_done(history)`` at most ~15 times per second and always
  once more for the last state; ``run_finished(history)`` with ``history.result`` (a
  :class:`core.records.runs.RunResult`); ``run_stopped(history)``; ``run_failed(message,
  details)``; ``busy_changed(bool)``; ``paused_changed(bool)``.

Frames of a stopped or superseded run are dropped by run id, so they never reach a plot. A new
run while the previous thread is still finishing is queued until that thread ends: only one
solver runs at a time (numba parallel kernels are not re-entrant).

By default the solver runs in a child process (``mvc_gui.run.solver_process``): its GIL-holding
C code then cannot stall the window, and Stop can terminate it even inside a long kernel.
``MVC_GUI_SOLVER=thread`` (or ``use_process=False``) runs it in a thread of this process.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal

from core.methods import REGISTRY
from core.records.prediction_file import PredictionModel
from core.records.runs import RunResult, dataset_record
from mvc_gui.model.data_session import DataSession
from mvc_gui.model.run_history import RunHistory
from mvc_gui.run.slots import weak_slot
from mvc_gui.run.solver_process import SolverServer, process_mode_default
from mvc_gui.run.workers import ProcessSolverWorker, RunEnd, SolverWorker

__all__ = ["RunController"]

THROTTLE_MS = 66


class RunController(QObject):
    run_started = Signal(object)
    iteration_done = Signal(object)
    run_finished = Signal(object)
    run_stopped = Signal(object)
    run_failed = Signal(str, str)
    busy_changed = Signal(bool)
    paused_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None, *, use_process: bool | None = None):
        super().__init__(parent)
        self.use_process = process_mode_default() if use_process is None else use_process
        self._next_id = 0
        self._worker: SolverWorker | None = None
        self._retired: list[SolverWorker] = []
        self._pending: tuple[Any, ...] | None = None
        self.history: RunHistory | None = None
        self.session: DataSession | None = None
        self._dirty = False
        self._timer = QTimer(self)
        self._timer.setInterval(THROTTLE_MS)
        self._timer.timeout.connect(self._on_timer_timeout)

    # -- public API ------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return (
            self.history is not None
            and self.history.final is None
            and (self._worker is not None or self._pending is not None)
        )

    @property
    def paused(self) -> bool:
        return self._worker is not None and self._worker.paused

    def start(
        self, method: str, params: dict[str, Any], session: DataSession, *, paused: bool = False
    ) -> int:
        """Validate and start a run (raises ParamError/DataError before anything starts)."""
        solver = REGISTRY[method].from_params(params)
        session.check(REGISTRY[method])
        self.stop()
        self._next_id += 1
        run_id = self._next_id
        self.session = session
        self.history = RunHistory(run_id, method, solver.get_params())
        self.history.truth = session.labels  # what the worker scores and counts against
        self._pending = (run_id, solver, session, paused)
        self.run_started.emit(self.history)
        self.busy_changed.emit(True)
        self._launch_pending()
        return run_id

    def stop(self) -> None:
        """Drop the current run at once; its thread ends at the solver's next state."""
        self._pending = None
        worker, self._worker = self._worker, None
        if worker is None:
            return
        worker.stop()
        self._retired.append(worker)
        self._timer.stop()
        history = self.history
        if history is not None and history.final is None:
            history.result = self._partial_result(history)
            self.run_stopped.emit(history)
        self.busy_changed.emit(False)
        self.paused_changed.emit(False)

    def pause(self) -> None:
        if self._worker is not None:
            self._worker.pause()
            self.paused_changed.emit(True)

    def resume(self) -> None:
        if self._worker is not None:
            self._worker.resume()
            self.paused_changed.emit(False)

    def step(self) -> None:
        if self._worker is not None:
            self._worker.step()
            self.paused_changed.emit(True)

    def shutdown(self, timeout: float = 3.0) -> bool:
        """Stop everything and wait for the threads (closing the window); True if all ended."""
        self.stop()
        ok = True
        for worker in self._retired:
            ok &= worker.join(timeout)
            try:
                worker.ended.disconnect()
                worker.frames_ready.disconnect()
            except (RuntimeError, TypeError):
                pass
        self._retired = [w for w in self._retired if w.is_alive()]
        return ok

    # -- internals ---------------------------------------------------------------------------
    def _launch_pending(self) -> None:
        self._retired = [w for w in self._retired if w.is_alive()]
        if self._pending is None or self._retired:
            return  # a previous thread is still finishing: launched from _on_worker_ended
        run_id, solver, session, paused = self._pending
        self._pending = None
        if self.use_process:
            server = SolverServer.shared()
            worker = ProcessSolverWorker(run_id, solver, session, server, parent=self)
        else:
            worker = SolverWorker(run_id, solver, session, parent=self)
        # Plain functions, not bound methods or sender(): PySide6 can deliver a queued
        # signal to a stale Python wrapper when a new QObject reuses a deleted one's address.
        # They hold this controller weakly (mvc_gui/run/slots.py).
        worker.build_result = functools.partial(final_result, session, self.history.truth)
        worker.frames_ready.connect(weak_slot(self, lambda c: c._on_worker_frames_ready(worker)))
        worker.ended.connect(weak_slot(self, lambda c, end: c._on_worker_ended(worker, end)))
        self._worker = worker
        if paused:
            worker.pause()
            self.paused_changed.emit(True)
        worker.start()

    def _on_worker_frames_ready(self, worker: SolverWorker) -> None:
        frames = worker.take_frames()
        if worker is not self._worker or self.history is None:
            return
        history = self.history
        for frame in frames:
            if frame.run_id == history.run_id:
                history.add(frame)
        if history.final is not None:
            return  # drawn once the thread has ended and the result is built
        if self._timer.isActive():
            self._dirty = True
        else:
            self.iteration_done.emit(history)
            self._dirty = False
            self._timer.start()

    def _on_timer_timeout(self) -> None:
        if self._dirty and self.history is not None and self._worker is not None:
            self._dirty = False
            self.iteration_done.emit(self.history)
        else:
            self._timer.stop()

    def _on_worker_ended(self, worker: SolverWorker, end: RunEnd) -> None:
        if worker is self._worker and self.history is not None:
            self._on_worker_frames_ready(worker)  # frames queued before the end
            self._worker = None
            self._timer.stop()
            history = self.history
            if end.preprocessing:
                self.session.chosen.update(
                    zip(self.session.view_indices, end.preprocessing, strict=False)
                )
            if end.status == "failed":
                self.busy_changed.emit(False)
                reason = failure_reason(end)
                self.run_failed.emit(f"{history.method} failed: {reason}", end.details)
            elif end.status == "finished" and history.final is not None:
                history.result = self._final_result(history, end)
                self.iteration_done.emit(history)
                self.busy_changed.emit(False)
                self.run_finished.emit(history)
        self._retired = [w for w in self._retired if w is not worker and w.is_alive()]
        worker.deleteLater()
        self._launch_pending()

    def _final_result(self, history: RunHistory, end: RunEnd) -> RunResult:
        """The run record the worker built, or built here (a worker that could not)."""
        if end.result is None:
            end.result, end.prediction = final_result(
                self.session, history.truth, history.final, end
            )
        history.prediction = end.prediction
        # result.labels stay the solver's own numbers (the same file as `mvc run` writes);
        # history.labels keep the renumbering that holds colours steady, for display only
        return end.result

    def _partial_result(self, history: RunHistory) -> RunResult | None:
        if history.labels is None or self.session is None:
            return None
        truth = self.session.labels
        from core.numerics.metrics import all_metrics

        labels = history.solver_labels if history.solver_labels is not None else history.labels
        if truth is None:
            metrics = {}
        elif history.truth is truth and history.label_metrics:  # scored by the worker
            metrics = dict(history.label_metrics)
        else:
            metrics = all_metrics(truth, labels)
        return RunResult(
            method=history.method,
            params=history.params,
            labels=labels,
            true_labels=truth,
            view_names=self.session.view_names,
            objective_history=list(history.objective),
            n_iter=history.iterations[-1] if history.iterations else 0,
            stopped_early=True,
            metrics=metrics,
            dataset=dataset_record(self.session.dataset, self.session.view_indices),
            sample_ids=_own_ids(self.session),
            class_names=self.session.dataset.class_names,
        )


def final_result(
    session: DataSession, truth: np.ndarray | None, final: Any, end: RunEnd
) -> tuple[RunResult, PredictionModel | None]:
    """The record of a finished run and its model for new samples. Runs in the worker thread:
    the frame of the final state carries the scores (computed where the run ran, against
    ``truth``: the reference labels when the run started)."""
    result = RunResult.from_fit(
        end.solver,
        session.dataset,
        view_indices=session.view_indices,
        transforms=end.transforms,
        total_seconds=end.elapsed,
    )
    if final is not None and bool(final.metrics) and truth is not None:
        result.true_labels, result.metrics = np.asarray(truth), dict(final.metrics)
    return result, result.prediction


def failure_reason(end: RunEnd) -> str:
    """What went wrong, never empty: the error's text; for an exception without one, its
    line in the details (a solver child that died says how, "the solver process was killed
    by SIGKILL", see ``mvc_gui.run.solver_process``; an empty error once read "dtll failed: ")."""
    if end.error.strip():
        return end.error
    lines = [line.strip() for line in (end.details or "").splitlines() if line.strip()]
    return lines[-1] if lines else "no reason was given"


def _own_ids(session: DataSession) -> list[str] | None:
    ds = session.dataset
    return None if ds.sample_ids is None else ds.sample_ids.tolist()
