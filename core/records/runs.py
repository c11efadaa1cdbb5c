"""Run records: what a finished (or stopped) run produced, and atomic exports.

``RunResult.from_solver`` collects the fitted solver, its parameters, seed, package versions,
per-stage timings and metrics (when true labels are known). ``write_labels_csv`` and
``write_run_json`` write through a temporary file and a rename, so no file is half-written.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import io
import json
import os
import platform
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from core.data.atomic import atomic_write
from core.numerics.metrics import all_metrics

__all__ = [
    "RunResult", "labels_csv_text", "package_versions", "truth_names", "write_labels_csv",
    "write_run_json",
]  # fmt: skip

_PACKAGES = ("mvc-studio", "numpy", "scipy", "numba", "scikit-learn", "h5py", "openTSNE")


def package_versions() -> dict[str, str]:
    """Versions of Python and the numerical stack (cached: the metadata look-ups take tens
    of milliseconds, and the GUI builds a run record on its event loop)."""
    return dict(_package_versions())


@functools.lru_cache(maxsize=1)
def _package_versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in _PACKAGES:
        with contextlib.suppress(metadata.PackageNotFoundError):
            out[name] = metadata.version(name)
    return out


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, float) and not np.isfinite(x):
        return None
    return x


@dataclass
class RunResult:
    """Everything a run produced that a user may export or compare."""

    method: str
    params: dict[str, Any]
    labels: np.ndarray
    true_labels: np.ndarray | None = None
    view_names: list[str] = field(default_factory=list)
    view_weights: list[float] | None = None
    objective_history: list[float] = field(default_factory=list)
    history: dict[str, list[float]] = field(default_factory=dict)
    n_iter: int = 0
    converged: bool = False
    stopped_early: bool = False
    metrics: dict[str, float] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    dataset: dict[str, Any] = field(default_factory=dict)
    preprocessing: list[str] = field(default_factory=list)
    #: the samples' ids (the data's own: id column, obs_names), None when the data has none
    sample_ids: list[str] | None = None
    #: names of the reference classes (``true_labels`` are codes into it)
    class_names: list[str] = field(default_factory=list)
    #: parameter values used in the fit, automatic ones resolved from the data
    resolved_params: dict[str, Any] = field(default_factory=dict)
    #: with n_clusters="auto": the estimate, runner-up and eigenvalue curve (else None)
    n_clusters_estimate: dict[str, Any] | None = None
    versions: dict[str, str] = field(default_factory=package_versions)
    created: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))

    @classmethod
    def from_solver(
        cls,
        solver: Any,
        *,
        true_labels: np.ndarray | None = None,
        view_names: Sequence[str] = (),
        dataset: dict[str, Any] | None = None,
        preprocessing: Sequence[str] = (),
        total_seconds: float | None = None,
        sample_ids: Sequence[str] | None = None,
        class_names: Sequence[str] = (),
    ) -> RunResult:
        """Collect a fitted solver's results (metrics computed when labels are known)."""
        labels = np.asarray(solver.labels_, dtype=np.int64)
        weights = getattr(solver, "view_weights_", None)
        timings = dict(getattr(solver, "stage_times_", {}))
        if total_seconds is not None:
            timings["total"] = float(total_seconds)
        return cls(
            method=solver.name,
            params=solver.get_params(),
            labels=labels,
            true_labels=None if true_labels is None else np.asarray(true_labels),
            view_names=list(view_names),
            view_weights=None if weights is None else [float(w) for w in np.ravel(weights)],
            objective_history=list(solver.objective_history_),
            history=dict(getattr(solver, "history_", {})),
            n_iter=int(solver.n_iter_),
            converged=bool(solver.converged_),
            metrics={} if true_labels is None else all_metrics(true_labels, labels),
            timings=timings,
            dataset=dict(dataset or {}),
            preprocessing=list(preprocessing),
            sample_ids=None if sample_ids is None else [str(s) for s in sample_ids],
            class_names=list(class_names),
            resolved_params=dict(getattr(solver, "resolved_params_", {})),
            n_clusters_estimate=getattr(solver, "n_clusters_estimate_", None),
        )

    @property
    def ids(self) -> list[str]:
        """The sample ids: the data's own, else "1".."n" (one-based row numbers)."""
        if self.sample_ids is not None:
            return list(self.sample_ids)
        return [str(i) for i in range(1, self.labels.size + 1)]

    def to_json(self) -> str:
        record = asdict(self)
        record["labels"] = None  # the labels live in the CSV; keep the record small
        record["n_samples"] = int(self.labels.size)
        record["format"] = "mvc-studio-run/1"
        return json.dumps(_jsonable(record), indent=2)


def truth_names(true_labels: np.ndarray, class_names: Sequence[str] = ()) -> list[str]:
    """Reference labels as the data names them (codes when there are no class names)."""
    codes = np.asarray(true_labels).astype(np.int64)
    if class_names and codes.size and codes.max() < len(class_names):
        return np.asarray(list(class_names), dtype=object)[codes].tolist()
    return [str(c) for c in codes.tolist()]


def labels_csv_text(
    labels: np.ndarray,
    true_labels: np.ndarray | None = None,
    ids: Sequence[str] | None = None,
    class_names: Sequence[str] = (),
    rows: np.ndarray | None = None,
) -> str:
    """``sample_id,cluster[,truth]`` lines; ``rows`` picks samples (a selection), in order."""
    labels = np.asarray(labels)
    n = labels.size
    rows = np.arange(n) if rows is None else np.asarray(rows, dtype=np.int64)
    ids = [str(i) for i in range(1, n + 1)] if ids is None else list(ids)
    columns = [[ids[i] for i in rows.tolist()], labels[rows].tolist()]
    header = ["sample_id", "cluster"]
    if true_labels is not None:
        names = truth_names(true_labels, class_names)
        columns.append([names[i] for i in rows.tolist()])
        header.append("truth")
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(zip(*columns, strict=True))
    return buf.getvalue()


def write_labels_csv(
    path: str | os.PathLike[str],
    labels: np.ndarray,
    true_labels: np.ndarray | None = None,
    ids: Sequence[str] | None = None,
    class_names: Sequence[str] = (),
) -> Path:
    """CSV with columns sample_id, cluster[, truth]; written atomically. ``ids`` default to
    the one-based row numbers; ``truth`` is the class name when ``class_names`` are given."""
    return atomic_write(path, labels_csv_text(labels, true_labels, ids, class_names))


def write_run_json(path: str | os.PathLike[str], result: RunResult) -> Path:
    return atomic_write(path, result.to_json())
