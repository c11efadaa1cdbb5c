"""The plan a sweep and a robustness experiment share: one row per task, filled as jobs end,
written as CSV."""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from core.data.atomic import atomic_write
from core.experiments.parallel import CancelCheck, CancelFlag, run_batch
from core.experiments.scoring import LABEL_SCORES

__all__ = ["BatchPlan", "csv_cell", "finite"]


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
