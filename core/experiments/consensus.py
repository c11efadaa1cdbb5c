"""Consensus of several runs: one partition that the runs agree on, and how much they agree.

Method: locally weighted graph partitioning (LWGP) of Huang, Wang and Lai, "Locally Weighted
Ensemble Clustering", IEEE Transactions on Cybernetics 48(5), 2018, doi:10.1109/TCYB.2017.2702343.
Every cluster of every run is weighted by its ensemble-driven cluster index
ECI(C) = exp(-H(C) / (theta * M)), where H(C) is the entropy of C's samples across the
clusters of the M runs (a cluster the other runs split up counts less); samples are tied to
the clusters holding them in a bipartite graph (n x total clusters, weights ECI), and the
graph is cut by the transfer-cut route of the paper: the spectral embedding of the bipartite
graph (the same anchor-graph embedding the methods use, clusters as anchors), then k-means.
Linear in n: no n x n co-association matrix is built.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from core.data.dataset import DataError
from core.numerics.kmeans import kmeans_labels
from core.numerics.metrics import adjusted_rand
from core.numerics.spectral import top_left_singular_vectors

__all__ = ["Consensus", "agreement_matrix", "cluster_eci", "consensus_partition"]


def agreement_matrix(partitions: Sequence[np.ndarray]) -> np.ndarray:
    """(M, M) pairwise adjusted Rand index between runs (1 on the diagonal)."""
    m = len(partitions)
    out = np.eye(m)
    for i in range(m):
        for j in range(i + 1, m):
            out[i, j] = out[j, i] = adjusted_rand(partitions[i], partitions[j])
    return out


def _indicator(partitions: Sequence[np.ndarray]) -> tuple[sp.csr_matrix, np.ndarray]:
    """n x (total clusters) membership matrix and the run of each column."""
    n = partitions[0].size
    blocks, runs = [], []
    for r, p in enumerate(partitions):
        _, codes = np.unique(p, return_inverse=True)
        k = int(codes.max()) + 1
        blocks.append(sp.csr_matrix((np.ones(n), (np.arange(n), codes)), shape=(n, k)))
        runs.append(np.full(k, r))
    return sp.hstack(blocks).tocsr(), np.concatenate(runs)


def cluster_eci(partitions: Sequence[np.ndarray], theta: float = 0.4) -> np.ndarray:
    """ECI of every cluster of every run (columns of the membership matrix, in order)."""
    b, runs = _indicator(partitions)
    overlap = np.asarray((b.T @ b).todense(), dtype=np.float64)  # cluster x cluster sizes
    size = np.diag(overlap).copy()
    p = overlap / np.maximum(size[:, None], 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = np.where(p > 0, -p * np.log2(p), 0.0)
    # the entropy of C across the clusters of each other run, summed over runs
    entropy = h.sum(axis=1) - np.array([h[i, runs == runs[i]].sum() for i in range(h.shape[0])])
    return np.exp(-entropy / (theta * len(partitions)))


@dataclass
class Consensus:
    labels: np.ndarray
    agreement: np.ndarray  # pairwise ARI between the runs
    with_consensus: np.ndarray  # ARI of each run with the consensus
    eci: np.ndarray


def consensus_partition(
    partitions: Sequence[np.ndarray], n_clusters: int, *, theta: float = 0.4, seed: int = 0
) -> Consensus:
    """LWGP consensus of ``partitions`` (each (n,) labels of the same samples)."""
    parts = [np.asarray(p, dtype=np.int64).ravel() for p in partitions]
    if len(parts) < 2:
        raise DataError("a consensus needs at least two runs")
    if len({p.size for p in parts}) != 1:
        raise DataError("the runs label different numbers of samples: choose runs of one dataset")
    b, _ = _indicator(parts)
    eci = cluster_eci(parts, theta)
    graph = b @ sp.diags(eci)
    # transfer cut: the bipartite graph's sample side through D^-1/2 (rows) and the
    # cluster degrees (columns), as in an anchor graph's normalised embedding
    row = np.asarray(graph.sum(axis=1)).ravel()
    col = np.asarray(graph.sum(axis=0)).ravel()
    zhat = (
        sp.diags(1 / np.sqrt(np.maximum(row, 1e-300)))
        @ graph
        @ sp.diags(1 / np.sqrt(np.maximum(col, 1e-300)))
    )
    rng = np.random.default_rng(seed)
    emb = top_left_singular_vectors(sp.csr_matrix(zhat), n_clusters, rng)
    labels = kmeans_labels(emb, n_clusters, rng)
    return Consensus(
        labels=labels,
        agreement=agreement_matrix(parts),
        with_consensus=np.array([adjusted_rand(p, labels) for p in parts]),
        eci=eci,
    )
