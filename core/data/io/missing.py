"""Missing cells of a view: drop the samples, impute per-feature mean or median, or mark that
sample's view as missing (rows of a missing view are stored as zeros with ``observed`` False).

Nothing is dropped or filled silently: every action returns a note with its counts.
"""

from __future__ import annotations

import numpy as np

from core.data.dataset import DataError

__all__ = ["DEFAULT_MISSING", "MISSING_POLICIES", "apply_missing", "parse_missing"]

MISSING_POLICIES = ("mean", "median", "drop", "missing-view")
#: Per-feature mean keeps every sample and every view; a row with no value at all in a view
#: is marked as a missing view instead (imputing a whole row would invent a sample).
DEFAULT_MISSING = "mean"


def parse_missing(items: list[str] | str | None, view_names: list[str]) -> dict[str, str]:
    """``["median"]`` or ``["rna=drop", "mean"]`` -> policy per view name (``*``: default)."""
    if isinstance(items, str):
        items = [t for t in items.split(",") if t]
    policies = {"*": DEFAULT_MISSING}
    for item in items or []:
        name, sep, policy = item.rpartition("=")
        policy = policy.strip()
        if policy not in MISSING_POLICIES:
            raise DataError(
                f"--missing-values: {policy!r} is not one of {', '.join(MISSING_POLICIES)} "
                f"(give POLICY or VIEW=POLICY)"
            )
        key = name.strip() if sep else "*"
        if key != "*" and key not in view_names:
            raise DataError(
                f"--missing-values: no view named {key!r} (views: {', '.join(view_names)})"
            )
        policies[key] = policy
    return policies


def apply_missing(
    values: np.ndarray, present: np.ndarray, policy: str, view: str, notes: list[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Resolve NaN cells of one aligned view.

    Parameters
    ----------
    values : (n, d) float64, NaN where a cell is missing (rows of absent samples included).
    present : (n,) bool, the samples this view has (after id alignment).
    policy : one of :data:`MISSING_POLICIES`.

    Returns
    -------
    values : (n, d) without NaN (absent or missing-view rows are zeros).
    observed : (n,) bool, False where this view is missing for the sample.
    drop : (n,) bool, samples to remove from the whole dataset (policy ``drop``).
    """
    nan = np.isnan(values) & present[:, None]
    rows = nan.any(axis=1)
    observed = present.copy()
    drop = np.zeros(present.shape[0], dtype=bool)
    out = values.copy()
    out[~present] = 0.0
    if not rows.any():
        return out, observed, drop
    cells, n_rows = int(nan.sum()), int(rows.sum())
    empty = nan.all(axis=1) & present
    what = f"view {view!r}: {cells} missing cell(s) in {n_rows} sample(s)"
    if policy == "drop":
        drop = rows
        notes.append(f"{what}: those samples dropped (--missing-values {view}=drop)")
    elif policy == "missing-view":
        observed &= ~rows
        out[rows] = 0.0
        notes.append(
            f"{what}: this view marked missing for them (--missing-values {view}=missing-view)"
        )
    else:
        observed &= ~empty
        out[empty] = 0.0
        keep = present & ~empty
        if not keep.any():
            raise DataError(f"view {view!r} has no complete value in any sample")
        with np.errstate(all="ignore"):
            fill = (np.nanmean if policy == "mean" else np.nanmedian)(values[keep], axis=0)
        dead = np.flatnonzero(np.isnan(fill))
        fill = np.where(np.isnan(fill), 0.0, fill)
        r, c = np.nonzero(nan & ~empty[:, None])
        out[r, c] = fill[c]
        extra = f"; {int(empty.sum())} sample(s) with no value at all: view marked missing" * bool(
            empty.any()
        )
        extra += f"; {dead.size} feature(s) with no value at all: filled with 0" * bool(dead.size)
        notes.append(f"{what}: imputed with the per-feature {policy}{extra}")
    return out, observed, drop
