"""The amputation experiment: accuracy against the share of samples missing views.

Like the noise experiment (:mod:`core.experiments.robustness`, whose plan and CSV it
reuses: the ``level`` column is the missing rate), for every method, missing rate and
seed: views are removed from that share of the samples (:func:`amputation_mask`, each
sample keeps one view, the pattern depends on the seed only, nested across rates), then
a method with ``supports_incomplete`` gets the ``observed`` mask and never reads the
missing rows; any other method gets them filled (``fill``: the view's mean over its
observed samples, or zeros), as a user would have to. Preprocessing runs after the fill,
with ``auto`` decided on the complete views.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.data.dataset import DataError, View
from core.data.preprocessing import preprocess, transform_views
from core.experiments.amputation import FILLS, amputation_mask, fill_missing
from core.experiments.parallel import CancelCheck, CancelFlag
from core.experiments.robustness import Robustness, Trial, resolve_preprocessing
from core.experiments.scoring import fit_and_score
from core.methods import REGISTRY

__all__ = ["Amputation", "handling", "run_amputation"]


def handling(method: str, fill: str) -> str:
    """How a method meets the missing views: its own handling, or the fill."""
    return "incomplete" if REGISTRY[method].supports_incomplete else f"{fill}-filled"


@dataclass
class Amputation(Robustness):
    """The robustness plan with missing rates as levels (``noisy_views`` unused)."""

    fill: str = "mean"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.fill not in FILLS:
            raise DataError(f"fill must be one of {', '.join(FILLS)}, got {self.fill!r}")
        for rate in self.levels:
            if not 0.0 <= rate < 1.0:
                raise DataError(f"missing rates must be in [0, 1), got {rate:g}")

    def describe(self, trial: Trial) -> str:
        return f"{trial.method} missing={trial.level:.0%} seed={trial.seed}"

    def columns(self) -> list[str]:
        cols = super().columns()
        cols[cols.index("noisy_views")] = "handling"
        return cols

    def _csv_row(self, trial: Trial, row: dict[str, Any]) -> dict[str, Any]:
        row = super()._csv_row(trial, row)
        del row["noisy_views"]
        row["handling"] = handling(trial.method, self.fill)
        return row


def _run_trial(trial: Trial, shared: tuple[Any, ...], cancelled: CancelCheck) -> dict[str, Any]:
    """One method at one missing rate and seed, in a worker."""
    classes, views, prep, truth, fill = shared
    mask = amputation_mask(views[0].shape[0], len(views), trial.level, trial.seed)
    cls = classes[trial.method]
    own = cls.supports_incomplete
    # own handling: each view preprocessed on its observed samples (missing rows never read)
    if own:
        prepared, _ = transform_views(views, prep, observed=mask)
    else:
        prepared, _ = preprocess(fill_missing(views, mask, fill), prep)
    solver = cls.from_params(trial.params)
    return fit_and_score(solver, prepared, truth, cancelled, mask if own else None)


def run_amputation(
    plan: Amputation,
    views: Sequence[View],
    true_labels: np.ndarray | None = None,
    *,
    preprocessing: str | Sequence[str] = "auto",
    n_jobs: int = -1,
    backend: str | None = None,
    on_row: Callable[[int, dict[str, Any]], None] | None = None,
    cancel: CancelFlag | None = None,
) -> Amputation:
    """Run every trial on the complete ``views`` (amputation, fill, then preprocessing)."""
    if len(views) != len(plan.view_names):
        raise DataError(f"{len(views)} views but the plan names {len(plan.view_names)}")
    amputation_mask(views[0].shape[0], len(views), max(plan.levels), 0)  # validate first
    plan.labels_known = true_labels is not None
    prep = resolve_preprocessing(views, preprocessing)
    classes = {m: REGISTRY[m] for m in plan.method_names()}
    shared = (classes, list(views), prep, true_labels, plan.fill)
    plan.run(_run_trial, shared, n_jobs=n_jobs, backend=backend, on_row=on_row, cancel=cancel)
    return plan
