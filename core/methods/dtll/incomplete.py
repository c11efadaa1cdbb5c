"""DTLL on incomplete views: each view's anchor graph from the samples it has; the labels a
view lacks are recovered through the tensor low-rank coupling.

Following the incomplete multi-view clustering methods that build each view's graph on the
samples it has and let a low-rank tensor over the stacked views infer what a view lacks
(Wen et al., "Incomplete Multiview Spectral Clustering With Adaptive Graph Learning",
IEEE TCYB 2020; Wen et al., "Unified Tensor Framework for Incomplete Multi-view Clustering
and Missing-view Inferring", AAAI 2021), on DTLL's anchor graphs (Xia et al., TPAMI 2022):

* view v's anchors (by ``anchor_style``: random by default, or VDA) are picked among the
  samples that have view v, the same count m for every view (sized by the smallest observed
  count), and its
  PKN anchor graph ``S_v`` has empty rows for the samples missing v;
* in the G-step a missing row of ``S_v`` adds nothing to the linearised nuclear term
  (``S_v H_v`` is zero there), so that sample's label in view v is the argmax of the tensor
  term ``μ𝒥 − ℳ`` alone: the Schatten-p proximal step over the C × V slices completes it
  from the sample's other views; before the tensor term says anything (𝒥 = ℳ = 0 at the
  start) the sample keeps its label;
* ``‖S_vᵀG_v‖_*`` and the view weights α only see the observed samples (the transmission
  ``S_vᵀG_v`` sums stored entries);
* the shared initial labels use FMDC's per-sample scaling ``r_i = sqrt(V/V_i)`` of the
  stacked normalised graphs, and the final vote counts each sample's observed views only
  (a recovered label echoes the other views and would count them twice).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence

import numpy as np
import scipy.sparse as sp

from core.data.blocks import row_subset
from core.data.dataset import View
from core.methods.base import IterationState, Reporter
from core.methods.dtll.updates import anchor_count, anchor_indices_steps, anchor_style_name
from core.methods.params import ParamError
from core.numerics.observed_graphs import place_rows, sample_scaling
from core.numerics.streaming import graph_steps

__all__ = ["observed_anchor_count", "observed_graphs_steps", "scaled_rows"]


def observed_anchor_count(
    observed: np.ndarray, rate: float | None, n_anchors: int | None, max_anchors: int, c: int
) -> int:
    """m for every view, from the view with the fewest observed samples."""
    counts = observed.sum(axis=0)
    v = int(np.argmin(counts))
    m = anchor_count(int(counts[v]), rate, n_anchors, max_anchors)
    if m > counts[v]:
        raise ParamError(
            f"'n_anchors' = {m} is more than the {int(counts[v])} samples that have view {v + 1}"
        )
    if m < c:
        raise ParamError(
            f"{m} anchors for view {v + 1} ({int(counts[v])} observed samples) is fewer than "
            f"'n_clusters' = {c}; use more anchors"
        )
    return m


def observed_graphs_steps(
    views: Sequence[View],
    observed: np.ndarray,
    m: int,
    k: int,
    style: str,
    rng: np.random.Generator,
    rep: Reporter,
) -> Generator[IterationState, None, tuple[np.ndarray, list[sp.csr_matrix]]]:
    """Per view: m anchors among its observed samples and their PKN graph (n x m, empty rows
    for the samples missing the view). Returns (anchor sample ids, V x m; graphs)."""
    n, nv = observed.shape
    sel, graphs = [], []
    for v, x in enumerate(views):
        rows = np.flatnonzero(observed[:, v])
        xv = row_subset(x, rows)  # a view read in row blocks: its observed rows, still streamed
        lo, hi = 0.9 * v / nv, 0.9 * (v + 1) / nv
        msg = f"{m} anchors ({anchor_style_name(style)}) of view {v + 1}/{nv} ({rows.size} samples)"
        idx = yield from rep.follow(
            anchor_indices_steps([xv], m, style, rng), "anchors", msg, lo, (lo + hi) / 2
        )
        anchors = xv[idx].toarray() if sp.issparse(xv) else np.asarray(xv[idx])
        z = yield from rep.follow(
            graph_steps(xv, anchors, k),
            "graph",
            f"anchor graph of view {v + 1}/{nv} ({rows.size} samples)",
            (lo + hi) / 2,
            hi,
        )
        sel.append(rows[idx])
        graphs.append(place_rows(z, rows, n))
    return np.stack(sel), graphs


def scaled_rows(graphs: Sequence[sp.csr_matrix], observed: np.ndarray) -> list[sp.csr_matrix]:
    """R S_v, r_i = sqrt(V/V_i): for the shared initial labels, every sample's rows of the
    stacked graphs weigh the same whatever its number of views."""
    scale = sp.diags(sample_scaling(observed))
    return [sp.csr_matrix(scale @ g) for g in graphs]
