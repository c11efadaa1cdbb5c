"""Parameter sweeps: one method over a grid of parameter values (and seeds), in parallel.

``parse_grid("n_anchors=16,32,64", "fmdc")`` reads one grid axis with the method's ParamSpec
(the values are parsed and range-checked like ``mvc run`` flags; ``lo:hi:count`` spans a range,
geometric for log-scale parameters). :class:`Sweep` is the plan (one cell per combination of
axis values and seed) and collects the rows as they arrive; ``run_sweep`` runs the cells through
:func:`core.experiments.parallel.run_batch`. A row holds the cell's parameters, the scores (ACC
/ NMI / ARI / purity with true labels; always the final objective and the silhouette; the
stability across seeds when there are several), time, iterations and the error text of a failed
cell.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.experiments.parallel import CancelCheck, CancelFlag
from core.experiments.plan import BatchPlan, finite
from core.experiments.scoring import LABEL_SCORES, fit_and_score
from core.methods import REGISTRY
from core.methods.params import Param, ParamError
from core.numerics.metrics import adjusted_rand

__all__ = [
    "LABEL_SCORES",
    "SCORES",
    "GridAxis",
    "Sweep",
    "default_values",
    "format_value",
    "parse_grid",
    "parse_seeds",
    "parse_values",
    "run_sweep",
    "sweepable",
]

SCORES = (*LABEL_SCORES, "objective", "silhouette", "stability")


@dataclass(frozen=True)
class GridAxis:
    name: str
    values: tuple[Any, ...]


def format_value(value: Any) -> str:
    if value is None:
        return "auto"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def _spec_list(method: str) -> str:
    return f"{method} parameters: " + ", ".join(REGISTRY[method].param_spec.names())


def _param(method: str, name: str) -> Param:
    if method not in REGISTRY:
        raise ParamError(f"unknown method {method!r}; choose one of {', '.join(REGISTRY)}")
    key = name.strip().replace("-", "_")
    spec = REGISTRY[method].param_spec
    if key not in spec:
        raise ParamError(f"--grid: unknown parameter {name!r} for {method}. {_spec_list(method)}")
    if key == "random_state":
        raise ParamError("--grid random_state: give seeds with --seeds (e.g. --seeds 0,1,2)")
    return spec[key]


def _span(p: Param, token: str) -> list[Any]:
    """``lo:hi:count``: evenly spaced (geometric for log-scale parameters)."""
    lo, hi, count = (t.strip() for t in token.split(":"))
    a, b, k = float(lo), float(hi), int(count)
    if k < 2:
        raise ValueError("a range needs at least 2 values")
    if p.log and a > 0 and b > 0:
        vals = np.geomspace(a, b, k)
    else:
        vals = np.linspace(a, b, k)
    if p.kind in ("int", "seed"):
        return list(dict.fromkeys(int(np.rint(v)) for v in vals))
    return [float(f"{v:.6g}") for v in vals]


def parse_values(method: str, name: str, text: str) -> GridAxis:
    """Parse ``v1,v2,...`` (or ``lo:hi:count``) for one parameter; ParamError names the
    parameter, its range and the method's parameter list."""
    p = _param(method, name)
    owner = REGISTRY[method].__name__
    tokens = [t.strip() for t in text.replace(";", ",").split(",") if t.strip()]
    if not tokens:
        raise ParamError(f"--grid {p.name}: no values given ({p.name} is {p.range_text()})")
    values: list[Any] = []
    for token in tokens:
        try:
            raw = _span(p, token) if ":" in token else [p.parse(token)]
        except (ValueError, ParamError) as exc:
            raise ParamError(
                f"--grid {p.name}: cannot read {token!r} ({exc}); {p.name} must be "
                f"{p.range_text()}. {_spec_list(method)}"
            ) from None
        for value in raw:
            try:
                values.append(p.check(value, owner))
            except ParamError as exc:
                raise ParamError(f"--grid {p.name}: {exc} {_spec_list(method)}") from None
    return GridAxis(p.name, tuple(dict.fromkeys(values)))


def parse_grid(text: str, method: str) -> GridAxis:
    """One ``--grid name=v1,v2,...`` option."""
    name, sep, values = text.partition("=")
    if not sep or not name.strip():
        raise ParamError(f"--grid takes name=v1,v2,...; got {text!r}. {_spec_list(method)}")
    return parse_values(method, name, values)


