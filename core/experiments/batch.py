"""Many independent solver runs through joblib: streaming results, cancel, no oversubscription.

Parameter sweeps (``core.experiments.sweep``) and the noise-robustness experiment
(``core.experiments.robustness``)
are lists of independent jobs. :func:`run_batch` sends them to joblib with
``return_as="generator_unordered"``, so each result reaches the caller (a progress line, a
heat-map cell) as soon as it is ready, in whatever order the workers finish. joblib's backend
is the caller's choice: the default process pool (loky) on this machine, or a Dask or Ray
cluster through ``joblib.parallel_config`` (docs/sweeps.md).

Cancel has two halves. A :class:`CancelFlag` is a file in a private temporary folder: workers
on this machine poll it between solver states (one ``stat`` every 50 ms at most), so running
jobs return within an iteration. Then the driver closes joblib's generator, which drops the
jobs not started yet (and, with loky, terminates the worker processes). On a remote cluster
the file is not visible: running jobs finish, queued ones are still dropped.

Oversubscription: with more than one job at a time each job runs BLAS and numba on one
thread (loky already exports ``OMP_NUM_THREADS``/``NUMBA_NUM_THREADS`` to its workers; the
explicit limits also cover the threading backend and externally configured ones).

Both experiments also share one job (:func:`fit_and_score`) and the plan that records the
rows and writes them as CSV (:class:`BatchPlan`).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import shutil
import tempfile
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

import core.numerics.jit.config  # noqa: F401  (numba's threading layer and cache folder, before numba loads)
from core.data.atomic import atomic_write

__all__ = [
    "LABEL_SCORES",
    "BatchPlan",
    "CancelCheck",
    "CancelFlag",
    "Outcome",
    "csv_cell",
    "finite",
    "fit_and_score",
    "fit_cancellable",
    "label_free_scores",
    "run_batch",
    "score_labels",
]

#: What a job callback receives: the task index, ``"ok"``, ``"error"`` or ``"cancelled"``,
#: and the job's return value (ok) or the error text (error).
Outcome = tuple[int, str, Any]

SILHOUETTE_SAMPLES = 2000
LABEL_SCORES = ("acc", "nmi", "ari", "purity")  # the scores that need true labels


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


def fit_cancellable(solver: Any, views: Sequence[object], cancelled: Callable[[], bool]) -> Any:
    """``solver.fit(views)``, checking ``cancelled()`` between states (raises Cancelled)."""
    gen = solver.iterate(views)
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


# -- scores shared by sweeps and the robustness experiment ----------------------------------
def score_labels(true_labels: np.ndarray | None, labels: np.ndarray) -> dict[str, float]:
    """ACC, NMI, ARI and purity against the true labels (empty without them)."""
    if true_labels is None:
        return {}
    from core.numerics.metrics import accuracy, adjusted_rand, nmi, purity

    return {
        "acc": accuracy(true_labels, labels),
        "nmi": nmi(true_labels, labels),
        "ari": adjusted_rand(true_labels, labels),
        "purity": purity(true_labels, labels),
    }


def label_free_scores(
    solver: Any, views: Sequence[object], labels: np.ndarray, seed: int = 0
) -> dict[str, float]:
    """The final objective and the silhouette of the labels on the concatenated views.

    Silhouette uses at most ``SILHOUETTE_SAMPLES`` samples (a fixed subsample, the same for
    every cell) and scales each view's block to unit mean squared row norm, so a view does
    not dominate the distances by its dimension. NaN when it is undefined (one cluster).
    """
    from sklearn.metrics import silhouette_score

    history = getattr(solver, "objective_history_", None) or []
    out = {"objective": float(history[-1]) if history else float("nan")}
    n = labels.size
    rng = np.random.default_rng(seed)
    idx = (
        np.sort(rng.choice(n, SILHOUETTE_SAMPLES, replace=False))
        if n > SILHOUETTE_SAMPLES
        else None
    )
    sub = labels if idx is None else labels[idx]
    k = np.unique(sub).size
    if not 2 <= k < sub.size:
        out["silhouette"] = float("nan")
        return out
    blocks = []
    for v in views:
        x = v if idx is None else v[idx]
        sq = x.multiply(x).sum() if sp.issparse(x) else np.einsum("ij,ij->", x, x)
        scale = 1.0 / np.sqrt(max(float(sq) / x.shape[0], 1e-300))
        blocks.append(x * scale)
    if any(sp.issparse(b) for b in blocks):
        xcat = sp.hstack([sp.csr_matrix(b) for b in blocks], format="csr")
    else:
        xcat = np.hstack(blocks)
    out["silhouette"] = float(silhouette_score(xcat, sub))
    return out


def fit_and_score(
    solver: Any,
    views: Sequence[object],
    true_labels: np.ndarray | None,
    cancelled: Callable[[], bool],
) -> dict[str, Any]:
    """One job of a sweep or robustness experiment, in a worker: fit (cancellable), then the
    scores, time, iterations and normalised view weights (None for methods without them).
    ``labels`` (int32) is included for the plan's seed-to-seed comparisons."""
    t0 = time.perf_counter()
    fit_cancellable(solver, views, cancelled)
    seconds = time.perf_counter() - t0
    labels = np.asarray(solver.labels_)
    weights = getattr(solver, "view_weights_", None)
    if weights is not None:
        weights = np.ravel(weights).astype(float)
        weights = (weights / weights.sum() if weights.sum() > 0 else weights).tolist()
    return {
        **score_labels(true_labels, labels),
        **label_free_scores(solver, views, labels),
        "n_iter": int(solver.n_iter_),
        "converged": bool(solver.converged_),
        "seconds": seconds,
        "view_weights": weights,
        "labels": labels.astype(np.int32),
    }


