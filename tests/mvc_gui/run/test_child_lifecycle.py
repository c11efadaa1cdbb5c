"""The solver and layout children: starting one never hangs, a child that dies says how, and
no child outlives the window (issue 27 item 1).

Bounds are generous (a loaded machine must not fail them): the calls carry their own short
timeouts, the tests only check that they return, with the right error, well within a minute.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from mvc_gui.run.solver_process import ChildStartError, SolverServer

SOLVER = "mvc_gui.run.solver_process"
LAYOUT = "mvc_gui.run.embedding_process"
BOUND_S = 60.0  # what a test allows a call that has its own, much shorter, timeout
linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="parent-death signal and /proc are Linux's"
)


def _call(fn, bound: float = BOUND_S) -> tuple[bool, BaseException | None]:
    """Run ``fn`` in a thread: (it returned within ``bound`` s, the exception it raised)."""
    box: list[BaseException | None] = [None]

    def run() -> None:
        try:
            fn()
        except BaseException as exc:
            box[0] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(bound)
    return not thread.is_alive(), box[0]


def _ended(pid: int) -> bool:
    """The process is gone (a zombie counts: it computes nothing; an adoptive parent that does
    not reap, as in some containers, would leave one)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def _until(condition, bound: float = BOUND_S) -> bool:
    deadline = time.monotonic() + bound
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture
def sleepy_module(tmp_path, monkeypatch):
    """A child module that never connects (its folder reaches the child through sys.path)."""
    (tmp_path / "sleepy_child.py").write_text("import time\ntime.sleep(600)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    return "sleepy_child"


def test_a_module_that_cannot_start_fails_clearly_and_the_next_start_tries_again():
    server = SolverServer("nonexistent_module")
    for _ in range(2):  # the second call starts a fresh child, which fails the same way
        # it fails at its import; the deadline is only a bound a busy machine cannot reach
        returned, error = _call(lambda: server.ensure_started(timeout=120))
        assert returned, "ensure_started hung"
        assert isinstance(error, ChildStartError), error
        message = str(error)
        assert "nonexistent_module" in message
        assert "exited with code 1 before it connected" in message
        assert "No module named" in message  # the child's last stderr line
        assert error.returncode == 1 and _ended(error.pid)
        assert not server.alive
        returned, error = _call(server.shutdown)
        assert returned and error is None


def test_a_child_that_never_connects_is_killed_and_reaped(sleepy_module):
    server = SolverServer(sleepy_module)
    returned, error = _call(lambda: server.ensure_started(timeout=2))
    assert returned, "ensure_started hung"
    assert isinstance(error, ChildStartError), error
    assert "did not start within 2 s" in str(error)
    assert error.returncode == -signal.SIGKILL  # reaped: Popen has its exit status
    if sys.platform.startswith("linux"):
        assert _ended(error.pid)
    assert not server.alive and server._start is None
    returned, error = _call(server.shutdown)
    assert returned and error is None


def test_kill_during_a_start_returns_and_ends_the_start(sleepy_module):
    """No lock is held while a start waits: ``kill`` (Stop, closing the window) returns at
    once and the start ends with an error; callers that came meanwhile share it."""
    server = SolverServer(sleepy_module)
    errors: list[BaseException | None] = []
    starters = [
        threading.Thread(target=lambda: errors.append(_call(server.ensure_started)[1]))
        for _ in range(2)
    ]
    for thread in starters:
        thread.start()
    assert _until(lambda: server._start is not None and server._start.proc is not None)
    pid = server._start.proc.pid
    returned, error = _call(server.kill)
    assert returned and error is None
    for thread in starters:
        thread.join(BOUND_S)
        assert not thread.is_alive(), "ensure_started hung after kill"
    assert len(errors) == 2 and all(isinstance(e, ChildStartError) for e in errors), errors
    assert all("was stopped while it started" in str(e) for e in errors)
    if sys.platform.startswith("linux"):
        assert _until(lambda: _ended(pid))
    assert not server.alive


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize(
    ("module", "name"), [(SOLVER, "the solver process"), (LAYOUT, "the layout process")]
)
def test_a_child_killed_while_connected_says_how_it_ended(module, name):
    server = SolverServer(module)
    try:
        server.ensure_started()
        os.kill(server._proc.pid, signal.SIGKILL)
        with pytest.raises(EOFError, match=f"{name} was killed by SIGKILL"):
            while True:  # the solver child's "ready" may come first
                server.conn.recv()
        assert not server.alive
        server.ensure_started()  # a fresh child
        assert server.alive
    finally:
        server.shutdown()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_run_whose_child_is_killed_fails_naming_the_signal(qtbot, small_dataset):
    from mvc_gui.model.data_session import DataSession
    from mvc_gui.run.controller import RunController

    c = RunController(use_process=True)
    failed: list[tuple[str, str]] = []
    c.run_failed.connect(lambda message, details: failed.append((message, details)))
    c.start("fake", {"n_clusters": 3, "max_iter": 500, "delay": 0.05}, DataSession(small_dataset))
    qtbot.waitUntil(lambda: bool(c.history.iterations), timeout=int(BOUND_S * 1000))
    os.kill(SolverServer.shared()._proc.pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: bool(failed), timeout=int(BOUND_S * 1000))
    message, details = failed[0]
    assert message.startswith("fake failed: the solver process was killed by SIGKILL"), message
    assert "EOFError" in details
    assert c.shutdown(2.0)
    qtbot.wait(50)


def test_a_failure_without_a_message_still_says_what_failed():
    from mvc_gui.model.runner import RunEnd
    from mvc_gui.run.controller import failure_reason

    details = 'Traceback (most recent call last):\n  File "x.py", line 1\nEOFError\n'
    assert failure_reason(RunEnd(1, "failed", None, "", details)) == "EOFError"
    assert failure_reason(RunEnd(1, "failed", None, "", "")) == "no reason was given"
    assert failure_reason(RunEnd(1, "failed", None, "boom", details)) == "boom"


PARENT = textwrap.dedent(
    """
    import sys, threading, time
    from mvc_gui.run.solver_process import SolverServer

    server = SolverServer(sys.argv[1])
    # from a thread that ends, as a run's worker does: the child must outlive the thread
    starter = threading.Thread(target=server.ensure_started)
    starter.start()
    starter.join()
    print(server._proc.pid, flush=True)
    time.sleep(600)
    """
)


@linux_only
@pytest.mark.parametrize("module", [SOLVER, LAYOUT])
def test_children_end_when_the_window_is_killed(module):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, module], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        line: list[str] = []
        reader = threading.Thread(target=lambda: line.append(parent.stdout.readline()))
        reader.start()
        reader.join(BOUND_S)
        assert line and line[0].strip().isdigit(), f"the parent printed no child pid: {line}"
        child = int(line[0])
        time.sleep(0.5)  # the thread that started it has ended
        assert not _ended(child), "the child died with the thread that started it"
        with open(f"/proc/{child}/stat") as f:
            assert int(f.read().rsplit(")", 1)[1].split()[1]) == parent.pid
        parent.kill()  # kill -9: no cleanup of any kind in the parent
        parent.wait(BOUND_S)
        assert _until(lambda: _ended(child)), f"child {child} outlived its parent"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        parent.stdout.close()


@linux_only
def test_a_child_whose_parent_died_before_it_started_watching_exits():
    """The parent pid on the command line is not the child's parent any more (it died before
    the ``prctl``): the child exits at once, without trying to connect."""
    done = subprocess.run(
        [sys.executable, "-m", LAYOUT, "/nonexistent/socket", "00", "1"],
        capture_output=True,
        text=True,
        timeout=BOUND_S,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr  # it did not get as far as connecting


@pytest.mark.parametrize("module", ["mvc_gui.run.solver_process", "mvc_gui.run.embedding_process"])
def test_a_child_ties_itself_to_the_window_before_its_heavy_imports(module):
    """A window killed while its child still imports numba and scikit-learn (seconds on a busy
    machine) takes the child with it: the tie comes first. Shown with a parent already gone:
    the child ends at once, having imported neither."""
    import subprocess
    import sys

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # a pid no process of ours has any more
    child = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", module, "127.0.0.1:9", "00", str(gone.pid)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert child.returncode == 1
    imported = child.stderr
    assert "numba" not in imported and "sklearn" not in imported and "PySide6" not in imported
