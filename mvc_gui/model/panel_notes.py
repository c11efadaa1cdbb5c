"""What the weights, anchor-graph and scores panels show for a method that has nothing for
them (Qt-free).

Every panel shows something meaningful or says in words why it has nothing (issue 14,
item 5): never an empty axis (issue 24, item 7). A method declares the panels it has
nothing for on its class, ``panel_notes`` (panel key -> the sentence to show, see
``core.methods.base.BaseSolver``); the window names no method. A method that learns no
view weights but reports each view's share of the reconstruction error per iteration
(``recon_share_<v>`` extras) gets those shares instead, under their own title.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from core.methods import REGISTRY

__all__ = [
    "PANELS",
    "WeightsDisplay",
    "graph_note",
    "panel_notes",
    "recon_shares",
    "scores_note",
    "weights_display",
]

#: the panels a method may declare it has nothing for (``BaseSolver.panel_notes`` keys)
PANELS = ("weights", "anchor_graph", "convergence")


def panel_notes(method: str) -> Mapping[str, str]:
    """The panels ``method`` (a registered name) has nothing for, and why: its class's
    ``panel_notes`` (empty for a method not registered here)."""
    cls = REGISTRY.get(method)
    notes = getattr(cls, "panel_notes", None) or {}
    return {key: text for key, text in notes.items() if key in PANELS and text}


def short_name(title: str) -> str:
    """The name before the colon of a title ("X" from "X: what it does"), or what follows
    "Baseline:" ("k-means on concatenated views" from "Baseline: k-means on ...")."""
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
    """What the view-weights panel shows for ``method`` (``title``: its display name): the
    sentence it declares for the panel (``panel_notes["weights"]``: it has no view weights,
    whatever numbers arrive), else its weights, else each view's share of the reconstruction
    error, else a sentence saying it learns none."""
    declared = panel_notes(method).get("weights")
    if declared:
        return WeightsDisplay(None, "View weights", "weight (sum 1)", declared)
    if weights is not None and len(weights) and np.any(np.asarray(weights) > 0):
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
    return WeightsDisplay(
        None, "View weights", "weight (sum 1)", f"{short} learns no view weights."
    )


def scores_note(method_title: str, per_iteration: bool, final: bool) -> str:
    """Why the per-iteration scores curve is empty (labels only at the end)."""
    if per_iteration:
        return ""
    short = short_name(method_title)
    if final:
        return f"{short} assigns clusters only at the end: final scores shown as points."
    return f"{short} assigns clusters only at the end: scores appear when it finishes."


def graph_note(method: str, method_title: str) -> str:
    """Why the anchor-graph panel is empty after a finished run: the sentence ``method``
    declares (``panel_notes["anchor_graph"]``), else a generic one."""
    declared = panel_notes(method).get("anchor_graph")
    return declared or f"{short_name(method_title) or method} builds no anchor graph to show."
