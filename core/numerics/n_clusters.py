"""Estimating the number of clusters without labels from multi-view anchor graphs.

The normalised sample graph of an anchor graph Z (n x m, rows summing to 1) is
S = Z Δ⁻¹ Zᵀ with Δ = diag(1ᵀZ); its non-zero eigenvalues are those of the m x m matrix
Δ^-1/2 ZᵀZ Δ^-1/2, so the spectrum costs O(n m²) to form and O(m³) to decompose at any n.
k well-separated clusters give k eigenvalues near 1 and a gap after them (the eigengap
heuristic, as in SNF's ``get_n_clusters``).

One graph of 64 anchors cannot show more than a few dozen clusters, and its largest gap is
most often the first one (k = 2, 3: the estimate was biased low). So the graph is built at
several scales, m = 64, 128, ... up to min(1024, n / 2) anchors; at scale m a gap is read only
for k <= m / 4 (a cluster needs a few anchors of its own), divided by that scale's largest gap,
and the scales that can see k are averaged: a drop that stays at several resolutions is
structure, one that comes and goes is noise. The score is multiplied by k^0.1, a slight
counterweight to the first drops being the largest. The three highest scores are the
candidates; each candidate's spectral embedding is clustered on random subsamples (mean
pairwise ARI on the shared rows: stability, as consensus clustering's resampling does).
Among candidates scoring at least 0.3 of the best, the largest k whose stability reaches 0.9
is ranked first (a smaller stable k is usually a merge of clusters), then the others by
stability. The second and third shown are the estimate's neighbours k - 1 and k + 1: its
misses on the shared files are mostly one off, so they hold the true k more often than the
distinct alternatives shown before (``alternatives="distinct"``: the next best peaks at least
2 apart). The neighbour count, the weight, the thresholds and the alternatives were chosen
on the shared labelled files, among the rules that get three constructions of 40 and 100
classes within 25 %; the figures held out by file are in docs/benchmarks/choose_k.md.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import scipy.sparse as sp

from core.data.blocks import is_source
from core.data.dataset import DataError, View
from core.numerics.anchors import bkhk_steps, group_means
from core.numerics.graphs import normalize_anchor_graph, pkn_anchor_graph
from core.numerics.k_estimate import describe_estimate, ranked_candidates
from core.numerics.kmeans import kmeans_labels
from core.numerics.metrics import adjusted_rand
from core.numerics.steps import drain

__all__ = [
    "KEstimate",
    "ScaleSpectra",
    "anchor_graph_spectrum",
    "anchor_scales",
    "choose_candidate",
    "describe_estimate",
    "distinct_shown",
    "estimate_n_clusters",
    "gap_score_curve",
    "neighbours_shown",
    "rank_candidates",
    "ranked_candidates",
    "scale_spectra",
]

#: largest anchor count of the multi-scale spectrum (an eigendecomposition of m x m)
MAX_ANCHORS = 1024
#: at scale m (> the smallest) a gap is read for k <= m / SCALE_SHARE
SCALE_SHARE = 4
#: largest k ever proposed (1024 / 4); also at most n / 5
MAX_K = MAX_ANCHORS // SCALE_SHARE
#: the best gap scores the shown alternatives may come from
POOL = 6


@dataclass
class KEstimate:
    """The estimated number of clusters and the evidence behind it.

    k : the estimate; runner_up : the second candidate; ranked : the candidates, best first
    (``ranked[0] == k``); scores : the gap score of each ranked candidate (1 = the best);
    eigenvalues : the normalised anchor-graph spectrum of the scale k is read at, descending
    (eigenvalues[0] = 1); curve, curve_k0 : the gap score of k = curve_k0, curve_k0 + 1, ...
    (what the candidates are the peaks of); scales : the anchor counts used;
    candidates, gaps, stability : the candidates compared, in gap-score order, then any
    alternative shown that was not among them (a neighbour of k, or a distinct peak), with
    their gap score and stability (mean pairwise ARI of subsample clusterings);
    seconds : time spent.

    Records written before the multi-scale estimator have no ranked / scores / curve /
    scales: ``core.numerics.k_estimate.ranked_candidates`` reads both.
    """

    k: int
    runner_up: int
    eigenvalues: np.ndarray
    candidates: list[int] = field(default_factory=list)
    gaps: list[float] = field(default_factory=list)
    stability: list[float] = field(default_factory=list)
    seconds: float = 0.0
    ranked: list[int] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    curve: list[float] = field(default_factory=list)
    curve_k0: int = 2
    scales: list[int] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "k": int(self.k),
            "runner_up": int(self.runner_up),
            "eigenvalues": [float(x) for x in self.eigenvalues],
            "candidates": [int(c) for c in self.candidates],
            "gaps": [float(g) for g in self.gaps],
            "stability": [float(s) for s in self.stability],
            "seconds": float(self.seconds),
            "ranked": [int(c) for c in self.ranked],
            "scores": [float(s) for s in self.scores],
            "curve": [float(s) for s in self.curve],
            "curve_k0": int(self.curve_k0),
            "scales": [int(m) for m in self.scales],
        }


def multiview_anchor_graph(
    views: Sequence[View], n_anchors: int, n_neighbors: int, rng: np.random.Generator
) -> sp.csr_matrix:
    """The average of the per-view PKN anchor graphs on shared BKHK groups (n x m)."""
    anchors, _ = drain(bkhk_steps(views, n_anchors, rng, space="auto"))
    return _averaged_graph(views, anchors, n_neighbors)


def _averaged_graph(
    views: Sequence[View], anchors: Sequence[np.ndarray], n_neighbors: int
) -> sp.csr_matrix:
    graphs = [pkn_anchor_graph(x, a, n_neighbors) for x, a in zip(views, anchors, strict=True)]
    return sp.csr_matrix(sum(graphs) / len(graphs))


def anchor_graph_spectrum(z: sp.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues (descending) and eigenvectors of Δ^-1/2 ZᵀZ Δ^-1/2 (m x m)."""
    zh = normalize_anchor_graph(z)
    gram = (zh.T @ zh).toarray()
    vals, vecs = np.linalg.eigh((gram + gram.T) / 2)
    order = np.argsort(vals)[::-1]
    return np.clip(vals[order], 0.0, None), vecs[:, order]


