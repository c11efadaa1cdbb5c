"""Cyclic garbage is collected in the GUI thread only: a cycle dropped by a worker thread
(as the window's frame receivers drop theirs) is freed by the GUI thread's timer, never by
an automatic collection in the worker, where freeing a Qt object can deadlock."""

from __future__ import annotations

import gc
import threading
from typing import ClassVar

from mvc_gui.run.gui_gc import collect_in_gui_thread

N = 1000


class _Node:
    freed_in: ClassVar[list[str]] = []

    def __init__(self) -> None:
        self.other = self  # a cycle: only the cyclic collector frees it

    def __del__(self) -> None:
        _Node.freed_in.append(threading.current_thread().name)


def test_cycles_dropped_in_a_worker_are_freed_in_the_gui_thread(qtbot):
    collect_in_gui_thread()  # the session fixture installed it already: idempotent
    assert not gc.isenabled()
    _Node.freed_in.clear()

    def worker() -> None:
        # 2,000 tracked objects in cycles: past the young generation's threshold (700), so
        # the worker would collect them itself if automatic collection were on
        for _ in range(N):
            _Node()

    t = threading.Thread(target=worker, name="worker")
    t.start()
    t.join()
    assert _Node.freed_in == []  # nothing collected in the worker
    qtbot.waitUntil(lambda: len(_Node.freed_in) == N, timeout=120_000)
    assert set(_Node.freed_in) == {threading.main_thread().name}
