"""The window's worker processes run below the window's priority, so it keeps a core."""

import os
import sys

import pytest

from mvc_gui.run.priority import CHILD_NICENESS
from mvc_gui.run.solver_process import SolverServer


@pytest.mark.skipif(sys.platform == "win32", reason="niceness is POSIX")
@pytest.mark.parametrize("module", ["mvc_gui.run.solver_process", "mvc_gui.run.embedding_process"])
def test_worker_children_run_at_a_lower_priority(module):
    server = SolverServer(module)
    try:
        server.ensure_started()
        child = os.getpriority(os.PRIO_PROCESS, server._proc.pid)
        mine = os.getpriority(os.PRIO_PROCESS, 0)
        assert child == min(mine + CHILD_NICENESS, 19)
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
