"""Label-free parameter suggestion: a small grid over a method's main parameters, run as a
sweep over a few seeds, each cell scored without labels, the best cell suggested.

Criteria (measured in ``benchmarks/tune_regret.py``, results in docs/benchmarks/tune_regret.md):
``stability`` (mean pairwise ARI of the cell's labels across seeds), ``silhouette`` (of the
labels on the scaled concatenated views, fixed subsample) and ``combined`` (the mean of the
two ranks). With true labels the result also holds the regret: the ACC of the best cell by
labels minus the ACC of the suggested cell.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.experiments.parallel import CancelFlag
from core.experiments.plan import finite
from core.experiments.sweep import GridAxis, Sweep, format_value, run_sweep
from core.methods import REGISTRY
from core.methods.params import ParamError, Relative

__all__ = ["CRITERIA", "TuneResult", "pick", "tune", "tune_axes"]

CRITERIA = ("stability", "silhouette", "combined")


def _automatic_value(
    method: str, name: str, views: Sequence[object] | None, base: Mapping[str, Any]
) -> float:
    """The value ``name`` takes when left automatic on ``views`` (resolved as a fit would)."""
    if views is None:
        raise ParamError(f"the {method} grid of {name!r} is relative to its automatic value")
    params = {k: v for k, v in base.items() if k != name}
    if not isinstance(params.get("n_clusters"), int):  # "auto": k is estimated inside fit
        params["n_clusters"] = 2  # the relative axes (ALPC's λ1) do not depend on k
    solver = REGISTRY[method].from_params(params)
    return float(solver._resolve_params(list(views))[name])


def tune_axes(
    method: str,
    n_samples: int,
    views: Sequence[object] | None = None,
    base_params: Mapping[str, Any] | None = None,
) -> list[GridAxis]:
    """The default grid of ``method`` (anchor counts above n/2 dropped: they would repeat;
    :class:`Relative` values multiplied by the automatic value on ``views``)."""
    if method not in REGISTRY:
        raise ParamError(f"unknown method {method!r}; choose one of {', '.join(REGISTRY)}")
    grid = REGISTRY[method].tune_grid
    if not grid:
        raise ParamError(f"no suggestion grid for {method!r}: give one with --grid")
    axes = []
    for name, values in grid.items():
        if name == "n_anchors":
            values = tuple(v for v in values if v <= max(n_samples // 2, 2)) or values[:1]
        if isinstance(values, Relative):
            auto = _automatic_value(method, name, views, base_params or {})
            spec = REGISTRY[method].param_spec[name]  # kept inside the parameter's range
            lo, hi = spec.low if spec.low is not None else -np.inf, spec.high or np.inf
            values = tuple(dict.fromkeys(float(f"{np.clip(m * auto, lo, hi):.4g}") for m in values))
        axes.append(GridAxis(name, tuple(values)))
    return axes


@dataclass
class TuneResult:
    """Per grid cell the mean scores; ``best`` the cell picked by ``criterion``."""

    method: str
    criterion: str
    cells: list[dict[str, Any]]
    best: dict[str, Any]
    regret: float | None = None
    best_by_labels: dict[str, Any] | None = None
    picks: dict[str, dict[str, Any]] = field(default_factory=dict)

    def describe(self, cell: Mapping[str, Any]) -> str:
        return " ".join(f"{k}={format_value(v)}" for k, v in cell["params"].items())


def _cells(sweep: Sweep) -> list[dict[str, Any]]:
    """Mean scores over the seeds of each grid cell (failed seeds left out)."""
    out: dict[tuple[int, ...], dict[str, Any]] = {}
    for cell, row in zip(sweep.cells, sweep.rows, strict=True):
        entry = out.setdefault(
            cell.coords,
            {
                "params": {
                    a.name: a.values[i] for a, i in zip(sweep.axes, cell.coords, strict=True)
                },
                "rows": [],
            },
        )
        if row is not None and row.get("status") == "ok":
            entry["rows"].append(row)
    cells = []
    for entry in out.values():
        rows = entry.pop("rows")
        for score in ("acc", "nmi", "silhouette", "stability", "seconds"):
            vals = [r[score] for r in rows if finite(r.get(score))]
            entry[score] = float(np.mean(vals)) if vals else float("nan")
        entry["ok"] = len(rows)
        cells.append(entry)
    return cells


def _ranks(values: Sequence[float]) -> np.ndarray:
    """Rank 0 = best (highest); NaN ranks last."""
    v = np.array([x if np.isfinite(x) else -np.inf for x in values])
    order = np.argsort(-v, kind="stable")
    ranks = np.empty(len(v))
    ranks[order] = np.arange(len(v))
    return ranks


def pick(cells: Sequence[Mapping[str, Any]], criterion: str) -> int:
    """Index of the cell a label-free ``criterion`` prefers (ties: the earlier cell)."""
    if criterion not in CRITERIA:
        raise ParamError(f"unknown criterion {criterion!r}; choose one of {', '.join(CRITERIA)}")
    usable = [i for i, c in enumerate(cells) if c["ok"]]
    if not usable:
        raise ParamError("every cell of the suggestion grid failed; see the errors above")
    if criterion == "combined":
        score = -(
            _ranks([c["stability"] for c in cells]) + _ranks([c["silhouette"] for c in cells])
        )
    else:
        score = np.array([c[criterion] if finite(c[criterion]) else -np.inf for c in cells])
    return max(usable, key=lambda i: (score[i], -i))


def tune(
    method: str,
    views: Sequence[object],
    base_params: Mapping[str, Any],
    *,
    axes: Sequence[GridAxis] | None = None,
    seeds: Sequence[int] = (0, 1),
    criterion: str = "combined",
    true_labels: np.ndarray | None = None,
    n_jobs: int = 1,
    on_row: Callable[[int, dict[str, Any]], None] | None = None,
    cancel: CancelFlag | None = None,
) -> TuneResult:
    """Run the grid of ``method`` over ``seeds`` on preprocessed ``views``; pick a cell
    without labels (``criterion``); with ``true_labels`` also the regret in ACC."""
    if criterion not in CRITERIA:
        raise ParamError(f"unknown criterion {criterion!r}; choose one of {', '.join(CRITERIA)}")
    if len(seeds) < 2 and criterion != "silhouette":
        raise ParamError(f"the {criterion!r} criterion compares seeds: give two or more seeds")
    axes = list(axes) if axes else tune_axes(method, views[0].shape[0], views, base_params)
    fixed = {k: v for k, v in base_params.items() if k not in {a.name for a in axes}}
    fixed.pop("random_state", None)
    sweep = Sweep(method, axes, list(seeds), fixed)
    run_sweep(sweep, views, true_labels, n_jobs=n_jobs, on_row=on_row, cancel=cancel)
    cells = _cells(sweep)
    picks = {c: cells[pick(cells, c)] for c in CRITERIA if len(seeds) > 1 or c == "silhouette"}
    best = cells[pick(cells, criterion)]
    result = TuneResult(method, criterion, cells, best, picks=picks)
    if true_labels is not None:
        by_acc = max((c for c in cells if finite(c["acc"])), key=lambda c: c["acc"], default=None)
        if by_acc is not None and finite(best["acc"]):
            result.best_by_labels = by_acc
            result.regret = float(by_acc["acc"] - best["acc"])
    return result
