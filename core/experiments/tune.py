"""Label-free parameter suggestion: a small grid over a method's main parameters, run as a
sweep over a few seeds, each cell scored without labels, the best cell suggested.

Criteria (measured in ``benchmarks/tune_regret.py``, results in docs/benchmarks/tune_regret.md):
``stability`` (mean pairwise ARI of the cell's labels across seeds), ``silhouette`` (of the
labels on the scaled concatenated views, fixed subsample) and ``combined`` (the sum of the
two ranks, tied values sharing a rank). With true labels the result also holds the regret:
the ACC of the best cell by labels minus the ACC of the suggested cell.

Only settings that change the result compete: cells whose labels are identical on every seed
(anchor counts snapped to the same power of 2 on a small file, a depth that changes nothing)
are merged into one, and an axis that never changes the labels is named in the note. A cell
whose seeds disagree (stability below ``MIN_STABILITY``) is suggested only when every cell
does. Preprocessing can be an axis: ``views`` given as {preprocessing: views}; then every
silhouette is measured on the first entry's views, so the settings are compared in one space.
The result's ``note`` says in words why the suggested cell won.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.stats import rankdata

from core.experiments.parallel import CancelFlag
from core.experiments.plan import finite
from core.experiments.sweep import GridAxis, Sweep, format_value, run_sweep
from core.methods import REGISTRY
from core.methods.params import ParamError, Relative

__all__ = [
    "CRITERIA",
    "MIN_STABILITY",
    "PREPROCESS_AXIS",
    "TuneResult",
    "pick",
    "tune",
    "tune_axes",
]

#: what an ``auto`` k is estimated on (``core.data.prepare.estimate_views``), or None
KViews = Callable[[], Sequence[object]] | None

CRITERIA = ("stability", "silhouette", "combined")
#: mean pairwise ARI across seeds below which a cell is suggested only if every cell is below
MIN_STABILITY = 0.3
#: the pseudo-parameter naming the preprocessing of a cell when several are compared
PREPROCESS_AXIS = "preprocess"


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
    :class:`Relative` values multiplied by the automatic value on ``views``, rounded for
    integer parameters, and anchor counts kept at one per cluster at least)."""
    if method not in REGISTRY:
        raise ParamError(f"unknown method {method!r}; choose one of {', '.join(REGISTRY)}")
    grid = REGISTRY[method].tune_grid
    if not grid:
        raise ParamError(f"no suggestion grid for {method!r}: give one with --grid")
    base = base_params or {}
    axes = []
    for name, values in grid.items():
        if name == "n_anchors" and not isinstance(values, Relative):
            values = tuple(v for v in values if v <= max(n_samples // 2, 2)) or values[:1]
        if isinstance(values, Relative):
            auto = _automatic_value(method, name, views, base)
            spec = REGISTRY[method].param_spec[name]  # kept inside the parameter's range
            lo, hi = spec.low if spec.low is not None else -np.inf, spec.high or np.inf
            if name == "n_anchors" and isinstance(base.get("n_clusters"), int):
                lo = max(lo, base["n_clusters"])
            scaled = [float(np.clip(m * auto, lo, hi)) for m in values]
            if spec.kind == "int":
                values = tuple(dict.fromkeys(round(v) for v in scaled))
            else:
                values = tuple(dict.fromkeys(float(f"{v:.4g}") for v in scaled))
        axes.append(GridAxis(name, tuple(values)))
    return axes


@dataclass
class TuneResult:
    """Per grid cell the mean scores; ``best`` the cell picked by ``criterion``; ``note`` why.

    A cell may carry ``same_as``: the settings merged into it because they gave the same
    labels on every seed. ``idle_axes``: parameters that changed no labels on these data."""

    method: str
    criterion: str
    cells: list[dict[str, Any]]
    best: dict[str, Any]
    regret: float | None = None
    best_by_labels: dict[str, Any] | None = None
    picks: dict[str, dict[str, Any]] = field(default_factory=dict)
    note: str = ""
    idle_axes: list[str] = field(default_factory=list)

    def describe(self, cell: Mapping[str, Any]) -> str:
        return describe_params(cell["params"])


def describe_params(params: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={format_value(v)}" for k, v in params.items())


def _canonical(labels: np.ndarray) -> bytes:
    """The partition as bytes, clusters numbered by first appearance (renumbering-free)."""
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first)] = np.arange(first.size)
    return rank[inverse].astype(np.int32).tobytes()


def _cells(
    sweep: Sweep, extra: Mapping[str, Any], reference: Sequence[object] | None
) -> list[dict[str, Any]]:
    """Mean scores over the seeds of each grid cell (failed seeds left out), with the cell's
    labels by seed (``_labels``); silhouettes re-measured on ``reference`` views if given."""
    from core.experiments.scoring import label_free_scores

    out: dict[tuple[int, ...], dict[str, Any]] = {}
    for cell, row in zip(sweep.cells, sweep.rows, strict=True):
        entry = out.setdefault(
            cell.coords,
            {
                "params": {
                    **{a.name: a.values[i] for a, i in zip(sweep.axes, cell.coords, strict=True)},
                    **extra,
                },
                "rows": [],
            },
        )
        if row is not None and row.get("status") == "ok":
            entry["rows"].append(row)
    cells = []
    for coords, entry in out.items():
        rows = entry.pop("rows")
        labels = sweep.labels_of(coords)
        if reference is not None:  # one space for every preprocessing's silhouette
            rows = [
                {
                    **r,
                    "silhouette": label_free_scores(None, reference, labels[r["seed"]])[
                        "silhouette"
                    ],
                }
                for r in rows
                if r["seed"] in labels
            ]
        for score in ("acc", "nmi", "silhouette", "stability", "seconds"):
            vals = [r[score] for r in rows if finite(r.get(score))]
            entry[score] = float(np.mean(vals)) if vals else float("nan")
        entry["ok"] = len(rows)
        entry["_labels"] = labels if len(labels) == len(sweep.seeds) else {}
        cells.append(entry)
    return cells


def _merge_same(cells: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """Cells with identical labels on every seed merged into the first (``same_as``), and
    the parameters that never changed the labels."""
    sig = {
        i: tuple(_canonical(c["_labels"][s]) for s in sorted(c["_labels"]))
        for i, c in enumerate(cells)
        if c["_labels"]
    }
    names = list(cells[0]["params"]) if cells else []
    idle = []
    for name in names:  # idle: cells that differ only in ``name`` always agree
        groups: dict[tuple, set] = {}
        for i, c in enumerate(cells):
            rest = tuple((k, repr(v)) for k, v in c["params"].items() if k != name)
            groups.setdefault(rest, set()).add(sig.get(i, i))
        varied = len({repr(c["params"][name]) for c in cells}) > 1
        if varied and len(sig) == len(cells) and all(len(g) == 1 for g in groups.values()):
            idle.append(name)
    kept: dict[Any, dict[str, Any]] = {}
    for i, c in enumerate(cells):
        key = sig.get(i, ("failed", i))
        if key in kept:
            kept[key].setdefault("same_as", []).append(c["params"])
        else:
            kept[key] = c
    merged = list(kept.values())
    for c in cells:
        c.pop("_labels", None)
    return merged, idle


def _ranks(values: Sequence[float]) -> np.ndarray:
    """Rank 0 = best (highest); equal values share their mean rank; NaN ranks last."""
    v = np.array([x if np.isfinite(x) else -np.inf for x in values], dtype=np.float64)
    return rankdata(-v, method="average") - 1.0


def _pool(cells: Sequence[Mapping[str, Any]]) -> tuple[list[int], list[int]]:
    """The cells a criterion may pick (those that ran; the stable ones when there are any)
    and those left out for their instability."""
    usable = [i for i, c in enumerate(cells) if c["ok"]]
    if not usable:
        raise ParamError("every cell of the suggestion grid failed; see the errors above")
    stable = [
        i
        for i in usable
        if finite(cells[i]["stability"]) and cells[i]["stability"] >= MIN_STABILITY
    ]
    if not stable or len(stable) == len(usable):
        return usable, []
    return stable, [i for i in usable if i not in stable]


def pick(cells: Sequence[Mapping[str, Any]], criterion: str) -> int:
    """Index of the cell a label-free ``criterion`` prefers (ties: the more stable cell,
    then the earlier one)."""
    if criterion not in CRITERIA:
        raise ParamError(f"unknown criterion {criterion!r}; choose one of {', '.join(CRITERIA)}")
    pool, _ = _pool(cells)
    sub = [cells[i] for i in pool]
    if criterion == "combined":
        score = -(_ranks([c["stability"] for c in sub]) + _ranks([c["silhouette"] for c in sub]))
    else:
        score = np.array([c[criterion] if finite(c[criterion]) else -np.inf for c in sub])
    stability = [c["stability"] if finite(c["stability"]) else -np.inf for c in sub]
    # a tie goes to the cell whose seeds agree more, then to the earlier cell
    best = max(range(len(sub)), key=lambda j: (score[j], stability[j], -j))
    return pool[best]


def _ordinal(r: float) -> str:
    r = round(r) + 1
    return f"{r}{'th' if 10 <= r % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(r % 10, 'th')}"


def explain_pick(
    cells: Sequence[Mapping[str, Any]], index: int, criterion: str, idle: Sequence[str]
) -> str:
    """Why ``cells[index]`` was suggested, in words (the table's note)."""
    pool, unstable = _pool(cells)
    sub = [cells[i] for i in pool]
    j = pool.index(index)
    cell = cells[index]
    parts = []
    for score in ("stability", "silhouette"):
        if finite(cell[score]):
            rank = _ranks([c[score] for c in sub])[j]
            parts.append(f"{score} {cell[score]:.3f} ({_ordinal(rank)} of {len(sub)})")
    how = {
        "combined": "the best sum of its stability and silhouette ranks",
        "stability": "the labels most alike across seeds",
        "silhouette": "the best silhouette",
    }[criterion]
    lines = [f"suggested for {how}: " + ", ".join(parts)]
    if unstable:
        lines.append(
            f"{len(unstable)} cell(s) not suggested: their seeds disagree "
            f"(stability < {MIN_STABILITY}): "
            + "; ".join(describe_params(cells[i]["params"]) for i in unstable)
        )
    merged = [c for c in cells if c.get("same_as")]
    for c in merged:
        same = "; ".join(describe_params(p) for p in c["same_as"])
        lines.append(f"same labels as {describe_params(c['params'])}, merged: {same}")
    for name in idle:
        lines.append(f"{name} did not change the labels on these data")
    return "\n".join(lines)


def tune(
    method: str,
    views: Sequence[object] | Mapping[str, Sequence[object]],
    base_params: Mapping[str, Any],
    *,
    axes: Sequence[GridAxis] | None = None,
    seeds: Sequence[int] = (0, 1),
    criterion: str = "combined",
    true_labels: np.ndarray | None = None,
    n_jobs: int = 1,
    on_row: Callable[[int, dict[str, Any]], None] | None = None,
    cancel: CancelFlag | None = None,
    k_views: KViews | Mapping[str, KViews] = None,
) -> TuneResult:
    """Run the grid of ``method`` over ``seeds`` on preprocessed ``views``; pick a cell
    without labels (``criterion``); with ``true_labels`` also the regret in ACC.

    ``views`` as {preprocessing name: views} adds preprocessing as an axis (the grid runs
    on each; silhouettes are measured on the first entry's views). ``k_views``: what an
    ``auto`` number of clusters is estimated on (``run_sweep``), per entry if a mapping."""
    if criterion not in CRITERIA:
        raise ParamError(f"unknown criterion {criterion!r}; choose one of {', '.join(CRITERIA)}")
    if len(seeds) < 2 and criterion != "silhouette":
        raise ParamError(f"the {criterion!r} criterion compares seeds: give two or more seeds")
    variants = dict(views) if isinstance(views, Mapping) else {"": views}
    reference = next(iter(variants.values()))
    several = len(variants) > 1 or isinstance(views, Mapping)
    axes = list(axes) if axes else tune_axes(method, reference[0].shape[0], reference, base_params)
    fixed = {k: v for k, v in base_params.items() if k not in {a.name for a in axes}}
    fixed.pop("random_state", None)
    cells: list[dict[str, Any]] = []
    offset = 0
    for name, prepared in variants.items():
        sweep = Sweep(method, axes, list(seeds), fixed)

        def row_seen(
            index: int, row: dict[str, Any], offset: int = offset, name: str = name
        ) -> None:
            if on_row is not None:
                on_row(offset + index, {**row, PREPROCESS_AXIS: name} if several else row)

        kv = k_views.get(name) if isinstance(k_views, Mapping) else k_views
        run_sweep(
            sweep, prepared, true_labels, n_jobs=n_jobs, on_row=row_seen, cancel=cancel, k_views=kv
        )
        offset += len(sweep.cells)
        extra = {PREPROCESS_AXIS: name} if several else {}
        cells += _cells(sweep, extra, reference if several and prepared is not reference else None)
    cells, idle = _merge_same(cells)
    picks = {c: cells[pick(cells, c)] for c in CRITERIA if len(seeds) > 1 or c == "silhouette"}
    index = pick(cells, criterion)
    best = cells[index]
    note = explain_pick(cells, index, criterion, idle)
    result = TuneResult(method, criterion, cells, best, picks=picks, note=note, idle_axes=idle)
    if true_labels is not None:
        by_acc = max((c for c in cells if finite(c["acc"])), key=lambda c: c["acc"], default=None)
        if by_acc is not None and finite(best["acc"]):
            result.best_by_labels = by_acc
            result.regret = float(by_acc["acc"] - best["acc"])
    return result