def parse_seeds(text: str) -> list[int]:
    """``0,1,2`` or a range ``0-4``."""
    seeds: list[int] = []
    for token in (t.strip() for t in text.split(",")):
        if not token:
            continue
        try:
            if "-" in token[1:]:
                lo, hi = token.split("-", 1)
                seeds.extend(range(int(lo), int(hi) + 1))
            else:
                seeds.append(int(token))
        except ValueError:
            raise ParamError(f"--seeds takes integers like 0,1,2 or 0-4; got {token!r}") from None
    if not seeds or min(seeds) < 0:
        raise ParamError(f"--seeds needs one or more non-negative integers; got {text!r}")
    return list(dict.fromkeys(seeds))


def sweepable(method: str) -> list[Param]:
    """Parameters a sweep can vary (everything but the seed)."""
    return [p for p in REGISTRY[method].param_spec if p.kind != "seed"]


def default_values(p: Param, count: int = 5) -> list[Any]:
    """A starting grid for the GUI: the choices, or values around the default inside the
    range (geometric steps for log-scale parameters)."""
    if p.kind == "choice":
        return list(p.choices)
    if p.kind == "bool":
        return [False, True]
    lo = -math.inf if p.low is None else p.low
    hi = math.inf if p.high is None else p.high
    half = count // 2
    centre = p.default if p.default is not None else p.typical
    if p.kind == "int":
        base = centre if centre is not None else int(np.clip(64, lo, hi))
        if p.log:
            vals = [base * 2.0**k for k in range(-half, half + 1)]
        else:
            step = max(1, round(base / 3))
            vals = [base + step * k for k in range(-half, half + 1)]
        vals = [int(np.rint(v)) for v in vals if lo <= v <= hi]
        return list(dict.fromkeys(vals)) or [base]
    if p.log and lo > 0 and hi < math.inf and math.log10(hi / lo) <= 4:
        return [float(f"{v:.4g}") for v in np.geomspace(lo, hi, count)]
    base = centre if centre not in (None, 0) else (1.0 if hi >= 1 >= lo else lo)
    if p.log:
        vals = [base * 10.0**k for k in range(-half, half + 1)]
    elif lo > -math.inf and hi < math.inf:
        vals = list(np.linspace(lo, hi, count))
    else:
        vals = [base * f for f in (0.25, 0.5, 1.0, 2.0, 4.0)[:count]]
    return list(dict.fromkeys(float(f"{v:.4g}") for v in vals if lo <= v <= hi)) or [base]


# -- the plan and its results ---------------------------------------------------------------
@dataclass(frozen=True)
class Cell:
    index: int
    coords: tuple[int, ...]  # position on each axis
    seed: int
    params: dict[str, Any]


