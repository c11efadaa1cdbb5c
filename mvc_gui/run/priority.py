"""Lower the scheduling priority of the window's worker processes.

On a machine with as many busy workers as cores (the solver and the layout child on two
cores), the window's own thread otherwise waits for a core and the event loop stalls for
100-200 ms at a time although it has almost nothing to do (measured at 1M samples:
docs/benchmarks/gui_million.md). A lower priority for the children gives the window the core
whenever it needs one; the children lose nothing while the window is idle.

Within the window's process, :func:`favour_event_loop` keeps the GUI thread's waits for the
GIL short and its own thread pools small (see there).
"""

from __future__ import annotations

import os
import sys
import threading

__all__ = [
    "CHILD_NICENESS",
    "GIL_SWITCH_S",
    "favour_event_loop",
    "lower_priority",
    "lower_thread_priority",
]

#: added to the child's niceness on POSIX (0 = normal, 19 = lowest)
CHILD_NICENESS = 5
#: the window's GIL switch interval (Python's default is 5 ms)
GIL_SWITCH_S = 0.001


def lower_priority() -> None:
    """Make the calling process yield the CPU to the window (best effort, never raises)."""
    try:
        if sys.platform == "win32":
            import ctypes

            below_normal = 0x00004000
            kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
            kernel32.SetPriorityClass(kernel32.GetCurrentProcess(), below_normal)
        else:
            os.nice(CHILD_NICENESS)
    except (OSError, AttributeError):
        pass  # not permitted or not supported: run at normal priority


def lower_thread_priority() -> None:
    """Lower the calling thread's priority, and so that of every process it starts (Linux:
    niceness is per thread and inherited by children). The file loading thread calls it: the
    reader and summary children it starts pass over gigabytes at 1M samples and took the
    window's core while it drew the new data (measured by benchmarks/gui_million.py).
    Elsewhere a no-op: there niceness belongs to the whole process, the window's included."""
    if not sys.platform.startswith("linux"):
        return
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + CHILD_NICENESS)
    except (OSError, AttributeError):
        pass


def favour_event_loop(solver_in_child: bool = True) -> None:
    """Settings for the window's process (``mvc-gui`` calls it once at start; they are
    process-wide, so a window made inside another program, e.g. a test, does without).

    * GIL switch interval 1 ms instead of 5: whenever a background thread of the window runs
      Python (receiving a frame, loading a compiled kernel), the GUI thread waits for the GIL
      after each of its many calls into Qt; at 5 ms a wait, an event of 10 ms of work took
      over 100 ms (measured with benchmarks/gui_million.py --trace).
    * what the first data load and run end would do on the event loop is done now, in a
      background thread, while the new window waits for input: looking up the package
      versions a run record carries (the scatter loads its compiled rasteriser the same way,
      :func:`mvc_gui.plots.raster.warm_up`).
    * one BLAS and one numba thread when the solver runs in a child (``solver_in_child``): the
      window itself only does small array work, and spare pool threads spinning after it
      would take the core the children and the event loop need.
    """
    sys.setswitchinterval(GIL_SWITCH_S)
    threading.Thread(target=_warm_up, name="warm-up", daemon=True).start()
    if not solver_in_child:
        return
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=1)
        import numba

        numba.set_num_threads(1)
    except (ImportError, ValueError, RuntimeError):
        pass


def _warm_up() -> None:
    from core.records.runs import package_versions

    package_versions()
