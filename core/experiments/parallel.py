"""Many independent solver runs through joblib: streaming results, cancel, no oversubscription.

Parameter sweeps (``core.experiments.sweep``) and the noise-robustness experiment
(``core.experiments.robustness``) are lists of independent jobs. :func:`run_batch` sends them to
joblib with ``return_as="generator_unordered"``, so each result reaches the caller (a progress
line, a heat-map cell) as soon as it is ready, in whatever order the workers finish. joblib's
backend is the caller's choice: the default process pool (loky) on this machine, or a Dask or
Ray cluster through ``joblib.parallel_config`` (docs/sweeps.md).

Cancel has two halves. A :class:`CancelFlag` is a file in a private temporary folder: workers on
this machine poll it between solver states (one ``stat`` every 50 ms at most), so running jobs
return within an iteration. Then the driver closes joblib's generator, which drops the jobs not
started yet (and, with loky, terminates the worker processes). On a remote cluster the file is
not visible: running jobs finish, queued ones are still dropped.

Oversubscription: with more than one job at a time each job runs BLAS and numba on one thread
(loky already exports ``OMP_NUM_THREADS``/``NUMBA_NUM_THREADS`` to its workers; the explicit
limits also cover the threading backend and externally configured ones).

The job both experiments run is in :mod:`core.experiments.scoring`, the plan that records the
rows and writes them as CSV in :mod:`core.experiments.plan`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

import core.numerics.jit.config  # noqa: F401  (numba's threading layer and cache folder first)

__all__ = ["CancelCheck", "CancelFlag", "Cancelled", "Outcome", "fit_cancellable", "run_batch"]

#: What a job callback receives: the task index, ``"ok"``, ``"error"`` or ``"cancelled"``,
#: and the job's return value (ok) or the error text (error).
Outcome = tuple[int, str, Any]


class CancelFlag:
    """A cancel request seen by the driver (an event) and by local workers (a file)."""

    def __init__(self) -> None:
        self._dir = tempfile.mkdtemp(prefix="mvc-cancel-")
        self.path = os.path.join(self._dir, "cancel")
        self._event = threading.Event()

    def set(self) -> None:
        self._event.set()
        with contextlib.suppress(OSError), open(self.path, "w"):
            pass

    def is_set(self) -> bool:
        return self._event.is_set()

    def cleanup(self) -> None:
        shutil.rmtree(self._dir, ignore_errors=True)


class CancelCheck:
    """Worker side of :class:`CancelFlag`: polls the file at most every ``every`` seconds."""

    def __init__(self, path: str | None, every: float = 0.05) -> None:
        self.path, self.every = path, every
        self._next, self._set = 0.0, False

    def __call__(self) -> bool:
        if self._set or self.path is None:
            return self._set
        now = time.monotonic()
        if now >= self._next:
            self._next = now + self.every
            self._set = os.path.exists(self.path)
        return self._set


class Cancelled(Exception):
    """Raised inside a job when the batch was cancelled."""


def fit_cancellable(
    solver: Any,
    views: Sequence[object],
    cancelled: Callable[[], bool],
    observed: np.ndarray | None = None,
    k_views: Sequence[object] | None = None,
) -> Any:
    """``solver.fit(views, observed=observed)``, checking ``cancelled()`` between states
    (raises Cancelled). ``k_views``: what an ``auto`` k is estimated on, if not ``views``."""
    gen = solver.iterate(views, observed, k_views=None if k_views is None else lambda: k_views)
    try:
        for _ in gen:
            if cancelled():
                raise Cancelled()
    finally:
        gen.close()
    return solver


@contextlib.contextmanager
def _single_threaded() -> Iterator[None]:
    import numba
    from threadpoolctl import threadpool_limits

    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        with threadpool_limits(limits=1):
            yield
    finally:
        numba.set_num_threads(before)


def _call(
    fn: Callable[..., Any], index: int, task: Any, shared: Any, single: bool, flag: str | None
) -> Outcome:
    """Runs in a worker: one job, its failure or cancel turned into a status (never raised,
    so one failing job cannot stop the batch)."""
    check = CancelCheck(flag)
    if check():
        return index, "cancelled", None
    try:
        with _single_threaded() if single else contextlib.nullcontext():
            return index, "ok", fn(task, shared, check)
    except Cancelled:
        return index, "cancelled", None
    except Exception as exc:
        first = f"{type(exc).__name__}: {exc}"
        return index, "error", first if str(exc) else traceback.format_exc(limit=2)


def run_batch(
    fn: Callable[[Any, Any, CancelCheck], Any],
    tasks: Sequence[Any],
    shared: Any = None,
    *,
    n_jobs: int = -1,
    backend: str | None = None,
    on_result: Callable[[int, str, Any], None] | None = None,
    cancel: CancelFlag | None = None,
) -> list[Outcome | None]:
    """Run ``fn(task, shared, cancelled)`` for every task; results in task order.

    ``on_result(index, status, value)`` is called in this thread as each job ends. Entries of
    jobs that never ran (cancelled before they started) are None. ``backend`` None uses
    joblib's current configuration (loky unless the caller set ``parallel_config``).
    """
    from joblib import Parallel, delayed, effective_n_jobs, parallel_config

    own_flag = cancel is None
    flag = CancelFlag() if own_flag else cancel
    out: list[Outcome | None] = [None] * len(tasks)
    config = parallel_config(backend=backend) if backend else contextlib.nullcontext()
    try:
        with config:
            single = effective_n_jobs(n_jobs) != 1
            parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
            gen = parallel(
                delayed(_call)(fn, i, task, shared, single, flag.path)
                for i, task in enumerate(tasks)
            )
            try:
                for outcome in gen:
                    out[outcome[0]] = outcome
                    if on_result is not None:
                        on_result(*outcome)
                    if flag.is_set():
                        break
            finally:
                with warnings.catch_warnings():  # joblib warns about the jobs we dropped
                    warnings.simplefilter("ignore", UserWarning)
                    gen.close()
    finally:
        if own_flag:
            flag.cleanup()
    return out
