"""How a child process of the window (solver, layout) ties itself to the window: it ends when
the window ends, however it ends, then connects back. Only the standard library here: a
child runs this before its heavy imports (numba, scikit-learn: seconds on a busy machine),
so a window killed meanwhile takes the child with it at once."""

from __future__ import annotations

import os
import re
import signal
import sys
import threading
import time
from multiprocessing.connection import Client
from typing import Any

__all__ = ["connect_to_parent", "end_with_parent", "end_with_parent_of_argv"]

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_tied = False
_TCP_ADDRESS = re.compile(r"(127\.0\.0\.1):(\d+)")


def connect_to_parent(argv: list[str] | None = None) -> Any:
    """The first thing a child does (``ADDRESS KEY [PARENT_PID]`` on its command line): end
    with the parent, then connect. The child lowers its priority and imports its heavy
    modules only afterwards, so a busy machine cannot push the connection past the parent's
    start deadline."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) > 2:
        end_with_parent(int(argv[2]))
    match = _TCP_ADDRESS.fullmatch(argv[0])
    address = (match[1], int(match[2])) if match else argv[0]
    return Client(address, authkey=bytes.fromhex(argv[1]))


def end_with_parent_of_argv(argv: list[str] | None = None) -> None:
    """:func:`end_with_parent` for the parent pid on a child's command line, if there."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) > 2:
        end_with_parent(int(argv[2]))


def end_with_parent(parent: int) -> None:
    """End this process when process ``parent`` ends, however it ends (``kill -9`` too).

    Linux: the kernel kills it at once (``prctl(PR_SET_PDEATHSIG, SIGKILL)``; the signal
    comes when the *thread* that started the child ends, so the parent starts its children
    from a thread that lives as long as it, :class:`_Spawner`); a parent that died before the
    ``prctl`` is caught by the parent pid. Elsewhere a daemon thread watches the parent (it
    needs the GIL: a long GIL-holding kernel delays it). Once per process."""
    global _tied
    if _tied:
        return
    _tied = True
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
        if armed:
            if os.getppid() != parent:
                os._exit(1)  # the parent died before the prctl
            return
    watch = threading.Thread(target=_watch_parent, args=(parent,), name="parent", daemon=True)
    watch.start()


def _watch_parent(parent: int) -> None:
    if sys.platform == "win32":
        import ctypes

        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
        kernel32.OpenProcess.restype = ctypes.c_void_p
        kernel32.WaitForSingleObject.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
        synchronize, infinite = 0x00100000, 0xFFFFFFFF
        handle = kernel32.OpenProcess(synchronize, False, parent)
        if handle:
            kernel32.WaitForSingleObject(handle, infinite)
    else:
        while os.getppid() == parent:  # a child whose parent died is adopted by another
            time.sleep(0.5)
    os._exit(1)
