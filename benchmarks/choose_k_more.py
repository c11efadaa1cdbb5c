"""More label-free criteria for k, scored by benchmarks/choose_k_criteria.py (2026-11-25).

Each function returns the k it picks in ``ks`` (2 .. k_hi). They test directions the default
estimator (``core.numerics.n_clusters``) does not take:

* ``knn_log_gap``: a sample-level kNN graph (20 neighbours, binary, per-view normalised graphs
  averaged) on at most 2000 rows instead of the anchor graph, read by the largest log-gap;
* ``fixed_point``: a k-dependent anchor graph (m = 8k anchors, a power of 2 in 64..256): guess
  k, rebuild, re-read the gap, until k repeats;
* ``gmm_bic``: the BIC of a full-covariance Gaussian mixture on the spectral embedding;
* ``gap_statistic``: Tibshirani, Walther & Hastie (2001) on a PCA-20 of the scaled views;
* ``cross_view``: each view clustered alone at k; mean pairwise ARI between the views;
* ``gap_times_stability``: normalised eigengap x (subsample stability)^4 over the full range;
* ``seed_median``: the median of the default estimate over anchor seeds 0-4.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import scipy.sparse as sp
from sklearn.cluster import KMeans
from sklearn.mixture import GaussianMixture
from sklearn.neighbors import NearestNeighbors

from core.numerics.graphs import normalize_anchor_graph
from core.numerics.kmeans import kmeans_labels
from core.numerics.metrics import adjusted_rand
from core.numerics.n_clusters import (
    _stability,
    anchor_graph_spectrum,
    estimate_n_clusters,
    multiview_anchor_graph,
)

MORE = ("kNN-graph log-gap", "fixed point 8k anchors", "GMM-BIC", "gap statistic")
MORE += ("cross-view ARI", "gap x stability^4", "median of 5 seeds")


def _dense(x, rows: np.ndarray) -> np.ndarray:
    x = x[rows]
    return x.toarray() if sp.issparse(x) else np.asarray(x, dtype=float)


def knn_log_gap(views, rows: np.ndarray, ks: list[int], n_neighbors: int = 20) -> int:
    graphs = []
    for x in views:
        xr = _dense(x, rows)
        k = min(n_neighbors, xr.shape[0] - 1)
        idx = NearestNeighbors(n_neighbors=k + 1).fit(xr).kneighbors(xr)[1][:, 1:]
        s = xr.shape[0]
        w = sp.csr_matrix((np.ones(s * k), (np.repeat(np.arange(s), k), idx.ravel())), (s, s))
        w = w.maximum(w.T)
        dh = sp.diags(1 / np.sqrt(np.asarray(w.sum(1)).ravel()))
        graphs.append(dh @ w @ dh)
    a = (sum(graphs) / len(graphs)).toarray()
    vals = np.clip(np.linalg.eigvalsh((a + a.T) / 2)[::-1], 1e-6, None)
    ks_arr = np.array(ks)
    return int(ks_arr[np.argmax(np.log(vals[ks_arr - 1]) - np.log(vals[ks_arr]))])


def _gap_k(views, m: int, ks: list[int]) -> int:
    vals, _ = anchor_graph_spectrum(multiview_anchor_graph(views, m, 5, np.random.default_rng(0)))
    ks_arr = np.array([k for k in ks if k < vals.size - 1 and k <= m // 2])
    return int(ks_arr[np.argmax(vals[ks_arr - 1] - vals[ks_arr])])


def fixed_point(views, ks: list[int], first: int, per_cluster: int = 8) -> int:
    n = views[0].shape[0]
    k = first
    for _ in range(5):
        m = int(np.clip(2 ** np.ceil(np.log2(per_cluster * k)), 64, 256))
        k_new = _gap_k(views, min(m, 2 ** int(np.log2(n))), ks)
        if k_new == k:
            break
        k = k_new
    return k


def gmm_bic(emb: np.ndarray, ks: list[int]) -> int:
    bic = []
    for k in ks:
        g = GaussianMixture(k, covariance_type="full", n_init=2, random_state=0, reg_covar=1e-4)
        bic.append(g.fit(emb).bic(emb))
    return ks[int(np.argmin(bic))]


def gap_statistic(views, rows: np.ndarray, ks: list[int], n_refs: int = 5) -> int:
    """The smallest k with gap(k) >= gap(k+1) - s(k+1), reference uniform in the PCA box."""
    xs = [_dense(x, rows) for x in views]
    x = np.hstack([v / np.sqrt(max((v**2).sum(1).mean(), 1e-12)) for v in xs])
    x -= x.mean(0)
    u, s, _ = np.linalg.svd(x, full_matrices=False)
    x = u[:, :20] * s[:20]
    rng = np.random.default_rng(0)
    refs = [rng.uniform(x.min(0), x.max(0), size=x.shape) for _ in range(n_refs)]
    gap, sd = [], []
    for k in ks:
        logw = np.log(KMeans(k, n_init=3, random_state=0).fit(x).inertia_)
        ref = [
            np.log(KMeans(k, n_init=1, random_state=b).fit(r).inertia_) for b, r in enumerate(refs)
        ]
        gap.append(np.mean(ref) - logw)
        sd.append(np.std(ref) * np.sqrt(1 + 1 / n_refs))
    for i in range(len(ks) - 1):
        if gap[i] >= gap[i + 1] - sd[i + 1]:
            return ks[i]
    return ks[-1]


def _embedding(views, m: int, rows: np.ndarray, dims: int) -> tuple[np.ndarray, np.ndarray]:
    z = multiview_anchor_graph(views, m, 5, np.random.default_rng(0))
    vals, vecs = anchor_graph_spectrum(z)
    emb = np.asarray(normalize_anchor_graph(z)[rows] @ vecs[:, :dims])
    return emb / np.sqrt(np.maximum(vals[:dims], 1e-12)), vals


def cross_view(views, m: int, rows: np.ndarray, ks: list[int]) -> int:
    if len(views) < 2:
        return ks[0]
    rng = np.random.default_rng(0)
    embs = [_embedding([x], m, rows, max(ks))[0] for x in views]
    score = {}
    for k in ks:
        labels = [kmeans_labels(e[:, :k], k, rng, n_init=3) for e in embs]
        score[k] = np.mean([adjusted_rand(a, b) for a, b in combinations(labels, 2)])
    return max(ks, key=score.get)


def gap_times_stability(emb: np.ndarray, vals: np.ndarray, ks: list[int]) -> int:
    rng = np.random.default_rng(0)
    gaps = {k: vals[k - 1] - vals[k] for k in ks}
    top = max(gaps.values())
    score = {k: gaps[k] / top * _stability(emb, k, rng, 6, 0.8) ** 4 for k in ks}
    return max(ks, key=score.get)


def seed_median(views, seeds: int = 5) -> int:
    return int(np.median([estimate_n_clusters(views, s).k for s in range(seeds)]))


def more_picks(views, emb: np.ndarray, vals: np.ndarray, m: int, ks: list[int], eigengap: int):
    """Every criterion above for one file (emb: anchor spectral embedding of the rows)."""
    n = views[0].shape[0]
    rows = np.sort(np.random.default_rng(0).choice(n, size=min(n, 2000), replace=False))
    return {
        "kNN-graph log-gap": knn_log_gap(views, rows, ks),
        "fixed point 8k anchors": fixed_point(views, ks, eigengap),
        "GMM-BIC": gmm_bic(emb[:, 1:], ks),
        "gap statistic": gap_statistic(views, rows, ks),
        "cross-view ARI": cross_view(views, m, rows, ks),
        "gap x stability^4": gap_times_stability(emb, vals, ks),
        "median of 5 seeds": seed_median(views),
    }
