"""The window's worker processes run below the window's priority, so it keeps a core."""

import os
import sys

import pytest

from mvc_gui.run.priority import CHILD_NICENESS, LAYOUT_NICENESS
from mvc_gui.run.solver_process import SolverServer


def _settles(read, want, timeout: float = 60.0):
    """``read()`` once it equals ``want`` (or after ``timeout`` s): a child lowers its priority
    just after it has connected, so right after ``ensure_started`` it may not have yet."""
    import time

    deadline = time.monotonic() + timeout
    while (got := read()) != want and time.monotonic() < deadline:
        time.sleep(0.02)
    return got


@pytest.mark.skipif(sys.platform == "win32", reason="niceness is POSIX")
@pytest.mark.parametrize(
    ("module", "step"),
    [
        ("mvc_gui.run.solver_process", CHILD_NICENESS),
        ("mvc_gui.run.embedding_process", LAYOUT_NICENESS),
    ],
)
def test_worker_children_run_at_a_lower_priority_the_layout_below_the_solver(module, step):
    assert LAYOUT_NICENESS > CHILD_NICENESS > 0
    server = SolverServer(module)
    try:
        server.ensure_started()
        mine = os.getpriority(os.PRIO_PROCESS, 0)
        pid = server._proc.pid
        child = _settles(lambda: os.getpriority(os.PRIO_PROCESS, pid), min(mine + step, 19))
        assert child == min(mine + step, 19)
    finally:
        server.kill()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread niceness")
def test_the_loading_thread_starts_its_children_below_the_window():
    import subprocess
    import threading

    from mvc_gui.run.priority import lower_thread_priority

    seen = {}

    def load() -> None:
        lower_thread_priority()
        code = "import os; print(os.getpriority(os.PRIO_PROCESS, 0))"
        seen["child"] = int(subprocess.check_output([sys.executable, "-c", code]))

    mine = os.getpriority(os.PRIO_PROCESS, 0)
    thread = threading.Thread(target=load)
    thread.start()
    thread.join()
    assert seen["child"] == min(mine + CHILD_NICENESS, 19)
    assert os.getpriority(os.PRIO_PROCESS, 0) == mine  # the window's own thread keeps its


linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread niceness")


def _niceness_in_thread(target) -> int:
    import threading

    seen = {}

    def run() -> None:
        target()
        seen["nice"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return seen["nice"]


@linux_only
def test_lowering_a_thread_twice_lowers_it_once():
    from mvc_gui.run.priority import THREAD_NICENESS, lower_thread_priority

    mine = os.getpriority(os.PRIO_PROCESS, 0)
    twice = _niceness_in_thread(lambda: (lower_thread_priority(), lower_thread_priority()))
    assert twice == min(mine + THREAD_NICENESS, 19)


@linux_only
def test_every_background_thread_of_the_window_runs_below_the_gui_thread(qtbot):
    import threading

    import numpy as np

    from mvc_gui.plots.embedding_parts import HoverIndex
    from mvc_gui.plots.raster import Renderer
    from mvc_gui.run.priority import THREAD_NICENESS
    from mvc_gui.run.workers import _ThreadWorker

    mine = os.getpriority(os.PRIO_PROCESS, 0)
    lowered = min(mine + THREAD_NICENESS, 19)
    seen = {}

    class Probe(_ThreadWorker):
        def _main(self) -> None:
            seen["worker"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    worker = Probe()
    worker.start()
    assert worker.join(10)

    renderer = Renderer()
    renderer.submit(1, lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
    qtbot.waitUntil(lambda: renderer.pending is None, timeout=120_000)
    seen["render"] = renderer.take()[1]

    import mvc_gui.plots.embedding_parts as parts

    built = []
    real = parts.cKDTree

    def tree(xy):
        built.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        return real(xy)

    parts.cKDTree = tree
    try:
        index = HoverIndex(np.zeros((parts.TREE_IN_THREAD, 2)))
        qtbot.waitUntil(lambda: index._tree is not None, timeout=120_000)
    finally:
        parts.cKDTree = real
    seen["hover"] = built[0]
    assert seen == {"worker": lowered, "render": lowered, "hover": lowered}
    assert os.getpriority(os.PRIO_PROCESS, 0) == mine  # the GUI thread keeps its priority


@linux_only
def test_a_child_started_from_a_lowered_thread_is_not_lowered_twice():
    from mvc_gui.run.priority import lower_thread_priority

    mine = os.getpriority(os.PRIO_PROCESS, 0)
    server = SolverServer("mvc_gui.run.solver_process")
    try:
        _niceness_in_thread(lambda: (lower_thread_priority(), server.ensure_started()))
        pid, want = server._proc.pid, min(mine + CHILD_NICENESS, 19)
        child = _settles(lambda: os.getpriority(os.PRIO_PROCESS, pid), want)
        assert child == want
    finally:
        server.kill()


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="Linux scheduling policies")
def test_children_can_run_under_sched_idle(monkeypatch):
    monkeypatch.setenv("MVC_GUI_CHILD_PRIORITY", "idle")
    server = SolverServer("mvc_gui.run.embedding_process")
    try:
        server.ensure_started()
        pid = server._proc.pid
        assert _settles(lambda: os.sched_getscheduler(pid), os.SCHED_IDLE) == os.SCHED_IDLE
    finally:
        server.kill()