# -- the plan both experiments share: one row per task, CSV -----------------------------------
def finite(v: Any) -> bool:
    """A real, finite number (not a bool): what a score column can average."""
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def csv_cell(v: Any) -> str:
    """Blank for missing or non-finite values; dicts (parameters) as JSON with sorted keys,
    lists (view weights) joined by ';'."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return ""
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, dict):
        return json.dumps({k: v[k] for k in sorted(v)})
    if isinstance(v, list):
        return ";".join(f"{w:.4f}" for w in v)
    return str(v)


class BatchPlan:
    """What a sweep and a robustness experiment have in common: a list of tasks (each with
    ``params``), ``rows[i]`` None until task i ends, and the labels of the finished runs.

    Subclasses (dataclasses) set ``rows`` and ``_labels`` and provide ``tasks``,
    ``describe``, ``_key`` (the columns naming a task) and ``columns``. Rows are replaced,
    never mutated, so another thread may read them.
    """

    rows: list[dict[str, Any] | None]
    labels_known: bool
    _labels: dict[int, np.ndarray]

    @property
    def tasks(self) -> Sequence[Any]:
        raise NotImplementedError

    def describe(self, task: Any) -> str:
        raise NotImplementedError

    def describe_index(self, index: int) -> str:
        return self.describe(self.tasks[index])

    def _key(self, task: Any) -> dict[str, Any]:
        raise NotImplementedError

    def _recorded(self, task: Any) -> None:
        """Update scores that compare runs (stability, agreement) after a row arrives."""

    def record(self, index: int, status: str, value: Any) -> dict[str, Any]:
        """Store a task's outcome (from run_batch) as a row; returns the row."""
        task = self.tasks[index]
        row: dict[str, Any] = {**self._key(task), "status": status, "params": task.params}
        if status == "ok":
            value = dict(value)
            self._labels[index] = value.pop("labels")
            row.update(value)
        elif status == "error":
            row["error"] = str(value)
        self.rows[index] = row
        self._recorded(task)
        return self.rows[index]

    def run(
        self,
        fn: Callable[[Any, Any, CancelCheck], Any],
        shared: Any,
        *,
        n_jobs: int,
        backend: str | None,
        on_row: Callable[[int, dict[str, Any]], None] | None,
        cancel: CancelFlag | None,
    ) -> None:
        """``fn(task, shared, cancelled)`` for every task through :func:`run_batch`, each
        outcome recorded, then passed to ``on_row(index, row)``."""

        def record(index: int, status: str, value: Any) -> None:
            row = self.record(index, status, value)
            if on_row is not None:
                on_row(index, row)

        run_batch(
            fn,
            self.tasks,
            shared,
            n_jobs=n_jobs,
            backend=backend,
            on_result=record,
            cancel=cancel,
        )

    def _score_columns(self, scores: Sequence[str]) -> list[str]:
        return [s for s in scores if self.labels_known or s not in LABEL_SCORES]

    def columns(self) -> list[str]:
        raise NotImplementedError

    def _csv_row(self, task: Any, row: dict[str, Any]) -> dict[str, Any]:
        """A row as written (a subclass adds derived columns)."""
        return row

    def csv_text(self) -> str:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        cols = self.columns()
        writer.writerow(cols)
        for task, row in zip(self.tasks, self.rows, strict=True):
            row = self._csv_row(task, row or {**self._key(task), "status": "not run"})
            writer.writerow([csv_cell(row.get(c)) for c in cols])
        return buf.getvalue()

    def write_csv(self, path: str | os.PathLike[str]) -> Path:
        """One row per task (finished or "not run"), written atomically."""
        return atomic_write(path, self.csv_text())
