"""Running solvers in a separate process, so their GIL-holding C code (scipy sparse
routines, numba compilation, LAPACK) can never freeze the window.

One long-lived child process (no Qt in it) serves one run at a
time: ``("run", job)`` starts a run; ``("pause"|"resume"|"step"|"stop", run_id)`` steer it
between solver states. The child sends ``("frame", Frame)`` for every state and
``("end", RunEnd)`` last (the fitted solver travels back in it). A child stuck inside a long
kernel when Stop is pressed is terminated and a fresh one is started for the next run.
"""

from __future__ import annotations

import dataclasses
import os
import pickle
import subprocess
import sys
import threading
from multiprocessing.connection import Client, Listener
from typing import Any, ClassVar

from mvc_gui.model.runner import PauseStep, attach_prediction_stats, run_solver
from mvc_gui.run import shared_arrays

__all__ = [
    "SolverServer",
    "process_mode_default",
    "recv_message",
    "send_message",
    "serve",
]


def send_message(conn: Any, msg: Any) -> None:
    """Send with numpy buffers out of band (pickle protocol 5): no 80 MB copy is made
    while holding the GIL, the buffers are written straight from the arrays. Memory-mapped
    views (a dataset store) go as their file: the child maps it, no copy (shared_arrays)."""
    buffers: list[pickle.PickleBuffer] = []
    head = shared_arrays.dumps(msg, buffer_callback=buffers.append)
    conn.send(("__oob__", len(buffers)))
    conn.send_bytes(head)
    for buf in buffers:
        conn.send_bytes(buf.raw())


def recv_message(conn: Any) -> Any:
    """Receive a message sent by :func:`send_message` or plain ``conn.send``."""
    msg = conn.recv()
    if isinstance(msg, tuple) and len(msg) == 2 and msg[0] == "__oob__":
        head = conn.recv_bytes()
        buffers = [conn.recv_bytes() for _ in range(msg[1])]
        return pickle.loads(head, buffers=buffers)
    return msg


def process_mode_default() -> bool:
    """Child processes unless ``MVC_GUI_SOLVER=thread``. A frozen build runs them too: its
    entry point (packaging/frozen_entry.py) answers ``-m`` for these child modules."""
    return os.environ.get("MVC_GUI_SOLVER", "process") != "thread"


class _PipeControl(PauseStep):
    """Control messages read from the pipe between states (child side)."""

    def __init__(self, conn: Any, run_id: int, paused: bool) -> None:
        super().__init__(paused)
        self.conn, self.run_id = conn, run_id
        self.stopped = False

    def _handle(self, msg: Any) -> None:
        kind, run_id = msg
        if run_id != self.run_id:
            return
        if kind == "stop":
            self.stopped = True
        else:
            self.apply(kind)

    def wait_turn(self) -> bool:
        while self.conn.poll():
            self._handle(self.conn.recv())
        while self.paused and not self.stopped:
            self._handle(self.conn.recv())
        return not self.stopped


def serve(conn: Any) -> None:
    """Child process main loop (imports happen after connecting, so the parent's accept
    returns at once)."""
    import core.methods  # noqa: F401  (imports and registers the solvers once)
    from core.cli.stream import STREAMING_METHODS  # no copy of mapped views for these
    from mvc_gui.model.data_session import preprocess_views

    conn.send(("ready", None))
    while True:
        try:
            kind, payload, *_ = recv_message(conn)
        except EOFError:
            return
        if kind == "quit":
            return
        if kind != "run":
            continue  # a stray control message for a run that already ended
        run_id, solver, views, methods, labels, paused, observed = payload
        control = _PipeControl(conn, run_id, paused)
        blocks = type(solver).name in STREAMING_METHODS  # mapped views: no preprocessed copy
        end = run_solver(
            run_id,
            solver,
            lambda v=views, m=methods, r=solver.auto_preprocessing, o=observed, b=blocks: (
                preprocess_views(v, m, r, o, row_blocks=b, spill=True)
            ),
            labels,
            lambda frame: conn.send(("frame", slim_frame(frame))),
            control,
            observed,
        )
        attach_prediction_stats(end, views)
        end.solver = slim_solver(end.solver) if end.status == "finished" else None
        conn.send(("end", end))


