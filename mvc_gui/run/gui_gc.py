"""Python's cyclic garbage collection in the GUI thread only, over what the window made since
it started.

* Automatic collection runs in whichever thread happens to allocate. When it frees a cycle
  that holds a Qt object, that object is destroyed in that thread: a test of the window
  deadlocked so (2026-11-27: the solver thread's collection destroyed a QObject while holding
  one of Qt's locks and waited for the GIL, which the GUI thread held while it waited for that
  lock). pyqtgraph's ``GarbageCollector`` turns automatic collection off and collects on a
  timer in the GUI thread (pyqtgraph's own advice for Qt applications).
* ``freeze``: the started window's ~250,000 objects move to the permanent generation, which
  no collection scans: a full collection over them took 118 ms of the GUI thread (or of the
  thread that held the GIL while the GUI thread waited for it).
"""

from __future__ import annotations

import gc

__all__ = ["collect_in_gui_thread", "stop_collecting"]

_COLLECTOR: list = []  # the one collector of this process (its timer must stay alive)


def collect_in_gui_thread(freeze: bool = False, interval_s: float = 1.0) -> None:
    """From now on, collect only in the calling (GUI) thread, every ``interval_s`` when the
    counts pass Python's own thresholds. ``freeze``: first collect, then freeze everything
    alive (once the window is built). Idempotent; needs a running QApplication."""
    if freeze:
        gc.collect()
        gc.freeze()
    if _COLLECTOR:
        return
    from pyqtgraph.util.garbage_collector import GarbageCollector

    _COLLECTOR.append(GarbageCollector(interval=interval_s))


def stop_collecting() -> None:
    """Automatic collection again (tests that installed the collector restore it)."""
    if _COLLECTOR:
        _COLLECTOR.pop().timer.stop()
    gc.enable()
