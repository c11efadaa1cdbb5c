"""The line a command writes when its run starts compiling numba kernels.

The kernels are compiled on the first run of a machine (and after an update changed them),
then loaded from numba's cache folder (``core.numerics.jit.config``): a first run of FMDC on
the demo data spends most of its time compiling, a later one starts at once. So that a
first run does not look stuck, :func:`announce_compiles` listens to numba's compile events
and, at the first kernel that has to be compiled because the cache has no copy of it,
writes one line saying so. A warm cache compiles nothing: no line.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

__all__ = ["COMPILE_SECONDS", "announce_compiles", "notice"]

#: CPU seconds a first run on an empty cache spends compiling the method's kernels, the
#: automatic number of clusters included (the demo data on a 2-core machine; fewer with
#: the classes given): benchmarks/first_run.py, docs/benchmarks/first_run.md. Compiling runs
#: on one core: the wall time on a quiet machine.
COMPILE_SECONDS = {
    "alpc": 10,
    "anchor-sc": 15,
    "dtll": 20,
    "fmdc": 15,
    "kmeans-concat": 15,
    "mvsc-hfd": 15,
    "rg-mvc": 10,
}


def notice(method: str | None = None) -> str:
    seconds = COMPILE_SECONDS.get(method or "", max(COMPILE_SECONDS.values()))
    return f"compiling the solvers once (about {seconds} s; later runs start at once)"


def _cached(dispatcher: Any) -> bool:
    """True for a kernel numba keeps in its cache folder (``cache=True``)."""
    from numba.core.caching import NullCache

    cache = getattr(dispatcher, "_cache", None)
    return cache is not None and not isinstance(cache, NullCache)


@contextmanager
def announce_compiles(method: str | None = None, stream: TextIO | None = None) -> Iterator[None]:
    """Within this block, write :func:`notice` to ``stream`` (stderr) when this process first
    compiles a cached kernel: numba loads the kernels it has a copy of without a compile
    event. The listener goes when the block ends (a command's, not the process's: a later
    command in the same process, e.g. a test, is not written to through a closed stream)."""
    from numba.core import event

    out = sys.stderr if stream is None else stream

    class FirstCompile(event.Listener):
        said = False

        def on_start(self, ev: event.Event) -> None:
            if self.said or not _cached((ev.data or {}).get("dispatcher")):
                return
            self.said = True
            clear = "\r\033[K" if out.isatty() else ""  # over a live progress line
            out.write(f"{clear}{notice(method)}\n")
            out.flush()

        def on_end(self, ev: event.Event) -> None:
            pass

    with event.install_listener("numba:compile", FirstCompile()):
        yield
