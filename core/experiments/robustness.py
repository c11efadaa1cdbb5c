"""Noise robustness: corrupt chosen views with Gaussian noise of growing strength, rerun the
methods, and record accuracy and learned view weights against the noise level.

RG-MVC (Liang et al., AAAI 2022, "Robustness to Noise") adds "standard Gaussian noises with a
multiplying factor α to 80 % items" of the even-numbered views, α in {0.05, ..., 1}. Its
views are precomputed kernel matrices with entries of order one, so an absolute N(0, 1) is
on the data's own scale. Feature views are on any scale (pixel counts 0-6, Zernike moments,
word counts), so :func:`add_noise` scales the noise per feature: entry (i, j) chosen with
probability ``fraction`` becomes ``x_ij + α·σ_j·ε_ij`` with σ_j the standard deviation of
feature j and ε standard normal. On z-scored features (σ_j = 1) that is exactly the paper's
α·N(0, 1); α = 1 means noise as strong as the feature's own spread. ``scale="view"`` uses one
σ for the whole view, ``scale="none"`` the paper's literal absolute noise. Constant features
(σ_j = 0) get no noise under the per-feature scale.

Noise is added to the raw views, then the usual preprocessing runs, with ``auto`` resolved
on the clean data first (noise must not switch a view from l2 to z-score between levels).
For one seed the noise pattern ε and the chosen entries are the same at every level and for
every method (common random numbers): curves differ only by α, and methods are compared on
identical data.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from core.data.dataset import DataError, View
from core.data.preprocessing import choose_auto, preprocess
from core.experiments.parallel import CancelCheck, CancelFlag
from core.experiments.plan import BatchPlan, finite
from core.experiments.scoring import fit_and_score
from core.methods import REGISTRY
from core.numerics.metrics import adjusted_rand

__all__ = [
    "NOISE_SCALES",
    "Robustness",
    "add_noise",
    "method_params",
    "noisy_copy",
    "resolve_preprocessing",
    "run_robustness",
]

NOISE_SCALES = ("feature", "view", "none")
_SCORES = ("acc", "nmi", "ari", "purity", "objective", "silhouette", "ari_vs_clean")


def _feature_std(x: View) -> np.ndarray:
    if sp.issparse(x):
        mean = np.asarray(x.mean(axis=0)).ravel()
        sq = np.asarray(x.multiply(x).mean(axis=0)).ravel()
        return np.sqrt(np.maximum(sq - mean**2, 0.0))
    return x.std(axis=0)


def add_noise(
    view: View,
    alpha: float,
    fraction: float = 0.8,
    rng: np.random.Generator | int | None = None,
    *,
    scale: str = "feature",
) -> View:
    """A noisy copy of one view (the input is never modified).

    Each entry is chosen independently with probability ``fraction`` and gets
    ``alpha * sigma * N(0, 1)`` added; sigma is the feature's standard deviation
    (``scale="feature"``), the view's (``"view"``) or 1 (``"none"``). Sparse views stay
    sparse: the noise goes to ``fraction`` of the stored entries (noise on the implicit
    zeros would make the view dense). ``alpha = 0`` returns an unchanged copy.
    """
    if not (math.isfinite(alpha) and alpha >= 0):
        raise DataError(f"noise level must be a finite number >= 0, got {alpha!r}")
    if not 0.0 <= fraction <= 1.0:
        raise DataError(f"the fraction of noisy entries must be in [0, 1], got {fraction!r}")
    if scale not in NOISE_SCALES:
        raise DataError(f"noise scale must be one of {', '.join(NOISE_SCALES)}, got {scale!r}")
    rng = np.random.default_rng(rng)
    if sp.issparse(view):
        out = sp.csr_matrix(view, dtype=np.float64, copy=True)
        if alpha == 0 or out.nnz == 0:
            return out
        sigma = _sigma(out, scale)
        chosen = rng.random(out.nnz) < fraction
        eps = rng.standard_normal(out.nnz)
        per_entry = sigma[out.indices] if np.ndim(sigma) else sigma
        out.data += np.where(chosen, alpha * per_entry * eps, 0.0)
        return out
    x = np.array(view, dtype=np.float64, copy=True)
    if alpha == 0 or x.size == 0:
        return x
    sigma = _sigma(x, scale)
    chosen = rng.random(x.shape, dtype=np.float32) < fraction
    eps = rng.standard_normal(x.shape)
    eps *= alpha * sigma
    x += np.where(chosen, eps, 0.0)
    return x


def _sigma(x: View, scale: str) -> np.ndarray | float:
    if scale == "none":
        return 1.0
    if scale == "feature":
        return _feature_std(x)
    if sp.issparse(x):
        n, d = x.shape
        mean = x.sum() / (n * d)
        return float(np.sqrt(max(x.multiply(x).sum() / (n * d) - mean**2, 0.0)))
    return float(x.std())


def resolve_preprocessing(views: Sequence[View], methods: str | Sequence[str]) -> list[str]:
    """Per-view preprocessing with ``auto`` decided on the clean views."""
    if isinstance(methods, str):
        methods = [methods] * len(views)
    if len(methods) != len(views):
        raise DataError(f"{len(methods)} preprocessing choices for {len(views)} views")
    return [choose_auto(x) if m == "auto" else m for x, m in zip(views, methods, strict=True)]


@dataclass(frozen=True)
class Trial:
    index: int
    method: str
    params: dict[str, Any]
    level: float
    seed: int


@dataclass
class Robustness(BatchPlan):
    """The plan (methods x levels x seeds) and its rows; ``rows[i]`` is None until trial i
    ends. Rows are replaced, never mutated, so another thread may read them."""

    methods: list[tuple[str, dict[str, Any]]]
    levels: list[float]
    seeds: list[int]
    noisy_views: list[int]  # 0-based positions in ``view_names``
    view_names: list[str]
    labels_known: bool = False
    trials: list[Trial] = field(init=False)
    rows: list[dict[str, Any] | None] = field(init=False)

    def __post_init__(self) -> None:
        if not self.methods or not self.levels or not self.seeds:
            raise DataError("give at least one method, one noise level and one seed")
        bad = [v for v in self.noisy_views if not 0 <= v < len(self.view_names)]
        if bad:
            raise DataError(f"no view {bad[0] + 1} to corrupt (there are {len(self.view_names)})")
        for lv in self.levels:
            if not (math.isfinite(lv) and lv >= 0):
                raise DataError(f"noise levels must be finite numbers >= 0, got {lv!r}")
        self.levels = sorted(dict.fromkeys(float(lv) for lv in self.levels))
        unknown = [m for m, _ in self.methods if m not in REGISTRY]
        if unknown:
            raise DataError(f"unknown method {unknown[0]!r}; choose from {', '.join(REGISTRY)}")
        self.trials = []
        for (method, params), level, seed in itertools.product(
            self.methods, self.levels, self.seeds
        ):
            cls = REGISTRY[method]
            full = cls.param_spec.validate({**params, "random_state": seed}, cls.__name__)
            self.trials.append(Trial(len(self.trials), method, full, level, seed))
        self.rows = [None] * len(self.trials)
        self._labels: dict[int, np.ndarray] = {}

    @property
    def tasks(self) -> list[Trial]:
        return self.trials

    def describe(self, trial: Trial) -> str:
        return f"{trial.method} level={trial.level:g} seed={trial.seed}"

    def _key(self, trial: Trial) -> dict[str, Any]:
        return {"method": trial.method, "level": trial.level, "seed": trial.seed}

    def _recorded(self, trial: Trial) -> None:
        """ARI of each level's labels with the same method and seed at the lowest level."""
        same = [t for t in self.trials if t.method == trial.method and t.seed == trial.seed]
        clean = self._labels.get(same[0].index)
        if clean is None:
            return
        for t in same:
            if t.index in self._labels and "ari_vs_clean" not in (self.rows[t.index] or {}):
                value = adjusted_rand(clean, self._labels[t.index])
                self.rows[t.index] = {**self.rows[t.index], "ari_vs_clean": value}

    def method_names(self) -> list[str]:
        return list(dict.fromkeys(m for m, _ in self.methods))

    def summary(self, score: str) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Per method: levels, mean and std of ``score`` over finished seeds (NaN: none)."""
        out = {}
        for method in self.method_names():
            means, stds = [], []
            for level in self.levels:
                vals = [r[score] for r in self._rows(method, level) if finite(r.get(score))]
                means.append(np.mean(vals) if vals else np.nan)
                stds.append(np.std(vals) if vals else np.nan)
            out[method] = (np.array(self.levels), np.array(means), np.array(stds))
        return out

    def weight_summary(self) -> dict[str, np.ndarray | None]:
        """Per method: mean view weights (levels x views); None for methods without weights
        (e.g. ALPC, k-means on concatenated views)."""
        out: dict[str, np.ndarray | None] = {}
        for method in self.method_names():
            table = np.full((len(self.levels), len(self.view_names)), np.nan)
            for i, level in enumerate(self.levels):
                ws = [r["view_weights"] for r in self._rows(method, level) if r.get("view_weights")]
                if ws:
                    table[i] = np.mean(ws, axis=0)
            out[method] = None if np.isnan(table).all() else table
        return out

    def _rows(self, method: str, level: float) -> list[dict[str, Any]]:
        return [r for r in self.rows if r and r["method"] == method and r["level"] == level]

    def columns(self) -> list[str]:
        return [
            "method",
            "level",
            "seed",
            "status",
            *self._score_columns(_SCORES),
            *(f"weight:{name}" for name in self.view_names),
            "n_iter",
            "converged",
            "seconds",
            "noisy_views",
            "params",
            "error",
        ]

    def _csv_row(self, trial: Trial, row: dict[str, Any]) -> dict[str, Any]:
        """Weights one column per view; the noisy views and parameters on every row."""
        row = dict(row)
        for name, w in zip(self.view_names, row.get("view_weights") or [], strict=False):
            row[f"weight:{name}"] = w
        row["noisy_views"] = ";".join(self.view_names[v] for v in self.noisy_views)
        row["params"] = trial.params
        return row


def noisy_copy(
    views: Sequence[View],
    noisy: Sequence[int],
    level: float,
    seed: int,
    fraction: float = 0.8,
    scale: str = "feature",
) -> list[View]:
    """The views with ``noisy`` ones corrupted; the noise depends on (seed, view) only."""
    return [
        add_noise(x, level, fraction, np.random.default_rng([seed, v]), scale=scale)
        if v in noisy
        else x
        for v, x in enumerate(views)
    ]


def _run_trial(trial: Trial, shared: tuple[Any, ...], cancelled: CancelCheck) -> dict[str, Any]:
    """One method at one noise level and seed, in a worker."""
    classes, views, noisy, prep, truth, fraction, scale = shared
    corrupted = noisy_copy(views, noisy, trial.level, trial.seed, fraction, scale)
    prepared, _ = preprocess(corrupted, prep)
    solver = classes[trial.method].from_params(trial.params)
    return fit_and_score(solver, prepared, truth, cancelled)


def run_robustness(
    plan: Robustness,
    views: Sequence[View],
    true_labels: np.ndarray | None = None,
    *,
    preprocessing: str | Sequence[str] = "auto",
    fraction: float = 0.8,
    scale: str = "feature",
    n_jobs: int = -1,
    backend: str | None = None,
    on_row: Callable[[int, dict[str, Any]], None] | None = None,
    cancel: CancelFlag | None = None,
) -> Robustness:
    """Run every trial on the raw ``views`` (noise first, then preprocessing)."""
    if len(views) != len(plan.view_names):
        raise DataError(f"{len(views)} views but the plan names {len(plan.view_names)}")
    add_noise(np.zeros((1, 1)), 0.0, fraction, scale=scale)  # validate before starting
    plan.labels_known = true_labels is not None
    prep = resolve_preprocessing(views, preprocessing)
    classes = {m: REGISTRY[m] for m in plan.method_names()}
    shared = (classes, list(views), list(plan.noisy_views), prep, true_labels, fraction, scale)
    plan.run(_run_trial, shared, n_jobs=n_jobs, backend=backend, on_row=on_row, cancel=cancel)
    return plan


def method_params(
    methods: Sequence[str],
    n_clusters: int,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[tuple[str, dict[str, Any]]]:
    """Each method with its default parameters, ``n_clusters`` and any overrides."""
    overrides = overrides or {}
    return [(m, {"n_clusters": n_clusters, **dict(overrides.get(m, {}))}) for m in methods]
