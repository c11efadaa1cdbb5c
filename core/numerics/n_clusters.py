"""Estimating the number of clusters without labels from the multi-view anchor graph.

The normalised sample graph of an anchor graph Z (n x m, rows summing to 1) is
S = Z Δ⁻¹ Zᵀ with Δ = diag(1ᵀZ); its non-zero eigenvalues are those of the m x m matrix
Δ^-1/2 ZᵀZ Δ^-1/2, so the spectrum costs O(n m²) to form and O(m³) to decompose at any n.
k well-separated clusters give k eigenvalues near 1 and a gap after them (the eigengap
heuristic). The largest gaps are candidates; each candidate's spectral embedding is then
clustered on random subsamples (mean pairwise ARI on the shared rows: stability). Among the
candidates with a gap at least half the largest, the largest stable k wins.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import scipy.sparse as sp

from core.data.dataset import DataError, View
from core.numerics.anchors import bkhk_steps
from core.numerics.graphs import normalize_anchor_graph, pkn_anchor_graph
from core.numerics.kmeans import kmeans_labels
from core.numerics.metrics import adjusted_rand
from core.numerics.steps import drain

__all__ = ["KEstimate", "anchor_graph_spectrum", "choose_candidate", "estimate_n_clusters"]


@dataclass
class KEstimate:
    """The estimated number of clusters and the evidence behind it.

    k : the estimate; runner_up : the second-best candidate;
    eigenvalues : the normalised anchor-graph spectrum, descending (eigenvalues[0] = 1);
    candidates : the k values that were compared; gaps : eigenvalue gap after each candidate;
    stability : mean pairwise ARI of subsample clusterings per candidate; seconds : time spent.
    """

    k: int
    runner_up: int
    eigenvalues: np.ndarray
    candidates: list[int] = field(default_factory=list)
    gaps: list[float] = field(default_factory=list)
    stability: list[float] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {
            "k": int(self.k),
            "runner_up": int(self.runner_up),
            "eigenvalues": [float(x) for x in self.eigenvalues],
            "candidates": [int(c) for c in self.candidates],
            "gaps": [float(g) for g in self.gaps],
            "stability": [float(s) for s in self.stability],
            "seconds": float(self.seconds),
        }


def multiview_anchor_graph(
    views: Sequence[View], n_anchors: int, n_neighbors: int, rng: np.random.Generator
) -> sp.csr_matrix:
    """The average of the per-view PKN anchor graphs on shared BKHK groups (n x m)."""
    anchors, _ = drain(bkhk_steps(views, n_anchors, rng, space="auto"))
    graphs = [pkn_anchor_graph(x, a, n_neighbors) for x, a in zip(views, anchors, strict=True)]
    return sp.csr_matrix(sum(graphs) / len(graphs))


def anchor_graph_spectrum(z: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues (descending) and eigenvectors of Δ^-1/2 ZᵀZ Δ^-1/2 (m x m)."""
    zh = normalize_anchor_graph(z)
    gram = (zh.T @ zh).toarray()
    vals, vecs = np.linalg.eigh((gram + gram.T) / 2)
    order = np.argsort(vals)[::-1]
    return np.clip(vals[order], 0.0, None), vecs[:, order]


def _stability(
    emb: np.ndarray, k: int, rng: np.random.Generator, n_rounds: int, frac: float
) -> float:
    """Mean pairwise ARI of k-means on random subsamples, compared on their shared rows."""
    n = emb.shape[0]
    size = max(k + 1, int(frac * n))
    runs = []
    for _ in range(n_rounds):
        rows = np.sort(rng.choice(n, size=size, replace=False))
        lab = np.full(n, -1)
        lab[rows] = kmeans_labels(emb[rows, :k], k, rng, n_init=1)  # one start: shows instability
        runs.append(lab)
    scores = []
    for a, b in combinations(runs, 2):
        both = (a >= 0) & (b >= 0)
        scores.append(adjusted_rand(a[both], b[both]))
    return float(np.mean(scores))


