"""Running solvers in a separate process, so their GIL-holding C code (scipy sparse
routines, numba compilation, LAPACK) can never freeze the window.

One long-lived child process (no Qt in it) serves one run at a
time: ``("run", job)`` starts a run; ``("pause"|"resume"|"step"|"stop", run_id)`` steer it
between solver states. The child sends ``("frame", Frame)`` for every state and
``("end", RunEnd)`` last (the fitted solver travels back in it). A child stuck inside a long
kernel when Stop is pressed is terminated and a fresh one is started for the next run.

Lifecycle (issue 27): starting waits for the connection and the child's life at once, with a
deadline that covers only the connection (the child connects first, then lowers its priority
and imports the solvers), and no lock is held while it waits: a child that dies or never
connects ends in a :class:`ChildStartError` that says how, and the next start is a fresh one.
A child ends with the window however the window ends (:func:`connect_to_parent`), and a child
that dies makes the parent's reads fail with how it ended ("... was killed by SIGKILL").
"""

from __future__ import annotations

if __name__ == "__main__":  # a child: tie it to the window before the heavy imports below
    from mvc_gui.run.child_link import end_with_parent_of_argv

    end_with_parent_of_argv()

import collections
import contextlib
import dataclasses
import os
import pickle
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from multiprocessing.connection import (
    AuthenticationError,
    Connection,
    answer_challenge,
    deliver_challenge,
)
from typing import Any, ClassVar

from mvc_gui.model.runner import PauseStep, run_solver
from mvc_gui.run import shared_arrays
from mvc_gui.run.child_link import connect_to_parent

__all__ = [
    "ChildStartError",
    "SolverServer",
    "connect_to_parent",
    "describe_exit",
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
    from core.data.prepare import estimate_views, prepare_views
    from core.methods import REGISTRY  # noqa: F401  (imports and registers the solvers once)
    from mvc_gui.run.warm import WARM, warm_kernels

    conn.send(("ready", None))
    while True:
        try:
            kind, payload, *_ = recv_message(conn)
        except EOFError:
            return
        if kind == "quit":
            return
        if kind == WARM:  # idle until the first Run: compile the window's method now
            warm_kernels(payload, conn.poll)
            continue
        if kind != "run":
            continue  # a stray control message for a run that already ended
        run_id, solver, views, methods, labels, paused, observed = payload
        control = _PipeControl(conn, run_id, paused)
        blocks = type(solver).streams  # mapped views: no preprocessed copy
        end = run_solver(
            run_id,
            solver,
            lambda v=views, m=methods, r=solver.auto_preprocessing, o=observed, b=blocks: (
                prepare_views(v, m, r, o, row_blocks=b, spill=True)
            ),
            labels,
            lambda frame: conn.send(("frame", slim_frame(frame))),
            control,
            observed,
            estimate_views(views, methods, solver.auto_preprocessing, observed, row_blocks=blocks),
        )
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


class ChildStartError(RuntimeError):
    """A child process that died before it connected, or did not connect in time (it was
    killed and reaped then); ``pid`` and ``returncode`` say which and how it ended."""

    def __init__(self, message: str, pid: int | None = None, returncode: int | None = None):
        super().__init__(message)
        self.pid, self.returncode = pid, returncode


#: what the children are called in messages ("the solver process was killed by SIGKILL")
_NAMES = {
    "mvc_gui.run.solver_process": "the solver process",
    "mvc_gui.run.embedding_process": "the layout process",
}


def describe_exit(returncode: int, what: str = "the solver process") -> str:
    """How a child ended, in words: "... exited with code 1", "... was killed by SIGKILL"."""
    if returncode >= 0:
        return f"{what} exited with code {returncode}"
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = f"signal {-returncode}"
    hint = " (out of memory, or ended by another program)" if name == "SIGKILL" else ""
    return f"{what} was killed by {name}{hint}"


# -- child side: mvc_gui.run.child_link (no heavy imports: a child runs it first) ------------
# -- parent side ----------------------------------------------------------------------------
class _Spawner:
    """Starts the children from one thread that lives as long as this process: Linux sends a
    child's parent-death signal when the thread that started it ends (prctl(2)), and runs
    start their child from short-lived worker threads. Created by the first
    :class:`SolverServer` (the GUI thread): the children start at its priority, connect, and
    only then lower theirs."""

    _lock = threading.Lock()
    _instance: ClassVar[_Spawner | None] = None

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._serve, name="child spawner", daemon=True).start()

    @classmethod
    def get(cls) -> _Spawner:
        with cls._lock:
            if cls._instance is None or cls._instance.pid != os.getpid():  # a forked copy
                cls._instance = cls()
            return cls._instance

    def _serve(self) -> None:
        while True:
            args, kwargs, box, done = self.jobs.get()
            try:
                box.append(subprocess.Popen(*args, **kwargs))
            except BaseException as exc:
                box.append(exc)
            done.set()

    def popen(self, *args: Any, **kwargs: Any) -> subprocess.Popen:
        box: list[Any] = []
        done = threading.Event()
        self.jobs.put((args, kwargs, box, done))
        done.wait()  # one fork and exec
        if isinstance(box[0], BaseException):
            raise box[0]
        return box[0]


