"""Exports: labels CSV, run record JSON, selection CSV, plot images. All writes are atomic."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from core.data.atomic import atomic_write
from core.records.runs import RunResult, truth_names, write_labels_csv, write_run_json

__all__ = ["export_labels", "export_run", "export_selection"]


def export_labels(path: str, result: RunResult) -> Path:
    """CSV: sample_id, cluster[, truth] (the data's ids, else 1..n; class names)."""
    return write_labels_csv(path, result.labels, result.true_labels, result.ids, result.class_names)


def export_run(path: str, result: RunResult) -> Path:
    """The run record (parameters, seed, versions, history, metrics) as JSON."""
    return write_run_json(path, result)


def export_selection(
    path: str,
    indices: np.ndarray,
    labels: np.ndarray | None,
    truth: np.ndarray | None,
    ids: Sequence[str] | None = None,
    class_names: Sequence[str] = (),
) -> Path:
    """CSV of the selected samples: sample_id[, cluster][, truth]."""
    rows = np.asarray(indices, dtype=np.int64)
    ids = [str(i) for i in range(1, int(rows.max(initial=0)) + 2)] if ids is None else list(ids)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    header = ["sample_id"] + (["cluster"] if labels is not None else [])
    header += ["truth"] if truth is not None else []
    writer.writerow(header)
    names = None if truth is None else truth_names(truth, class_names)
    for i in rows.tolist():
        row = [ids[i]] + ([int(labels[i])] if labels is not None else [])
        row += [names[i]] if names is not None else []
        writer.writerow(row)
    return atomic_write(path, buf.getvalue())