def anchor_scales(n: int, k_min: int = 2, max_anchors: int = MAX_ANCHORS) -> list[tuple[int, int]]:
    """(anchors m, largest k read at m) per scale for n samples: 64, 128, ... <= n / 2 with
    k <= m / 4; below 128 samples one graph of the largest power of 2 <= min(n, 64)
    anchors read up to m / 2 (as many anchors as the data allow)."""
    k_cap = max(k_min + 1, min(n // 5, MAX_K))
    if n < 128:
        m = 2 ** int(np.floor(np.log2(min(n, 64))))
        return [(m, max(k_min, min(m // 2, k_cap)))]
    scales, m = [], 64
    while m <= min(max_anchors, n // 2):
        scales.append((m, max(k_min, min(m // SCALE_SHARE, k_cap))))
        m *= 2
    return scales


def gap_score_curve(
    spectra: Sequence[np.ndarray], highs: Sequence[int], k_min: int, size_weight: float
) -> np.ndarray:
    """Gap score of k = k_min .. max(highs): at each scale the gap after k divided by that
    scale's largest gap in its range, averaged over the scales that read k, times
    k ** size_weight."""
    k_hi = max(highs)
    total = np.zeros(k_hi - k_min + 1)
    count = np.zeros_like(total)
    for vals, hi in zip(spectra, highs, strict=True):
        hi = min(hi, vals.size - 1)
        if hi < k_min:
            continue
        ks = np.arange(k_min, hi + 1)
        gaps = np.maximum(vals[ks - 1] - vals[ks], 0.0)  # after the k-th eigenvalue
        top = gaps.max()
        total[: ks.size] += gaps / top if top > 0 else gaps
        count[: ks.size] += 1
    ks = np.arange(k_min, k_hi + 1)
    return np.where(count > 0, total / np.maximum(count, 1), 0.0) * ks**size_weight


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


def rank_candidates(
    candidates: Sequence[int],
    gaps: Sequence[float],
    stability: Sequence[float],
    min_gap_share: float = 0.5,
    min_stability: float = 0.8,
) -> list[int]:
    """Indices of the candidates (ordered by gap score, largest first), best first.

    A gap must be a real one (>= ``min_gap_share`` of the largest); among those, the largest k
    whose clusterings are stable (>= ``min_stability``; a smaller stable k is usually a merge
    of clusters), then the most stable; candidates with a small gap come last.
    """
    idx = range(len(candidates))
    eligible = [i for i in idx if gaps[i] >= min_gap_share * gaps[0]]
    stable = [i for i in eligible if stability[i] >= min_stability]
    stable.sort(key=lambda i: -candidates[i])
    rest = sorted((i for i in eligible if i not in stable), key=lambda i: (-stability[i], i))
    return stable + rest + [i for i in idx if i not in eligible]


def choose_candidate(
    candidates: Sequence[int],
    gaps: Sequence[float],
    stability: Sequence[float],
    min_gap_share: float = 0.5,
    min_stability: float = 0.8,
) -> tuple[int, int]:
    """The chosen k and its runner-up (:func:`rank_candidates`'s first two)."""
    ranked = rank_candidates(candidates, gaps, stability, min_gap_share, min_stability)
    runner = ranked[1] if len(ranked) > 1 else ranked[0]
    return int(candidates[ranked[0]]), int(candidates[runner])


def distinct_shown(
    ranked: Sequence[int], pool: Sequence[int], n_shown: int = 3, min_apart: int = 2
) -> list[int]:
    """``ranked`` reordered so that its first ``n_shown`` differ pairwise by at least
    ``min_apart``, filled from ``ranked`` then ``pool`` (next best gap scores): 9 and 11 shown
    next to 10 say little a user can act on, a distinct alternative does. The first stays."""
    shown = [int(ranked[0])]
    for k in [*ranked[1:], *(k for k in pool if k not in ranked)]:
        if len(shown) < n_shown and all(abs(k - j) >= min_apart for j in shown):
            shown.append(int(k))
    return shown + [int(k) for k in ranked if k not in shown]


def neighbours_shown(ranked: Sequence[int], k_min: int, k_max: int, n_shown: int = 3) -> list[int]:
    """``ranked`` reordered so that its first is followed by its nearest neighbours within
    [k_min, k_max] (k - 1, k + 1, then k - 2, k + 2, ...): the estimate with the band a
    one-off miss falls in. Then the rest of ``ranked``."""
    first = int(ranked[0])
    shown = [first]
    for step in range(1, max(k_max - k_min, 0) + 1):
        for k in (first - step, first + step):
            if k_min <= k <= k_max and len(shown) < n_shown:
                shown.append(k)
    return shown + [int(k) for k in ranked if k not in shown]


#: how the alternatives to the estimate are chosen (``estimate_n_clusters(alternatives=)``)
ALTERNATIVES = ("neighbours", "distinct")


@dataclass
class ScaleSpectra:
    """The anchor graphs of every scale and their spectra, computed once per data set.

    scales : anchor counts m; highs : the largest k read at each scale; values, vectors :
    each scale's spectrum (descending); graphs : each scale's n x m anchor graph (on the
    graph rows); rows : the rows whose spectral embedding the stability clusters;
    seed : the entropy every candidate's stability is seeded from.
    """

    scales: list[int]
    highs: list[int]
    values: list[np.ndarray]
    vectors: list[np.ndarray]
    graphs: list[sp.csr_matrix]
    rows: np.ndarray
    k_min: int
    seed: int

    def scale_of(self, k: int) -> int:
        """Index of the smallest scale that reads k (the largest when none does)."""
        return next((i for i, h in enumerate(self.highs) if k <= h), len(self.highs) - 1)

    def curve(self, size_weight: float) -> np.ndarray:
        """Gap score of k = k_min, k_min + 1, ... (:func:`gap_score_curve`)."""
        return gap_score_curve(self.values, self.highs, self.k_min, size_weight)

    def stability(self, k: int, n_rounds: int = 6) -> float:
        """Subsample stability of k on the embedding of the scale that reads it; seeded by
        (seed, k), so a candidate's stability does not depend on the others'."""
        s = self.scale_of(k)
        vals, vecs = self.values[s], self.vectors[s]
        zh = normalize_anchor_graph(self.graphs[s])[self.rows]
        emb = np.asarray(zh @ vecs[:, :k]) / np.sqrt(np.maximum(vals[:k], 1e-12))
        return _stability(emb, k, np.random.default_rng([self.seed, k]), n_rounds, 0.8)


def scale_spectra(
    views: Sequence[View],
    random_state: int | None = 0,
    *,
    k_min: int = 2,
    k_max: int | None = None,
    n_anchors: int | None = None,
    n_neighbors: int = 5,
    graph_rows: int = 20_000,
    max_rows: int = 3000,
) -> ScaleSpectra:
    """The multi-scale anchor graphs and spectra of :func:`estimate_n_clusters`."""
    n = views[0].shape[0]
    if n < 2 * k_min + 1:
        raise DataError(
            f"{n} samples are too few to estimate the number of clusters (at least "
            f"{2 * k_min + 1} are needed): give the number of clusters (--n-clusters K)"
        )
    seed = int(np.random.SeedSequence(random_state).generate_state(1)[0])
    rng = np.random.default_rng(seed)
    if n > graph_rows:
        keep = np.sort(rng.choice(n, size=graph_rows, replace=False))
        views = [x[keep] for x in views]
    else:  # views read in row blocks (streamed): these <= graph_rows rows, in memory
        views = [x[:] if is_source(x) else x for x in views]
    n_graph = views[0].shape[0]
    if n_anchors:
        scales = [(n_anchors, max(k_min, min(n_anchors // 2, max(k_min + 1, n // 5))))]
    else:
        scales = anchor_scales(n_graph, k_min)
    if k_max:
        scales = [(m, max(k_min, min(hi, k_max))) for m, hi in scales]
    values, vectors, graphs, highs = [], [], [], []
    # one BKHK tree to the largest scale: a scale of 2^L anchors is its level L, exactly the
    # tree a build of 2^L anchors from the same seed would give (the levels are grown in order)
    levels: list[list[np.ndarray]] = []
    drain(
        bkhk_steps(
            views,
            max(m for m, _ in scales),
            np.random.default_rng(seed),
            space="auto",
            level_groups=levels,
        )
    )
    for m, hi in scales:
        anchors = group_means(views, levels[int(np.log2(m)) - 1])
        z = _averaged_graph(views, anchors, n_neighbors)
        vals, vecs = anchor_graph_spectrum(z)
        values.append(vals)
        vectors.append(vecs)
        graphs.append(z)
        highs.append(max(k_min, min(hi, vals.size - 1)))
    rows = rng.choice(n_graph, size=min(n_graph, max_rows), replace=False)
    return ScaleSpectra([m for m, _ in scales], highs, values, vectors, graphs, rows, k_min, seed)


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
    graph_rows: int = 20_000,
    size_weight: float = 0.1,
    min_gap_share: float = 0.3,
    min_stability: float = 0.9,
    alternatives: str = "neighbours",
) -> KEstimate:
    """Estimate the number of clusters of multi-view data (no labels needed).

    Parameters
    ----------
    views : the (preprocessed) views, n x d_v each, dense or sparse.
    random_state : seed of the anchors, the row samples and the subsample clusterings.
    k_min, k_max : range searched; ``k_max`` defaults to min(n / 5, 256), read at the
        scales that have m >= 4 k anchors (:func:`anchor_scales`).
    n_anchors : one graph of that many anchors (a power of 2 <= n) read up to m / 2, instead
        of the multi-scale spectrum.
    n_neighbors : neighbours per sample in each view's anchor graph.
    n_candidates : the highest gap scores compared by stability (and shown).
    n_rounds : subsample clusterings per candidate (80 % of at most ``max_rows`` rows).
    graph_rows : the graphs are built on at most this many random rows (k <= 256 needs no
        more; keeps the estimate at seconds for any n).
    size_weight : the gap score is multiplied by k ** size_weight.
    min_gap_share, min_stability : among candidates scoring at least ``min_gap_share`` of
        the best, the largest k whose mean pairwise ARI reaches ``min_stability`` is ranked
        first (then by stability). n_neighbors, size_weight, n_candidates and these two
        were chosen leave-one-file-out (benchmarks/choose_k.py, docs/benchmarks/choose_k.md).
    alternatives : what follows the estimate in ``ranked``: ``"neighbours"`` (k - 1, k + 1)
        or ``"distinct"`` (the next best peaks, at least 2 apart: :func:`distinct_shown`).

    Returns
    -------
    KEstimate with ``k``, ``runner_up``, the ranked candidates and their evidence.
    """
    if alternatives not in ALTERNATIVES:
        raise ValueError(f"alternatives must be one of {ALTERNATIVES}, got {alternatives!r}")
    t0 = time.perf_counter()
    spectra = scale_spectra(
        views,
        random_state,
        k_min=k_min,
        k_max=k_max,
        n_anchors=n_anchors,
        n_neighbors=n_neighbors,
        graph_rows=graph_rows,
        max_rows=max_rows,
    )
    curve = spectra.curve(size_weight)
    order = np.argsort(-curve, kind="stable")[: max(n_candidates, POOL)]
    top = curve[order[0]]
    pool = [int(k_min + i) for i in order]
    pool_scores = [float(curve[i] / top) if top > 0 else 0.0 for i in order]
    cands, cand_scores = pool[:n_candidates], pool_scores[:n_candidates]
    stab = [spectra.stability(k, n_rounds) for k in cands]
    ranked_idx = rank_candidates(cands, cand_scores, stab, min_gap_share, min_stability)
    by_rule = [cands[i] for i in ranked_idx]
    if alternatives == "distinct":
        ranked = distinct_shown(by_rule, pool)
    else:
        ranked = neighbours_shown(by_rule, k_min, k_min + curve.size - 1)
    for k in ranked:  # an alternative that was not a candidate: its evidence too
        if k not in cands:
            cands.append(k)
            cand_scores.append(float(curve[k - k_min] / top) if top > 0 else 0.0)
            stab.append(spectra.stability(k, n_rounds))
    k = ranked[0]
    shown = spectra.scale_of(k)
    vals = spectra.values[shown]
    return KEstimate(
        k=k,
        runner_up=ranked[1] if len(ranked) > 1 else k,
        eigenvalues=vals[: min(vals.size, spectra.highs[shown] + 2)].copy(),
        candidates=cands,
        gaps=cand_scores,
        stability=stab,
        seconds=time.perf_counter() - t0,
        ranked=ranked,
        scores=[cand_scores[cands.index(k)] for k in ranked],
        curve=[float(x) for x in curve],
        curve_k0=k_min,
        scales=spectra.scales,
    )
