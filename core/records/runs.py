"""Run records: what a finished (or stopped) run produced, and atomic exports.

``RunResult.from_fit`` is the one place a finished run's record is built, by ``mvc run`` and
the app alike: the fitted solver, its parameters, seed, package versions, per-stage timings,
metrics (when reference labels are known), the sample ids, the dataset description
(:func:`dataset_record`), each view's fitted transform and what ``predict`` needs.
``write_labels_csv`` and ``write_run`` write through a temporary file and a rename, so no
file is half-written.
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
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from core.data.atomic import atomic_write
from core.data.dataset import MultiViewDataset
from core.data.preprocessing import ViewTransform
from core.numerics.metrics import all_metrics
from core.records.prediction_file import PredictionModel, write_prediction

__all__ = [
    "RunResult", "dataset_record", "labels_csv_text", "package_versions", "truth_names",
    "write_labels_csv", "write_run", "write_run_json",
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
    #: each used view's fitted preprocessing (``preprocessing`` holds their labels)
    transforms: list[ViewTransform] = field(default_factory=list, repr=False)
    #: what assigning new samples needs (None: a stopped run, or one that keeps no reference)
    prediction: PredictionModel | None = field(default=None, repr=False)

    @classmethod
    def from_fit(
        cls,
        solver: Any,
        ds: MultiViewDataset,
        *,
        view_indices: Sequence[int] | None = None,
        transforms: Sequence[ViewTransform] = (),
        total_seconds: float | None = None,
    ) -> RunResult:
        """The record of a finished fit of ``solver`` on the views ``view_indices`` (default
        all) of ``ds``, preprocessed by ``transforms``: scored against the data's reference
        labels when it has them, with its ids, class names and prediction model."""
        idx = list(range(ds.n_views)) if view_indices is None else [int(i) for i in view_indices]
        result = cls.from_solver(
            solver,
            true_labels=ds.labels,
            view_names=[ds.view_names[i] for i in idx],
            dataset=dataset_record(ds, idx),
            preprocessing=[t.label for t in transforms],
            total_seconds=total_seconds,
            sample_ids=None if ds.sample_ids is None else ds.ids.tolist(),
            class_names=ds.class_names,
        )
        result.transforms = list(transforms)
        if transforms and getattr(solver, "assigner_", None) is not None:
            raw = [ds.views[i] for i in idx]
            result.prediction = PredictionModel.from_solver(solver, raw, transforms, idx)
        return result

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
        # the transforms and the prediction model are arrays: beside the record (write_run),
        # not deep-copied into it first
        skip = ("transforms", "prediction")
        record = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in skip}
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


def write_run(path: str | os.PathLike[str], result: RunResult) -> Path:
    """The JSON record at ``path`` and, when the run can assign new samples, its prediction
    model beside it (``run.predict.npz``: ``mvc predict``)."""
    if result.prediction is not None:
        write_prediction(path, result.prediction)
    return write_run_json(path, result)


def dataset_record(ds: MultiViewDataset, view_indices: Sequence[int] | None = None) -> dict:
    """What a run record says of its data: name, source, sample count, the views used with
    their dimensions, and the reference classes."""
    idx = list(range(ds.n_views)) if view_indices is None else [int(i) for i in view_indices]
    return {
        "name": ds.name,
        "source": ds.source,
        "n_samples": ds.n_samples,
        "views": [ds.view_names[i] for i in idx],
        "view_indices": idx,
        "dims": [int(ds.views[i].shape[1]) for i in idx],
        "n_classes": ds.n_classes,
        "labels_known": ds.labels is not None,
    }