class _StderrTail:
    """Forwards a child's stderr to ours (as when it was inherited) and keeps its last lines:
    the reason a child that died gives ("No module named ...")."""

    def __init__(self, pipe: Any) -> None:
        self.lines: collections.deque[bytes] = collections.deque(maxlen=20)
        self._thread = threading.Thread(
            target=self._pump, args=(pipe,), name="child stderr", daemon=True
        )
        self._thread.start()

    def _pump(self, pipe: Any) -> None:
        from mvc_gui.run.priority import lower_thread_priority

        lower_thread_priority()
        with pipe:
            for line in iter(pipe.readline, b""):
                self.lines.append(line)
                view = memoryview(line)
                with contextlib.suppress(OSError):  # no stderr (a windowed program)
                    while view:
                        view = view[os.write(2, view) :]

    def last_line(self, wait: float = 1.0) -> str:
        """The last non-empty line (after up to ``wait`` s for the rest of a dead child's)."""
        self._thread.join(wait)
        for line in reversed(self.lines):
            text = line.decode(errors="replace").strip()
            if text:
                return text
        return ""


class _ChildConnection:
    """The parent's end of a child's connection: when the child dies, reads (and writes)
    fail saying how it ended ("the solver process was killed by SIGKILL"), not with an empty
    ``EOFError``, so a run that fails that way tells the user why."""

    def __init__(self, conn: Connection, proc: subprocess.Popen, what: str, tail: Any) -> None:
        self._conn, self._proc, self._what, self._tail = conn, proc, what, tail
        self.stopped = False  # ended by this process (Stop, a restart, closing the window)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    def why(self, wait: float = 2.0) -> str:
        """How the child ended (up to ``wait`` s for it to end after it closed its end)."""
        if self.stopped:
            return f"{self._what} was stopped"
        try:
            returncode = self._proc.wait(wait)
        except subprocess.TimeoutExpired:
            return f"{self._what} closed its connection"
        return _ended(self._what, returncode, self._tail)

    def recv(self) -> Any:
        try:
            return self._conn.recv()
        except EOFError:
            raise EOFError(self.why()) from None

    def recv_bytes(self, maxlength: int | None = None) -> bytes:
        try:
            return self._conn.recv_bytes(maxlength)
        except EOFError:
            raise EOFError(self.why()) from None

    def send(self, obj: Any) -> None:
        try:
            self._conn.send(obj)
        except (BrokenPipeError, ConnectionResetError) as exc:
            raise self._write_error(exc) from None

    def send_bytes(self, buf: Any, offset: int = 0, size: int | None = None) -> None:
        try:
            self._conn.send_bytes(buf, offset, size)
        except (BrokenPipeError, ConnectionResetError) as exc:
            raise self._write_error(exc) from None

    def _write_error(self, exc: OSError) -> OSError:
        # no waiting: a control message is sent from the GUI thread
        if self.stopped or self._proc.poll() is None:
            return exc
        return type(exc)(self.why(0))

    def poll(self, timeout: float | None = 0.0) -> bool:
        return self._conn.poll(timeout)

    def fileno(self) -> int:
        return self._conn.fileno()

    def close(self) -> None:
        self._conn.close()