@dataclass
class Sweep(BatchPlan):
    """One method over the product of ``axes`` and ``seeds``; ``rows[i]`` is cell i's result
    (None until it arrives). Rows are replaced, never mutated, so another thread may read."""

    method: str
    axes: list[GridAxis]
    seeds: list[int]
    base_params: dict[str, Any]
    labels_known: bool = False
    cells: list[Cell] = field(init=False)
    rows: list[dict[str, Any] | None] = field(init=False)

    def __post_init__(self) -> None:
        cls = REGISTRY[self.method]
        names = [a.name for a in self.axes]
        if len(set(names)) != len(names):
            raise ParamError(f"--grid: the same parameter twice in {names}")
        self.cells = []
        shape = [range(len(a.values)) for a in self.axes]
        for coords in itertools.product(*shape):
            for seed in self.seeds:
                params = dict(self.base_params)
                params.update({a.name: a.values[i] for a, i in zip(self.axes, coords, strict=True)})
                params["random_state"] = seed
                cls.param_spec.validate(params, owner=cls.__name__)
                self.cells.append(Cell(len(self.cells), coords, seed, params))
        self.rows = [None] * len(self.cells)
        self._labels: dict[int, np.ndarray] = {}

    @property
    def tasks(self) -> list[Cell]:
        return self.cells

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(len(a.values) for a in self.axes)

    def describe(self, cell: Cell) -> str:
        parts = [
            f"{a.name}={format_value(a.values[i])}"
            for a, i in zip(self.axes, cell.coords, strict=True)
        ]
        return " ".join([*parts, f"seed={cell.seed}"])

    def _key(self, cell: Cell) -> dict[str, Any]:
        row: dict[str, Any] = {"method": self.method}
        row.update({a.name: a.values[i] for a, i in zip(self.axes, cell.coords, strict=True)})
        row["seed"] = cell.seed
        return row

    def _recorded(self, cell: Cell) -> None:
        """Mean pairwise ARI between the seeds of one grid cell (needs two finished seeds)."""
        same = [c.index for c in self.cells if c.coords == cell.coords and c.index in self._labels]
        if len(self.seeds) < 2 or len(same) < 2:
            return
        pairs = itertools.combinations(same, 2)
        value = float(np.mean([adjusted_rand(self._labels[a], self._labels[b]) for a, b in pairs]))
        for i in same:
            self.rows[i] = {**self.rows[i], "stability": value}

    def labels_of(self, coords: tuple[int, ...]) -> dict[int, np.ndarray]:
        """The labels of one grid cell's finished runs, by seed."""
        return {
            c.seed: self._labels[c.index]
            for c in self.cells
            if c.coords == coords and c.index in self._labels
        }

    def scores(self) -> list[str]:
        """Scores present in the rows (label scores only when true labels are known)."""
        present = {k for r in self.rows if r for k, v in r.items() if finite(v)}
        return [s for s in SCORES if s in present]

    def grid(self, score: str) -> np.ndarray:
        """Mean of ``score`` over the finished seeds of each grid cell (NaN: none yet)."""
        sums, counts = np.zeros(self.shape), np.zeros(self.shape)
        for cell, row in zip(self.cells, self.rows, strict=True):
            if row is not None and finite(row.get(score)):
                sums[cell.coords] += row[score]
                counts[cell.coords] += 1
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)

    def columns(self) -> list[str]:
        estimated = any(r and r.get("k_estimated") is not None for r in self.rows)
        return [
            "method",
            *(a.name for a in self.axes),
            "seed",
            "status",
            *self._score_columns(SCORES),
            *(["k_estimated"] if estimated else []),  # cells with n_clusters "auto"
            "n_iter",
            "converged",
            "seconds",
            "view_weights",
            "params",
            "error",
        ]


# -- running ---------------------------------------------------------------------------------
def _run_cell(cell: Cell, shared: tuple[Any, ...], cancelled: CancelCheck) -> dict[str, Any]:
    """One cell, in a worker: fit, then score."""
    cls, views, truth, k_views = shared
    return fit_and_score(cls.from_params(cell.params), views, truth, cancelled, None, k_views)


def run_sweep(
    sweep: Sweep,
    views: Sequence[object],
    true_labels: np.ndarray | None = None,
    *,
    n_jobs: int = -1,
    backend: str | None = None,
    on_row: Callable[[int, dict[str, Any]], None] | None = None,
    cancel: CancelFlag | None = None,
    k_views: Callable[[], Sequence[object]] | None = None,
) -> Sweep:
    """Run every cell (``views`` already preprocessed); ``on_row(index, row)`` as each ends.
    ``k_views``: what cells with an ``auto`` number of clusters estimate it on, when not
    ``views`` (``core.data.prepare.estimate_views``; made once for the sweep).

    A failed cell becomes a row with ``status="error"``; a cancelled sweep keeps the rows
    that finished (the others stay None and are written as "not run")."""
    sweep.labels_known = true_labels is not None
    auto = any(c.params.get("n_clusters") == "auto" for c in sweep.cells)
    kv = list(k_views()) if k_views is not None and auto else None
    shared = (REGISTRY[sweep.method], list(views), true_labels, kv)
    sweep.run(_run_cell, shared, n_jobs=n_jobs, backend=backend, on_row=on_row, cancel=cancel)
    return sweep


def base_params_for(method: str, params: Mapping[str, Any], n_classes: int | None) -> dict:
    """The fixed parameters of a sweep: the given ones, n_clusters from the labels if unset
    ("auto", estimated in each cell, when the data has no labels)."""
    out = dict(params)
    if "n_clusters" not in out:
        out["n_clusters"] = n_classes or "auto"
    return out
