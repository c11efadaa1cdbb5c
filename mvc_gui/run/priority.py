"""Lower the scheduling priority of the window's worker processes.

On a machine with as many busy workers as cores (the solver and the layout child on two
cores), the window's own thread otherwise waits for a core and the event loop stalls for
100-200 ms at a time although it has almost nothing to do (measured at 1M samples:
docs/benchmarks/gui_million.md). A lower priority for the children gives the window the core
whenever it needs one; the children lose nothing while the window is idle.
"""

from __future__ import annotations

import os
import sys

__all__ = ["CHILD_NICENESS", "lower_priority"]

#: added to the child's niceness on POSIX (0 = normal, 19 = lowest)
CHILD_NICENESS = 5


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
