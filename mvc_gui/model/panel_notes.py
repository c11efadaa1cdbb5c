"""What the weights and scores panels show for a method that has no view weights or no
labels during its iterations (Qt-free).

Every panel shows something meaningful or says in words why it has nothing (issue 14,
item 5). ALPC learns no view weights but reports each view's share of the reconstruction
error per iteration (``recon_share_<v>`` extras, ``recon_share_`` fitted); that is shown
instead, under its own title.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

__all__ = ["WeightsDisplay", "graph_note", "recon_shares", "scores_note", "weights_display"]

#: why a method has no view weights (methods not listed get the generic sentence)
NO_WEIGHTS = {
    "kmeans-concat": "k-means on the concatenated views learns no view weights: "
    "every feature counts alike.",
}


def short_name(title: str) -> str:
    """ "ALPC" from "ALPC: anchor learning ...", "k-means on concatenated views" from
    "Baseline: k-means on concatenated views"."""
    head, _, rest = title.partition(":")
    return rest.strip() if head == "Baseline" and rest else head


@dataclass(frozen=True)
class WeightsDisplay:
    """Bars to draw (None: none), the panel title, the y-axis label and a note."""

    values: np.ndarray | None
    title: str
    axis: str
    note: str = ""


def recon_shares(extras: Mapping[str, float] | None, n_views: int) -> np.ndarray | None:
    """Each view's share of the reconstruction error from a state's extras, if reported."""
    extras = extras or {}
    keys = [f"recon_share_{v + 1}" for v in range(n_views)]
    if n_views == 0 or not all(k in extras for k in keys):
        return None
    return np.array([float(extras[k]) for k in keys])


def weights_display(
    method: str,
    title: str,
    weights: np.ndarray | None,
    extras: Mapping[str, float] | None,
    n_views: int,
) -> WeightsDisplay:
    """What the view-weights panel shows for ``method`` (``title``: its display name)."""
    if weights is not None and len(weights) == n_views and np.any(np.asarray(weights) > 0):
        return WeightsDisplay(np.asarray(weights, dtype=float), "View weights", "weight (sum 1)")
    short = short_name(title) or method
    shares = recon_shares(extras, n_views)
    if shares is not None:
        return WeightsDisplay(
            shares,
            "Reconstruction error share",
            "share of error",
            f"{short} learns no view weights: shown is each view's share of the "
            "reconstruction error.",
        )
    note = NO_WEIGHTS.get(method, f"{short} learns no view weights.")
    return WeightsDisplay(None, "View weights", "weight (sum 1)", note)


def scores_note(method_title: str, per_iteration: bool, final: bool) -> str:
    """Why the per-iteration scores curve is empty (labels only at the end)."""
    if per_iteration:
        return ""
    short = short_name(method_title)
    if final:
        return f"{short} assigns clusters only at the end: final scores shown as points."
    return f"{short} assigns clusters only at the end: scores appear when it finishes."


def graph_note(method_title: str) -> str:
    """Why the anchor-graph panel is empty after a finished run."""
    return f"{short_name(method_title)} builds no anchor graph to show."
