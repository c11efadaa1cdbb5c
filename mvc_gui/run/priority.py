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
    "LAYOUT_NICENESS",
    "THREAD_NICENESS",
    "favour_event_loop",
    "lower_priority",
    "lower_thread_priority",
]

#: added to the child's niceness on POSIX (0 = normal, 19 = lowest)
CHILD_NICENESS = 5
#: the layout child's: below the solver child, which has the cores while a run computes (the
#: clusters first; measured at 1M: a layout child beside it took as much CPU as the solver
#: and the run 1.7x as long, docs/benchmarks/gui_million.md); alone it has them all
LAYOUT_NICENESS = CHILD_NICENESS + 5
#: added to the niceness of the window's background threads (Linux)
THREAD_NICENESS = 5
#: the window's GIL switch interval (Python's default is 5 ms)
GIL_SWITCH_S = 0.001


def lower_priority(step: int = CHILD_NICENESS) -> None:
    """Make the calling process yield the CPU to the window (best effort, never raises).

    POSIX: the niceness of the parent's main thread + ``step`` (absolute, so a child started
    from an already lowered thread of the window, which it inherits the niceness of, is not
    lowered twice); ``MVC_GUI_CHILD_PRIORITY=idle`` runs it under Linux's ``SCHED_IDLE``
    instead (only when no other task wants the core), a number sets the increment."""
    want = os.environ.get("MVC_GUI_CHILD_PRIORITY", "")
    try:
        if sys.platform == "win32":
            import ctypes

            below_normal = 0x00004000
            kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
            kernel32.SetPriorityClass(kernel32.GetCurrentProcess(), below_normal)
        elif want == "idle" and hasattr(os, "SCHED_IDLE"):
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        else:
            step = int(want) if want.lstrip("-").isdigit() else step
            _renice(0, os.getpriority(os.PRIO_PROCESS, os.getppid()) + step)
    except (OSError, AttributeError, ValueError):
        pass  # not permitted or not supported: run at normal priority


def lower_thread_priority() -> None:
    """Lower the calling thread's priority to the process's main thread's niceness +
    :data:`THREAD_NICENESS` (Linux: niceness is per thread, and inherited by the processes
    the thread starts). Every background thread of the window calls it (the workers that
    receive frames and count labels, the scatter's render thread, the hover index, the
    file loading thread and the reader and summary children it starts): at 1M samples they
    took the core the GUI thread was waiting for (benchmarks/gui_million.py). Idempotent.
    Elsewhere a no-op: there niceness belongs to the whole process, the window's included."""
    if not sys.platform.startswith("linux"):
        return
    try:
        main = os.getpriority(os.PRIO_PROCESS, os.getpid())  # the main thread's tid is the pid
        _renice(threading.get_native_id(), main + THREAD_NICENESS)
    except (OSError, AttributeError):
        pass


def _renice(tid: int, niceness: int) -> None:
    """At least ``niceness`` for task ``tid`` (0: the caller); never raised back (an
    unprivileged task cannot lower its niceness)."""
    current = os.getpriority(os.PRIO_PROCESS, tid)
    target = min(max(niceness, current), 19)
    if target != current:
        os.setpriority(os.PRIO_PROCESS, tid, target)


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
    lower_thread_priority()
    from core.records.runs import package_versions

    package_versions()