def _ended(what: str, returncode: int, tail: Any, suffix: str = "") -> str:
    """``describe_exit`` + ``suffix``, and the child's last stderr line when it exited with
    an error code (a Python traceback's last line: the exception)."""
    text = describe_exit(returncode, what) + suffix
    line = tail.last_line() if tail is not None and returncode > 0 else ""
    return f"{text}: {line}" if line else text


def _listen() -> tuple[socket.socket, str, str | None]:
    """A listening socket for one child: a Unix socket in a private folder (a loopback port
    on Windows); (socket, its address for the child's command line, the folder)."""
    if hasattr(socket, "AF_UNIX") and sys.platform != "win32":
        folder = tempfile.mkdtemp(prefix="mvc-child-")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        address = os.path.join(folder, "s")
        try:
            sock.bind(address)
            sock.listen(1)
        except OSError:
            sock.close()
            shutil.rmtree(folder, ignore_errors=True)
            raise
        return sock, address, folder
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
    except OSError:
        sock.close()
        raise
    return sock, f"127.0.0.1:{sock.getsockname()[1]}", None


class _Start:
    """One start under way: other callers wait for its outcome, ``kill`` cancels it."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.error: BaseException | None = None
        self.cancelled = False
        self.proc: subprocess.Popen | None = None


class SolverServer:
    """Parent side: owns the child process (started lazily, restarted after a kill).

    The child is a plain ``python -m mvc_gui.run.solver_process`` that connects back to a
    socket this side listens on: unlike multiprocessing's spawn it does not re-import the
    parent's ``__main__``; it exits when the parent's end closes, or when the parent dies.
    ``_lock`` guards the state only, it is never held while waiting for a child.
    """

    _shared: ClassVar[dict[str, SolverServer]] = {}
    POLL_S = 0.05  # how often a start looks at the child while it waits for the connection

    def __init__(self, module: str = "mvc_gui.run.solver_process") -> None:
        self.module = module
        self.what = _NAMES.get(module, f"the child process {module}")
        self._proc: subprocess.Popen | None = None
        self.conn: Any = None
        self._start: _Start | None = None
        self._lock = threading.Lock()
        self._send_lock = threading.Lock()
        _Spawner.get()

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
        proc, conn = self._proc, self.conn
        return proc is not None and conn is not None and proc.poll() is None

    def start_early(self, then: Any = None) -> None:
        """Start the child in a background thread now (its imports take seconds), so a Run
        finds it ready, and send it ``then`` once it is (``mvc_gui.run.warm``); a failure here
        is not shown: the Run that needs the child starts a fresh one and reports why that
        failed."""

        def start() -> None:
            with contextlib.suppress(ChildStartError):
                self.ensure_started()
                if then is not None:
                    self.send_if_started(then)

        threading.Thread(target=start, name="solver child start", daemon=True).start()

    def ensure_started(self, timeout: float = 60.0) -> None:
        """Start the child if needed; returns once it has connected (call off the GUI thread).

        Raises :class:`ChildStartError` when the child dies first or has not connected within
        ``timeout`` s (it is killed then); the next call starts a fresh one. Callers that come
        while a start is under way wait for it and share its outcome."""
        while True:
            with self._lock:
                if self.alive:
                    return
                start, mine = self._start, self._start is None
                if mine:
                    start = self._start = _Start()
                    stale = self._detach()
            if mine:
                break
            if not start.done.wait(timeout):
                raise ChildStartError(f"{self.what} did not start within {timeout:g} s")
            if start.error is not None:
                raise ChildStartError(str(start.error)) from start.error
        self._end(*stale)
        try:
            proc, conn = self._launch(start, timeout)
            with self._lock:
                cancelled = start.cancelled
                if not cancelled:
                    self._proc, self.conn = proc, conn
            if cancelled:
                self._end(proc, conn)
                raise ChildStartError(f"{self.what} was stopped while it started", proc.pid)
        except BaseException as exc:
            start.error = exc
            raise
        finally:
            with self._lock:
                self._start = None
            start.done.set()

    def _launch(self, start: _Start, timeout: float) -> tuple[subprocess.Popen, Any]:
        """Start the child and wait for its connection, its death, the deadline or ``kill``,
        whichever comes first."""
        key = os.urandom(16)
        sock, address, folder = _listen()
        try:
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
            cmd = [sys.executable, "-m", self.module, address, key.hex(), str(os.getpid())]
            try:
                proc = _Spawner.get().popen(cmd, env=env, stderr=subprocess.PIPE)
            except OSError as exc:
                raise ChildStartError(f"{self.what} could not be started: {exc}") from exc
            start.proc = proc
            tail = _StderrTail(proc.stderr)
            deadline = time.monotonic() + timeout
            sock.settimeout(self.POLL_S)
            while True:
                if start.cancelled:
                    self._fail(proc, f"{self.what} was stopped while it started")
                returncode = proc.poll()
                if returncode is not None:
                    raise ChildStartError(
                        _ended(self.what, returncode, tail, " before it connected"),
                        proc.pid,
                        returncode,
                    )
                if time.monotonic() > deadline:
                    self._fail(proc, f"{self.what} did not start within {timeout:g} s")
                try:
                    peer, _ = sock.accept()
                    break
                except TimeoutError:
                    continue
            peer.setblocking(True)
            conn = Connection(peer.detach())
            # the handshake is bounded too: killing the child ends it (EOF)
            watchdog = threading.Timer(max(deadline - time.monotonic(), 5.0), proc.kill)
            watchdog.start()
            try:
                deliver_challenge(conn, key)
                answer_challenge(conn, key)
            except (OSError, EOFError, AuthenticationError) as exc:
                conn.close()
                self._fail(proc, f"{self.what} did not complete its connection: {exc!r}")
            finally:
                watchdog.cancel()
            return proc, _ChildConnection(conn, proc, self.what, tail)
        finally:
            sock.close()
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)

    @staticmethod
    def _fail(proc: subprocess.Popen, message: str) -> None:
        """Kill and reap a child that failed to start; raise ``message``."""
        with contextlib.suppress(OSError):
            proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(10.0)
        raise ChildStartError(message, proc.pid, proc.returncode)

    def send(self, msg: Any) -> None:
        """Send from any thread (sends are serialised); arrays go out of band."""
        self.ensure_started()
        with self._send_lock:
            conn = self.conn
            if conn is None:
                raise ChildStartError(f"{self.what} was stopped")
            send_message(conn, msg)

    def send_if_started(self, msg: Any) -> bool:
        with self._send_lock:
            conn = self.conn
            if conn is None:
                return False
            try:
                conn.send(msg)
            except (OSError, ValueError):
                return False
            return True

    def kill(self) -> None:
        """Terminate the child (e.g. stuck in a kernel after Stop), or cancel its start; the
        next run starts a fresh one."""
        with self._lock:
            start = self._start
            if start is not None:
                start.cancelled = True
            stale = self._detach()
        if start is not None and start.proc is not None:
            with contextlib.suppress(OSError):
                start.proc.kill()  # its start raises at once (a handshake included)
        self._end(*stale)

    def _detach(self) -> tuple[subprocess.Popen | None, Any]:
        """Take the child out of the server (under ``_lock``); end it with ``_end``."""
        proc, conn = self._proc, self.conn
        self._proc = self.conn = None
        if isinstance(conn, _ChildConnection):
            conn.stopped = True
        return proc, conn

    def _end(self, proc: subprocess.Popen | None, conn: Any) -> None:
        """Terminate and reap the child, then close its connection (a send blocked on a full
        pipe ends with the child, so the send lock is free by then)."""
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(2.0)
            except subprocess.TimeoutExpired:
                proc.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(5.0)
        if conn is not None:
            with self._send_lock:
                conn.close()

    def shutdown(self) -> None:
        proc = self._proc
        if proc is not None and self.alive and self.send_if_started(("quit", None, None)):
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(1.0)
        self.kill()


if __name__ == "__main__":
    _conn = connect_to_parent()  # first: the parent's start deadline covers only this

    from mvc_gui.run.priority import lower_priority

    lower_priority()
    serve(_conn)
