"""BLAS thread policy for solver inner loops.

Measured on the 2-core target: multi-threaded OpenBLAS next to numba's OpenMP pool (or any
other busy thread) made small products and SVDs 10-100x slower (ALPC's M x M products, DTLL's
m x C SVDs: one Handwritten fit 40 s -> 2 s with one thread). So inner loops run BLAS on one
thread, and only products with the data large enough to amortise thread start-up use all
threads. The limits are process-wide: enter them around computation, not across a yield
that may wait for a long time.
"""

from __future__ import annotations

import math
from contextlib import AbstractContextManager

from threadpoolctl import ThreadpoolController

__all__ = ["PARALLEL_FLOPS", "blas_full", "blas_single", "blas_threads", "single_threaded"]

PARALLEL_FLOPS = 2e9  # below this a product runs on one thread
_STATE: dict[str, object] = {}


def _controller() -> tuple[ThreadpoolController, int]:
    if "ctl" not in _STATE:  # created lazily: inspecting the loaded libraries takes time
        ctl = ThreadpoolController()
        threads = [i["num_threads"] for i in ctl.info() if i["user_api"] == "blas"]
        _STATE["ctl"], _STATE["threads"] = ctl, max(threads or [1])
    return _STATE["ctl"], _STATE["threads"]  # type: ignore[return-value]


def blas_threads() -> int:
    """The number of BLAS threads ``blas_full`` allows (the library's own setting)."""
    return _controller()[1]


def blas_single() -> AbstractContextManager[object]:
    """One BLAS thread (small products, SVDs and solves in inner loops)."""
    ctl, _ = _controller()
    return ctl.limit(limits=1, user_api="blas")


def blas_full(flops: float = math.inf) -> AbstractContextManager[object]:
    """All BLAS threads for a product of at least PARALLEL_FLOPS, else one."""
    ctl, threads = _controller()
    return ctl.limit(limits=threads if flops >= PARALLEL_FLOPS else 1, user_api="blas")


def single_threaded() -> AbstractContextManager[object]:
    """One thread for BLAS and OpenMP together (scikit-learn's k-means uses both): many small
    k-means runs were 50x slower with the threads of a 2-core machine than on one."""
    ctl, _ = _controller()
    return ctl.limit(limits=1)
