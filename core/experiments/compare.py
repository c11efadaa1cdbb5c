"""Comparing runs (Qt-free): agreement between two labellings and the runs table.

Two runs of the same data are compared through their labellings only: the adjusted Rand
index and NMI between them (permutation-invariant, so cluster numbers do not matter), and
their contingency table with the columns of the second run matched to the rows of the first
(Hungarian assignment), so agreeing clusters sit on the diagonal. The runs table turns run
records (:class:`core.records.runs.RunResult`) into rows: method, the parameters that differ from
the method's defaults, seed, time, iterations, ACC/NMI/ARI against the truth and status.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from core.numerics.metrics import adjusted_rand, confusion_matrix, nmi

__all__ = [
    "TABLE_COLUMNS",
    "Contingency",
    "agreement",
    "contingency",
    "format_params",
    "format_value",
    "ordered_params",
    "param_changes",
    "param_table",
    "run_row",
    "table_csv",
]

#: Columns of the runs table, in order (also the CSV header).
TABLE_COLUMNS = (
    "run", "method", "parameters", "seed", "seconds", "iterations",
    "acc", "nmi", "ari", "status", "dataset", "params_json",
)  # fmt: skip


def _check_pair(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(a).ravel(), np.asarray(b).ravel()
    if a.size != b.size:
        raise ValueError(
            f"the two labellings have {a.size} and {b.size} samples: runs on different data "
            "cannot be compared"
        )
    if a.size == 0:
        raise ValueError("the labellings are empty")
    return a, b


@dataclass(frozen=True)
class Contingency:
    """Counts of samples in cluster ``row_labels[i]`` of A and ``col_labels[j]`` of B.

    Columns are in matched order: column ``j < n_matched`` is the cluster of B assigned to
    row ``j`` (the diagonal holds the agreeing samples); unmatched clusters of B follow.
    """

    counts: np.ndarray
    row_labels: np.ndarray
    col_labels: np.ndarray
    n_matched: int

    @property
    def matched_fraction(self) -> float:
        """Share of samples on the matched diagonal (ACC of B against A)."""
        k = self.n_matched
        total = self.counts.sum()
        return float(np.trace(self.counts[:k, :k]) / total) if total else 0.0


def contingency(a: np.ndarray, b: np.ndarray) -> Contingency:
    """Contingency table of labelling ``a`` (rows) against ``b`` (columns, matched order)."""
    a, b = _check_pair(a, b)
    counts = confusion_matrix(a, b)
    rows, cols = linear_sum_assignment(-counts)
    order = rows.argsort()  # rows come sorted, but do not rely on it
    rows, cols = rows[order], cols[order]
    rest = np.setdiff1d(np.arange(counts.shape[1]), cols)
    # rows of A without a partner (A has more clusters) keep their place; the columns
    # matched to the first len(rows) rows go first, in row order
    col_order = np.concatenate([cols, rest]).astype(np.int64)
    row_order = np.concatenate([rows, np.setdiff1d(np.arange(counts.shape[0]), rows)])
    return Contingency(
        counts=counts[np.ix_(row_order, col_order)],
        row_labels=np.unique(a)[row_order],
        col_labels=np.unique(b)[col_order],
        n_matched=int(rows.size),
    )


def agreement(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """ARI, NMI (arithmetic mean, as sklearn) and the matched fraction between two
    labellings of the same samples. Symmetric; 1.0 for identical partitions."""
    a, b = _check_pair(a, b)
    return {
        "ari": adjusted_rand(a, b),
        "nmi": nmi(a, b),
        "matched": contingency(a, b).matched_fraction,
    }


# -- the runs table ----------------------------------------------------------------------------
def format_value(value: Any) -> str:
    """Short display of a parameter value (4 significant digits for floats)."""
    if value is None:
        return "auto"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _method_defaults(method: str) -> dict[str, Any] | None:
    from core.methods import REGISTRY  # the registry imports every solver: only when needed

    cls = REGISTRY.get(method)
    return None if cls is None else cls.param_spec.defaults()


def ordered_params(method: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` in the order of the method's parameter table (``get_params()`` sorts the
    names alphabetically); names the table does not know come last."""
    spec = _method_defaults(method) or {}
    return {k: params[k] for k in spec if k in params} | {
        k: v for k, v in params.items() if k not in spec
    }


def param_changes(
    method: str, params: Mapping[str, Any], n_classes: int | None = None
) -> dict[str, Any]:
    """Parameters that differ from the method's defaults, seed excluded (it has its own
    column). ``n_classes`` is the default number of clusters when the data has labels (the
    GUI's default); for an unknown method every parameter is listed."""
    defaults = _method_defaults(method)
    if defaults is not None and n_classes:
        defaults["n_clusters"] = max(2, int(n_classes))
    out = {}
    for name, value in ordered_params(method, params).items():
        if name == "random_state":
            continue
        if defaults is None or name not in defaults or not _same(defaults[name], value):
            out[name] = value
    return out


def _same(x: Any, y: Any) -> bool:
    if isinstance(x, float) or isinstance(y, float):
        try:
            return math.isclose(float(x), float(y), rel_tol=1e-12, abs_tol=0.0)
        except (TypeError, ValueError):
            return False
    return x == y


def format_params(changes: Mapping[str, Any]) -> str:
    """``"n_anchors=64, lam=0.1"``; ``"defaults"`` when nothing changed."""
    if not changes:
        return "defaults"
    return ", ".join(f"{k}={format_value(v)}" for k, v in changes.items())


def run_row(
    number: int,
    result: Any,
    *,
    seconds: float | None = None,
    n_classes: int | None = None,
) -> dict[str, Any]:
    """One row of the runs table from a :class:`core.records.runs.RunResult`.

    ``seconds`` overrides the recorded total time (a stopped run has none); metrics are
    None when the data has no labels.
    """
    if seconds is None:
        seconds = result.timings.get("total")
    metrics = result.metrics or {}
    return {
        "run": int(number),
        "method": result.method,
        "parameters": format_params(param_changes(result.method, result.params, n_classes)),
        "seed": result.params.get("random_state"),
        "seconds": None if seconds is None else float(seconds),
        "iterations": int(result.n_iter),
        "acc": metrics.get("acc"),
        "nmi": metrics.get("nmi"),
        "ari": metrics.get("ari"),
        "status": "stopped" if result.stopped_early else "finished",
        "dataset": result.dataset.get("name", ""),
        "params_json": json.dumps(result.params, sort_keys=True, default=str),
    }


def _csv_cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float):
        return "" if not math.isfinite(value) else f"{value:.6g}"
    return value


def table_csv(rows: Iterable[Mapping[str, Any]], columns: Sequence[str] = TABLE_COLUMNS) -> str:
    """The runs table as CSV text (header first; empty cells for missing values)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_csv_cell(row.get(c)) for c in columns])
    return buf.getvalue()


def param_table(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[tuple[str, str, str, bool]]:
    """Parameters of two runs side by side: (name, value in A, value in B, differs).

    Names in A's order, then names only B has; a missing parameter shows as an empty cell.
    """
    names = list(a) + [k for k in b if k not in a]
    out = []
    for name in names:
        in_a, in_b = name in a, name in b
        va = format_value(a[name]) if in_a else ""
        vb = format_value(b[name]) if in_b else ""
        differs = in_a != in_b or (in_a and not _same(a[name], b[name]))
        out.append((name, va, vb, differs))
    return out
