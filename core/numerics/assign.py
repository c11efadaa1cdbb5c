"""Assigning new samples to the clusters of a fitted run, through an anchor graph.

A fitted run leaves, per view, reference points with a cluster each: the method's own
anchors (labelled by the votes of the samples tied to them in its anchor graph), or, when a
method keeps no anchors in feature space, a class-stratified sample of the fitted samples
with their labels. A new sample is tied to its ``k`` nearest reference points of each view by
the parameter-free k-NN weights of Nie et al. (the PKN graph every anchor method here uses),
its cluster scores are the weighted votes of those points summed over the views (times the
run's view weights when it learned them), and its label is the best-scoring cluster.

Nothing here knows a method by name; ``core.methods.base.BaseSolver.predict`` builds the
reference from whatever the fitted method provides.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from core.data.dataset import DataError, View
from core.numerics.graphs import pkn_anchor_graph

__all__ = ["AnchorAssigner", "anchor_votes", "sample_reference"]


def anchor_votes(graph: View, labels: np.ndarray, n_clusters: int) -> np.ndarray:
    """(m,) cluster of each anchor: the cluster holding most of its weight in the n x m
    anchor graph (an anchor nobody uses gets -1 and never votes)."""
    onehot = sp.csr_matrix(
        (np.ones(labels.size), (np.arange(labels.size), labels)),
        shape=(labels.size, n_clusters),
    )
    if sp.issparse(graph):
        mass = np.asarray((sp.csr_matrix(graph).T @ onehot).todense())
    else:  # a dense graph (ALPC's n x M Zᵀ) as CSR would be a copy 1.5x its size
        mass = np.asarray(onehot.T @ np.asarray(graph)).T
    out = mass.argmax(axis=1).astype(np.int64)
    out[mass.sum(axis=1) <= 0] = -1
    return out


def sample_reference(labels: np.ndarray, per_cluster: int, rng: np.random.Generator) -> np.ndarray:
    """Sorted row indices: up to ``per_cluster`` fitted samples of every cluster."""
    picks = []
    for k in np.unique(labels):
        rows = np.flatnonzero(labels == k)
        picks.append(rows if rows.size <= per_cluster else rng.choice(rows, per_cluster, False))
    return np.sort(np.concatenate(picks))


@dataclass
class AnchorAssigner:
    """Reference points per view (dense or CSR, m_v x d_v) with their clusters.

    ``views`` lists which of the run's views each reference belongs to; ``weights`` their
    share in the vote; ``source`` says in words what the reference points are.
    """

    anchors: list[View]
    anchor_labels: list[np.ndarray]
    views: list[int]
    weights: np.ndarray
    n_clusters: int
    n_neighbors: int = 10
    source: str = ""

    def scores(self, new_views: Sequence[View], observed: np.ndarray | None = None) -> np.ndarray:
        """(n, c) cluster scores of new samples (rows sum to the weight of their views).

        ``observed`` (n x V, the new data's): a sample votes only through the views it has."""
        n = new_views[0].shape[0]
        out = np.zeros((n, self.n_clusters))
        for a, lab, v, w in zip(
            self.anchors, self.anchor_labels, self.views, self.weights, strict=True
        ):
            x = new_views[v]
            rows = None if observed is None or observed[:, v].all() else observed[:, v]
            if x.shape[1] != a.shape[1]:
                raise DataError(
                    f"view {v + 1} of the new data has {x.shape[1]} features; the run was "
                    f"fitted on {a.shape[1]}"
                )
            keep = lab >= 0
            ref = a[np.flatnonzero(keep)] if not keep.all() else a
            if ref.shape[0] == 0:  # no reference point of this view belongs to a cluster
                continue
            k = int(min(self.n_neighbors, ref.shape[0] - 1))
            if rows is not None:
                x = x[np.flatnonzero(rows)]
            z = pkn_anchor_graph(x, ref.toarray() if sp.issparse(ref) else ref, max(k, 1))
            onehot = sp.csr_matrix(
                (np.ones(int(keep.sum())), (np.arange(int(keep.sum())), lab[keep])),
                shape=(int(keep.sum()), self.n_clusters),
            )
            votes = w * np.asarray((z @ onehot).todense())
            if rows is None:
                out += votes
            else:
                out[rows] += votes
        return out

    def predict(self, new_views: Sequence[View], observed: np.ndarray | None = None) -> np.ndarray:
        """(n,) cluster of each new sample (``observed``: see :meth:`scores`)."""
        if observed is not None:
            lost = ~observed[:, sorted(set(self.views))].any(axis=1)
            if lost.any():
                raise DataError(
                    f"{int(lost.sum())} new sample(s) have none of the views the run's "
                    "reference points belong to: they cannot be assigned"
                )
        return self.scores(new_views, observed).argmax(axis=1).astype(np.int64)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Flat arrays for an .npz (dense anchors; the reference sets are small)."""
        out = {
            "views": np.asarray(self.views, dtype=np.int64),
            "weights": np.asarray(self.weights, dtype=np.float64),
            "n_clusters": np.int64(self.n_clusters),
            "n_neighbors": np.int64(self.n_neighbors),
            "source": np.str_(self.source),
        }
        for i, (a, lab) in enumerate(zip(self.anchors, self.anchor_labels, strict=True)):
            out[f"anchors_{i}"] = a.toarray() if sp.issparse(a) else np.asarray(a)
            out[f"anchor_labels_{i}"] = np.asarray(lab, dtype=np.int64)
        return out

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> AnchorAssigner:
        views = [int(v) for v in arrays["views"]]
        return cls(
            anchors=[np.asarray(arrays[f"anchors_{i}"]) for i in range(len(views))],
            anchor_labels=[np.asarray(arrays[f"anchor_labels_{i}"]) for i in range(len(views))],
            views=views,
            weights=np.asarray(arrays["weights"], dtype=np.float64),
            n_clusters=int(arrays["n_clusters"]),
            n_neighbors=int(arrays["n_neighbors"]),
            source=str(arrays["source"]),
        )
