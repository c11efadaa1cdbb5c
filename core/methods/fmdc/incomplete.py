"""FMDC on incomplete views: each view's anchors and anchor graph from the samples it has.

Following the view-independent anchors of FIMVC-VIA (Liu et al., IEEE TNNLS 2023) and the
per-view missing-sample indicators of IMVC-CBG (Wang et al., CVPR 2022):

* view v's BKHK anchors are built from the samples that have view v only (so anchors of
  different views are independent: no sample need have every view);
* view v's PKN anchor graph ``Z_v`` (n x m) has no edges in the rows of samples missing v;
* ``Ẑ_v = Z_v Δ_v^{-1/2}`` as in the complete method, then each sample's rows are scaled by
  ``r_i = sqrt(V / V_i)`` (``V_i`` views observed): the equal-weight consensus
  ``Σ_v S_v / V`` becomes ``R (Σ_v S_v / V_i) R``, every sample's self-similarity is then on
  the same scale whatever its number of views (a sample with one view is not pulled into
  the largest cluster for lack of similarity mass).

The discrete label sweep and the α-QP then run unchanged on the scaled graphs, so the
objective ``‖Σ_v α_v R S_v R − P_Y‖²`` still decreases monotonically.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence

import numpy as np
import scipy.sparse as sp

from core.data.blocks import row_subset
from core.data.dataset import View
from core.methods.base import IterationState, Reporter
from core.numerics.observed_graphs import consensus_graph, place_rows, scaled_graphs
from core.numerics.streaming import anchor_steps, graph_steps

__all__ = ["consensus_graph", "observed_anchor_graphs", "scaled_graphs"]


def observed_anchor_graphs(
    views: Sequence[View],
    observed: np.ndarray,
    m: int,
    k: int,
    rng: np.random.Generator,
    rep: Reporter,
    space: str = "auto",
) -> Generator[IterationState, None, tuple[list[np.ndarray], list[sp.csr_matrix]]]:
    """Per view: BKHK anchors and the PKN graph of that view's observed samples only.

    Returns (anchors per view, m x d_v; graphs, n x m with empty rows where a sample misses
    the view). The values in a missing sample's row of a view are never read. ``k`` is
    clipped to m/2: with few observed samples m is small, and a sample joined to nearly
    every anchor carries no structure.
    """
    n, nv = observed.shape
    anchors, graphs = [], []
    for v, x in enumerate(views):
        rows = np.flatnonzero(observed[:, v])
        xv = row_subset(x, rows)  # a view read in row blocks: its observed rows, still streamed
        lo, hi = v / nv, (v + 1) / nv
        msg = f"BKHK: {m} anchors of view {v + 1}/{nv} ({rows.size} samples)"
        a, _ = yield from rep.follow(
            anchor_steps([xv], m, rng, space), "anchors", msg, 0.9 * lo, 0.9 * (lo + hi) / 2
        )
        z = yield from rep.follow(
            graph_steps(xv, a[0], min(k, max(m // 2, 1)), mixed=True),
            "graph",
            f"anchor graph of view {v + 1}/{nv} ({rows.size} samples)",
            0.9 * (lo + hi) / 2,
            0.9 * hi,
        )
        anchors.append(a[0])
        graphs.append(place_rows(z, rows, n))
    return anchors, graphs
