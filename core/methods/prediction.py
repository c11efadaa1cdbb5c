"""Where ``predict`` ties new samples to: reference points chosen from a fitted solver.

Kept apart from ``base`` (the solver protocol), which calls :func:`prediction_reference` once
a fit ends. The solver is typed ``Any`` here: importing ``base`` would close a circle.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from core.data.dataset import View
from core.numerics.assign import AnchorAssigner, anchor_votes, sample_reference

__all__ = ["REFERENCE_PER_CLUSTER", "prediction_reference"]


#: fitted samples kept per cluster as reference points when a method has no anchors in
#: feature space (MVSC-HFD's anchors live in its latent space, RG-MVC and k-means have none)
REFERENCE_PER_CLUSTER = 200
CHECK_SAMPLES = 500


def prediction_reference(
    solver: Any, views: list[View], observed: np.ndarray | None = None
) -> AnchorAssigner:
    """The reference points ``predict`` ties new samples to, from a fitted solver.

    Candidates: (a) the method's anchors when they are points of the feature space, one
    (m x d_v) array per view (FMDC, the single-view baseline; ALPC's learned anchors) or
    anchor sample indices (DTLL), each labelled by the vote of the samples tied to it in
    the run's anchor graph; (b) up to ``REFERENCE_PER_CLUSTER`` fitted samples per cluster
    with their labels (always available: MVSC-HFD's anchors live in its latent space,
    RG-MVC and k-means keep none). The candidate that best reproduces the run's own labels
    on fitted samples outside the reference wins (ALPC's anchors are an orthonormal basis,
    not data points, so (b) wins there). Views count by the run's view weights when it
    learned them, else equally.

    With ``observed`` (incomplete views) each view's reference is (b) drawn from the samples
    that have that view: a new sample then votes through the views it has.
    """
    labels, c = solver.labels_, int(solver.n_clusters_)
    dims = [x.shape[1] for x in views]
    solver.n_features_in_ = dims
    weights = solver.view_weights_
    rng = np.random.default_rng(0)
    # at most half of an average cluster, so that fitted samples outside the reference
    # remain to compare the candidates on
    per = min(REFERENCE_PER_CLUSTER, max(5, labels.size // (2 * c)))
    if observed is not None:
        return _observed_reference(views, labels, c, weights, observed, per, rng)
    rows = sample_reference(labels, per, rng)
    idx = list(range(len(views)))
    candidates = [
        AnchorAssigner(
            [x[rows] for x in views],
            [labels[rows]] * len(idx),
            idx,
            _view_shares(weights, idx),
            c,
            source=f"up to {per} fitted samples per cluster, with their labels",
        )
    ]
    if (own := _own_anchors(solver, views)) is not None:
        candidates.insert(0, own)
    rest = np.setdiff1d(np.arange(labels.size), rows)
    # 500 samples tell two candidates apart (a 10-point gap is > 4 standard errors) at a
    # quarter of the cost of 2000: this runs after every fit, ~1 s at 10k x 1000 features
    check = rest if rest.size <= CHECK_SAMPLES else rng.choice(rest, CHECK_SAMPLES, replace=False)
    if check.size == 0:
        return candidates[0]
    # measured for a lone candidate too: weak clusters are reproduced poorly by any reference,
    # and `mvc predict` says how well
    sub = [x[check] for x in views]
    agree = [float(np.mean(a.predict(sub) == labels[check])) for a in candidates]
    best = candidates[int(np.argmax(agree))]
    best.source += f" (reproduces {max(agree):.1%} of the run's labels)"
    return best


def _observed_reference(
    views: list[View],
    labels: np.ndarray,
    c: int,
    weights: np.ndarray | None,
    observed: np.ndarray,
    per: int,
    rng: np.random.Generator,
) -> AnchorAssigner:
    """Per view, up to ``per`` fitted samples per cluster among those that have the view."""
    refs, labs = [], []
    for v, x in enumerate(views):
        have = np.flatnonzero(observed[:, v])
        rows = have[sample_reference(labels[have], per, rng)]
        refs.append(x[rows])
        labs.append(labels[rows])
    idx = list(range(len(views)))
    return AnchorAssigner(
        refs, labs, idx, _view_shares(weights, idx), c,
        source=f"up to {per} fitted samples per cluster and view, among those with the view",
    )  # fmt: skip


def _own_anchors(solver: Any, views: list[View]) -> AnchorAssigner | None:
    """The method's anchors as reference points, when they are feature-space points."""
    anchors, graph = solver.anchors_, solver.anchor_graph_
    if graph is None or graph.shape[0] != views[0].shape[0]:
        return None
    if isinstance(anchors, np.ndarray) and anchors.ndim == 1 and anchors.dtype.kind in "iu":
        anchors = [x[anchors] for x in views]  # anchor sample indices (DTLL)
    if not isinstance(anchors, list) or any(
        getattr(a, "ndim", 0) != 2 or a.shape[0] != graph.shape[1] for a in anchors
    ):
        return None
    dims = [x.shape[1] for x in views]
    weights = solver.view_weights_
    if len(anchors) == len(views) and [a.shape[1] for a in anchors] == dims:
        idx = list(range(len(views)))
    elif len(anchors) == 1 and weights is not None:
        idx = [int(np.argmax(weights))]  # one view's anchors: the view the method used
        if anchors[0].shape[1] != dims[idx[0]]:
            return None
    else:
        return None
    votes = anchor_votes(graph, solver.labels_, int(solver.n_clusters_))
    return AnchorAssigner(
        list(anchors), [votes] * len(idx), idx, _view_shares(weights, idx),
        int(solver.n_clusters_),
        source="the method's anchors, labelled by their anchor-graph votes",
    )  # fmt: skip


def _view_shares(weights: np.ndarray | None, idx: list[int]) -> np.ndarray:
    if weights is None or len(np.ravel(weights)) < max(idx) + 1:
        return np.full(len(idx), 1.0 / len(idx))
    w = np.asarray(np.ravel(weights)[idx], dtype=np.float64)
    total = w.sum()
    return w / total if total > 0 else np.full(len(idx), 1.0 / len(idx))
