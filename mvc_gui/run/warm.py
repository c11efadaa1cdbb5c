"""The window's method compiled before the first Run (issue 27).

A machine's first run of a method compiles its numba kernels: tens of seconds, after which
they load from numba's cache folder (``core.numerics.jit.config``) in a fraction of one. The
solver child starts with the window (``SolverServer.start_early``) and waits, idle and at a
low priority, for the first Run; the window sends it :func:`warm_message` for the method its
panel shows, and the child's ``serve`` answers with :func:`warm_kernels`: one short run of
that method on the demo data (the automatic number of clusters included), which compiles
the kernels a run needs, or loads them into this process when the cache has them. It stops
at the first state after the window sent anything: a Run waits at most for the kernel being
compiled, which it needs as well. Nothing is sent back; a failure is not shown (the Run that
follows reports its own). ``MVC_GUI_WARM=0`` turns it off.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any

__all__ = ["WARM", "warm_kernels", "warm_message"]

_log = logging.getLogger(__name__)

#: the message kind ``serve`` hands to :func:`warm_kernels`
WARM = "warm"
#: outer iterations of the warm-up run: every kernel has run once by then
WARM_ITERATIONS = 2


def warm_message(method: str | None) -> tuple[str, str] | None:
    """What the window sends its new solver child (None: nothing to warm). Two items, as the
    control messages: one that comes while a Run has started is ignored as theirs are."""
    if not method or os.environ.get("MVC_GUI_WARM", "1") == "0":
        return None
    return (WARM, method)


def warm_kernels(method: Any, busy: Callable[[], bool]) -> bool:
    """Run ``method`` on the demo data until it ends or ``busy()`` (the window sent a
    message); True when it ran to its end. Never raises."""
    try:
        from core.data.demo import load_demo
        from core.data.prepare import prepare_views
        from core.methods import REGISTRY

        cls = REGISTRY.get(method) if isinstance(method, str) else None
        if cls is None or busy():
            return False
        ds = load_demo()
        spec = cls.param_spec
        params: dict[str, Any] = {"n_clusters": "auto" if spec["n_clusters"].auto else 10}
        if "max_iter" in spec:
            params["max_iter"] = WARM_ITERATIONS
        solver = cls.from_params(params)
        views, _ = prepare_views(ds.views, "auto", cls.auto_preprocessing, row_blocks=cls.streams)
        states = solver.iterate(views)
        try:
            for state in states:
                if state.final:
                    return True
                if busy():
                    return False
        finally:
            states.close()
    except Exception:  # a warm-up only: the Run reports what fails
        _log.debug("warming the kernels of %s failed", method, exc_info=True)
    return False
