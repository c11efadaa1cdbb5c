"""Exports: labels CSV, run record JSON, selection CSV, plot images. All writes are atomic."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np

from core.data.atomic import atomic_write
from core.records.runs import RunResult, write_labels_csv, write_run_json

__all__ = ["export_labels", "export_run", "export_selection"]


def export_labels(path: str, result: RunResult) -> Path:
    """CSV: sample index, cluster, true label when known."""
    return write_labels_csv(path, result.labels, result.true_labels)


def export_run(path: str, result: RunResult) -> Path:
    """The run record (parameters, seed, versions, history, metrics) as JSON."""
    return write_run_json(path, result)


def export_selection(
    path: str, indices: np.ndarray, labels: np.ndarray | None, truth: np.ndarray | None
) -> Path:
    """CSV of the selected samples: sample[, cluster][, true_label]."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    header = ["sample"] + (["cluster"] if labels is not None else [])
    header += ["true_label"] if truth is not None else []
    writer.writerow(header)
    for i in np.asarray(indices, dtype=np.int64).tolist():
        row = [i] + ([int(labels[i])] if labels is not None else [])
        row += [int(truth[i])] if truth is not None else []
        writer.writerow(row)
    return atomic_write(path, buf.getvalue())
