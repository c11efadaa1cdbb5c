"""The job of a sweep or robustness cell, and its scores: with true labels ACC, NMI, ARI and
purity; without them the final objective and a silhouette on a fixed subsample."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from core.experiments.parallel import fit_cancellable
from core.methods.base import normalized_weights

__all__ = [
    "LABEL_SCORES",
    "SILHOUETTE_SAMPLES",
    "fit_and_score",
    "label_free_scores",
    "score_labels",
]

SILHOUETTE_SAMPLES = 2000
LABEL_SCORES = ("acc", "nmi", "ari", "purity")  # the scores that need true labels


def score_labels(true_labels: np.ndarray | None, labels: np.ndarray) -> dict[str, float]:
    """ACC, NMI, ARI and purity against the true labels (empty without them)."""
    if true_labels is None:
        return {}
    from core.numerics.metrics import accuracy, adjusted_rand, nmi, purity

    return {
        "acc": accuracy(true_labels, labels),
        "nmi": nmi(true_labels, labels),
        "ari": adjusted_rand(true_labels, labels),
        "purity": purity(true_labels, labels),
    }


def label_free_scores(
    solver: Any, views: Sequence[object], labels: np.ndarray, seed: int = 0
) -> dict[str, float]:
    """The final objective and the silhouette of the labels on the concatenated views.

    Silhouette uses at most ``SILHOUETTE_SAMPLES`` samples (a fixed subsample, the same for
    every cell) and scales each view's block to unit mean squared row norm, so a view does
    not dominate the distances by its dimension. NaN when it is undefined (one cluster).
    """
    from sklearn.metrics import silhouette_score

    history = getattr(solver, "objective_history_", None) or []
    out = {"objective": float(history[-1]) if history else float("nan")}
    n = labels.size
    rng = np.random.default_rng(seed)
    idx = (
        np.sort(rng.choice(n, SILHOUETTE_SAMPLES, replace=False))
        if n > SILHOUETTE_SAMPLES
        else None
    )
    sub = labels if idx is None else labels[idx]
    k = np.unique(sub).size
    if not 2 <= k < sub.size:
        out["silhouette"] = float("nan")
        return out
    blocks = []
    for v in views:
        x = v if idx is None else v[idx]
        sq = x.multiply(x).sum() if sp.issparse(x) else np.einsum("ij,ij->", x, x)
        scale = 1.0 / np.sqrt(max(float(sq) / x.shape[0], 1e-300))
        blocks.append(x * scale)
    if any(sp.issparse(b) for b in blocks):
        xcat = sp.hstack([sp.csr_matrix(b) for b in blocks], format="csr")
    else:
        xcat = np.hstack(blocks)
    out["silhouette"] = float(silhouette_score(xcat, sub))
    return out


def fit_and_score(
    solver: Any,
    views: Sequence[object],
    true_labels: np.ndarray | None,
    cancelled: Callable[[], bool],
    observed: np.ndarray | None = None,
    k_views: Sequence[object] | None = None,
) -> dict[str, Any]:
    """One job of a sweep or robustness experiment, in a worker: fit (cancellable), then the
    scores, time, iterations and normalised view weights (None for methods without them).
    ``labels`` (int32) is included for the plan's seed-to-seed comparisons."""
    t0 = time.perf_counter()
    fit_cancellable(solver, views, cancelled, observed, k_views)
    seconds = time.perf_counter() - t0
    labels = np.asarray(solver.labels_)
    weights = getattr(solver, "view_weights_", None)
    if weights is not None:
        weights = normalized_weights(weights).tolist()
    return {
        **score_labels(true_labels, labels),
        **label_free_scores(solver, views, labels),
        "n_iter": int(solver.n_iter_),
        "converged": bool(solver.converged_),
        "seconds": seconds,
        "view_weights": weights,
        # the k an "auto" cell estimated (None: k was given)
        "k_estimated": (
            int(solver.n_clusters_) if getattr(solver, "n_clusters_estimate_", None) else None
        ),
        "labels": labels.astype(np.int32),
    }