def choose_candidate(
    candidates: Sequence[int],
    gaps: Sequence[float],
    stability: Sequence[float],
    min_gap_share: float = 0.5,
    min_stability: float = 0.8,
) -> tuple[int, int]:
    """The chosen k and its runner-up among eigengap candidates (ordered by gap, largest first).

    A gap must be a real one (>= ``min_gap_share`` of the largest); among those, the largest k
    whose clusterings are stable (>= ``min_stability``; a smaller stable k is usually a merge
    of clusters), then the most stable; candidates with a small gap come last.
    """
    idx = range(len(candidates))
    eligible = [i for i in idx if gaps[i] >= min_gap_share * gaps[0]]
    stable = [i for i in eligible if stability[i] >= min_stability]
    stable.sort(key=lambda i: -candidates[i])
    rest = sorted((i for i in eligible if i not in stable), key=lambda i: (-stability[i], i))
    ranked = stable + rest + [i for i in idx if i not in eligible]
    runner = ranked[1] if len(ranked) > 1 else ranked[0]
    return int(candidates[ranked[0]]), int(candidates[runner])


def estimate_n_clusters(
    views: Sequence[View],
    random_state: int | None = 0,
    *,
    k_min: int = 2,
    k_max: int | None = None,
    n_anchors: int | None = None,
    n_neighbors: int = 5,
    n_candidates: int = 3,
    n_rounds: int = 6,
    max_rows: int = 3000,
    min_gap_share: float = 0.5,
    min_stability: float = 0.8,
) -> KEstimate:
    """Estimate the number of clusters of multi-view data (no labels needed).

    Parameters
    ----------
    views : the (preprocessed) views, n x d_v each, dense or sparse.
    random_state : seed of the anchors and of the subsample clusterings.
    k_min, k_max : range searched; ``k_max`` defaults to min(50, m / 2, n / 5).
    n_anchors : a power of 2 <= n; default the largest power of 2 <= min(n, 64):
        few anchors give a cleaner spectrum (64 against 128-512 on the shared files).
    n_neighbors : neighbours per sample in each view's anchor graph.
    n_candidates : the largest eigengaps compared by stability.
    n_rounds : subsample clusterings per candidate (80 % of at most ``max_rows`` rows).
    min_gap_share : a candidate is eligible only if its gap is at least this share of the
        largest gap.
    min_stability : among eligible candidates the largest k whose mean pairwise ARI reaches
        this is chosen (else the most stable): stability alone favours small k, since
        merging true clusters is stable too. Chosen on the shared benchmark files
        (docs/benchmarks/choose_k.md), so read those figures as fitted, not held out.

    Returns
    -------
    KEstimate with ``k``, ``runner_up`` and the eigenvalue curve.
    """
    import time

    t0 = time.perf_counter()
    n = views[0].shape[0]
    if n < 2 * k_min + 1:
        raise DataError(
            f"{n} samples are too few to estimate the number of clusters (at least "
            f"{2 * k_min + 1} are needed): give the number of clusters (--n-clusters K)"
        )
    rng = np.random.default_rng(random_state)
    m = n_anchors or 2 ** int(np.floor(np.log2(min(n, 64))))
    z = multiview_anchor_graph(views, m, n_neighbors, rng)
    vals, vecs = anchor_graph_spectrum(z)
    hi = k_max or int(min(50, m // 2, max(k_min + 1, n // 5)))
    hi = max(k_min, min(hi, vals.size - 1))
    gaps = vals[k_min - 1 : hi] - vals[k_min : hi + 1]  # gaps[i]: after k = k_min + i
    ks = np.arange(k_min, hi + 1)
    order = np.argsort(gaps)[::-1][:n_candidates]
    cands = [int(ks[i]) for i in order]
    cand_gaps = [float(gaps[i]) for i in order]
    # the samples' spectral embedding Ẑ V Σ^-1/2 on a subsample of rows
    rows = rng.choice(n, size=min(n, max_rows), replace=False)
    top = max(cands)
    zh = normalize_anchor_graph(z)[rows]
    emb = np.asarray(zh @ vecs[:, :top]) / np.sqrt(np.maximum(vals[:top], 1e-12))
    stab = [_stability(emb, k, rng, n_rounds, 0.8) for k in cands]
    k, runner_up = choose_candidate(cands, cand_gaps, stab, min_gap_share, min_stability)
    return KEstimate(
        k=k,
        runner_up=runner_up,
        eigenvalues=vals[: hi + 2].copy(),
        candidates=cands,
        gaps=cand_gaps,
        stability=stab,
        seconds=time.perf_counter() - t0,
    )