_KEEP = {"labels_", "view_weights_", "objective_history_", "history_", "stage_times_"}


def slim_frame(frame: Any) -> Any:
    """The frame without the n x m anchor graph: the heat map was already aggregated here.

    Unpickling large arrays in the parent holds its GIL and stalled the window (~0.2 s at
    the final state on Hdigit)."""
    if getattr(frame.state, "anchor_graph", None) is None:
        return frame
    return dataclasses.replace(frame, state=dataclasses.replace(frame.state, anchor_graph=None))


def slim_solver(solver: Any) -> Any:
    """The fitted solver without its large arrays (graphs, anchors, embeddings): the parent
    only builds the run record from it, which needs labels, weights and histories."""
    if solver is None:
        return None
    for name, value in list(vars(solver).items()):
        big = getattr(value, "nbytes", 0) > 1 << 20 or hasattr(value, "nnz")
        big = big or (
            isinstance(value, list | tuple)
            and any(getattr(v, "nbytes", 0) > 1 << 20 or hasattr(v, "nnz") for v in value)
        )
        if name.endswith("_") and name not in _KEEP and big:
            setattr(solver, name, None)
    return solver


class SolverServer:
    """Parent side: owns the child process (started lazily, restarted after a kill).

    The child is a plain ``python -m mvc_gui.run.solver_process`` that connects back to a
    :class:`multiprocessing.connection.Listener`: unlike multiprocessing's spawn it does not
    re-import the parent's ``__main__``, and it exits when the parent's end closes.
    """

    _shared: ClassVar[dict[str, SolverServer]] = {}

    def __init__(self, module: str = "mvc_gui.run.solver_process") -> None:
        self.module = module
        self._proc: subprocess.Popen | None = None
        self.conn: Any = None
        self._lock = threading.Lock()
        self._send_lock = threading.Lock()

    @classmethod
    def shared(cls, module: str = "mvc_gui.run.solver_process") -> SolverServer:
        """One server per child module (solver runs, embeddings), shared by all windows."""
        if module not in cls._shared:
            cls._shared[module] = cls(module)
        return cls._shared[module]

    @classmethod
    def shutdown_all(cls) -> None:
        for server in cls._shared.values():
            server.shutdown()

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None and self.conn is not None

    def ensure_started(self, timeout: float = 60.0) -> None:
        """Start the child if needed (blocks until it has connected: call off the GUI)."""
        with self._lock:
            if self.alive:
                return
            self._close()
            key = os.urandom(16)
            with Listener(authkey=key) as listener:
                env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
                cmd = [sys.executable, "-m", self.module, listener.address, key.hex()]
                self._proc = subprocess.Popen(cmd, env=env)
                waiter = threading.Timer(timeout, self._proc.kill)
                waiter.start()
                try:
                    self.conn = listener.accept()
                finally:
                    waiter.cancel()

    def send(self, msg: Any) -> None:
        """Send from any thread (sends are serialised); arrays go out of band."""
        self.ensure_started()
        with self._send_lock:
            send_message(self.conn, msg)

    def send_if_started(self, msg: Any) -> bool:
        with self._send_lock:
            if self.conn is None:
                return False
            try:
                self.conn.send(msg)
            except (OSError, ValueError):
                return False
            return True

    def kill(self) -> None:
        """Terminate the child (e.g. stuck in a kernel after Stop); the next run restarts it."""
        with self._lock:
            self._close()

    def _close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(2.0)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(2.0)
        with self._send_lock:
            if self.conn is not None:
                self.conn.close()
                self.conn = None

    def shutdown(self) -> None:
        if self.alive:
            self.send_if_started(("quit", None, None))
            try:
                self._proc.wait(1.0)
            except subprocess.TimeoutExpired:
                pass
        self.kill()


if __name__ == "__main__":
    from mvc_gui.run.priority import lower_priority

    lower_priority()
    _conn = Client(sys.argv[1], authkey=bytes.fromhex(sys.argv[2]))
    serve(_conn)
