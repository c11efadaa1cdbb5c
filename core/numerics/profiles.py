"""Cluster profiles: per cluster and view, the features that set it apart.

For every feature and cluster k (against all other samples): the means inside and outside,
a standardised mean difference (Cohen's d, pooled standard deviation), the Mann-Whitney U
test as the area under the curve AUC = U / (n_k n_rest) with a two-sided p-value from the
normal approximation with tie correction, and Benjamini-Hochberg q-values over the features
of one view and cluster.

Ranks are computed once per feature for all clusters at once, from the stored entries only:
a sparse column's implicit zeros form one tie group, so a text view is never densified.
Columns are processed in blocks (bounded memory); the sort is one ``lexsort`` per block.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import ndtr

from core.data.dataset import View

__all__ = ["ViewProfile", "bh_qvalues", "profile_view", "rank_sums"]

#: stored entries handled per block of columns (bounds the temporary arrays to ~1 GB)
BLOCK_ENTRIES = 20_000_000


def bh_qvalues(p: np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values along the last axis."""
    p = np.asarray(p, dtype=np.float64)
    m = p.shape[-1]
    order = np.argsort(p, axis=-1)
    ranked = np.take_along_axis(p, order, axis=-1) * m / np.arange(1, m + 1)
    q = np.minimum.accumulate(ranked[..., ::-1], axis=-1)[..., ::-1]
    out = np.empty_like(q)
    np.put_along_axis(out, order, np.minimum(q, 1.0), axis=-1)
    return out


def _entries(x: View, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, columns relative to lo, values) of the stored entries of columns lo..hi-1."""
    if sp.issparse(x):
        block = x[:, lo:hi].tocoo()
        return block.row, block.col, block.data.astype(np.float64)
    block = np.asarray(x[:, lo:hi], dtype=np.float64)
    rows, cols = np.indices(block.shape)
    return rows.ravel(), cols.ravel(), block.ravel()


def rank_sums(x: View, labels: np.ndarray, n_clusters: int) -> tuple[np.ndarray, np.ndarray]:
    """(c, d) rank sums of each cluster per feature (average ranks over all n samples) and
    (d,) tie terms sum(t^3 - t) per feature."""
    n, d = x.shape
    labels = np.asarray(labels, dtype=np.int64)
    counts = np.bincount(labels, minlength=n_clusters).astype(np.float64)
    sums = np.zeros((n_clusters, d))
    ties = np.zeros(d)
    if not sp.issparse(x):
        return _dense_rank_sums(np.asarray(x), labels, n_clusters)
    xc = x.tocsc()
    per_col = max(1, (x.nnz if sp.issparse(x) else n * d) // max(d, 1))
    step = max(1, BLOCK_ENTRIES // max(per_col, 1))
    for lo in range(0, d, step):
        hi = min(d, lo + step)
        w = hi - lo
        rows, cols, vals = _entries(xc, lo, hi)
        order = np.lexsort((vals, cols))
        rows, cols, vals = rows[order], cols[order], vals[order]
        nnz = np.bincount(cols, minlength=w)
        zeros = n - nnz  # implicit zeros of each column: one tie group
        start = np.concatenate(([0], np.cumsum(nnz)[:-1]))
        pos = np.arange(vals.size) - start[cols]  # 0-based position among stored entries
        # tie groups of equal (column, value): average of their positions
        new = np.ones(vals.size, dtype=bool)
        new[1:] = (cols[1:] != cols[:-1]) | (vals[1:] != vals[:-1])
        gid = np.cumsum(new) - 1
        gsize = np.bincount(gid)
        gfirst = pos[new]
        avg = gfirst[gid] + (gsize[gid] - 1) / 2.0 + 1.0
        neg = np.bincount(cols, weights=(vals < 0), minlength=w)
        rank = avg + np.where(vals > 0, zeros[cols], 0)  # positives rank after the zeros
        zero_rank = neg + (zeros + 1) / 2.0
        key = labels[rows] * w + cols
        stored = np.bincount(key, weights=rank, minlength=n_clusters * w).reshape(n_clusters, w)
        in_k = np.bincount(key, minlength=n_clusters * w).reshape(n_clusters, w)
        sums[:, lo:hi] = stored + (counts[:, None] - in_k) * zero_rank[None, :]
        gcol = cols[new]
        t = gsize.astype(np.float64)
        ties[lo:hi] = np.bincount(gcol, weights=t**3 - t, minlength=w) + (zeros**3 - zeros)
    return sums, ties


def _dense_rank_sums(x: np.ndarray, labels: np.ndarray, c: int) -> tuple[np.ndarray, np.ndarray]:
    """Dense views: column blocks sorted along the samples (no per-entry keys)."""
    n, d = x.shape
    ind = sp.csr_matrix((np.ones(n), (labels, np.arange(n))), shape=(c, n))
    sums, ties = np.zeros((c, d)), np.zeros(d)
    step = max(1, BLOCK_ENTRIES // 4 // max(n, 1))
    for lo in range(0, d, step):
        # one contiguous row per feature: sorting along rows is cache-friendly
        block = np.ascontiguousarray(x[:, lo : lo + step].T, dtype=np.float64)
        w = block.shape[0]
        order = np.argsort(block, axis=1)
        srt = np.take_along_axis(block, order, axis=1)
        new = np.ones(srt.shape, dtype=bool)
        new[:, 1:] = srt[:, 1:] != srt[:, :-1]
        flat_new = new.ravel()
        gid = np.cumsum(flat_new) - 1
        gsize = np.bincount(gid)
        starts = np.flatnonzero(flat_new)
        first = starts % n  # 0-based position of each tie group's start
        avg = (first + (gsize - 1) / 2.0 + 1.0)[gid].reshape(w, n)
        ranks = np.empty((w, n))
        np.put_along_axis(ranks, order, avg, axis=1)
        sums[:, lo : lo + w] = np.asarray(ranks @ ind.T).T
        t = gsize.astype(np.float64)
        gcol = starts // n
        ties[lo : lo + w] = np.bincount(gcol, weights=t**3 - t, minlength=w)
    return sums, ties


def _moments(x: View, labels: np.ndarray, c: int) -> tuple[np.ndarray, np.ndarray]:
    """(c, d) sums and sums of squares per cluster."""
    ind = sp.csr_matrix((np.ones(labels.size), (labels, np.arange(labels.size))), (c, labels.size))
    s1 = ind @ x
    s2 = ind @ (x.multiply(x) if sp.issparse(x) else x * x)

    def dense(a):
        return np.asarray(a.todense()) if sp.issparse(a) else np.asarray(a)

    return dense(s1), dense(s2)


@dataclass
class ViewProfile:
    """Per cluster (rows) and feature (columns) of one view."""

    mean_in: np.ndarray
    mean_out: np.ndarray
    effect: np.ndarray  # Cohen's d
    auc: np.ndarray  # P(a sample of the cluster > one outside), ties count 1/2
    p: np.ndarray
    q: np.ndarray
    standardized_means: np.ndarray  # (mean_k - overall mean) / overall sd

    def top(self, cluster: int, k: int = 10, alpha: float = 0.05) -> np.ndarray:
        """Features that set ``cluster`` apart (q < alpha), highest effect first."""
        e = np.where(self.q[cluster] < alpha, self.effect[cluster], -np.inf)
        order = np.argsort(-e, kind="stable")[:k]
        return order[np.isfinite(e[order])]


def profile_view(
    x: View, labels: Sequence[int] | np.ndarray, n_clusters: int | None = None
) -> ViewProfile:
    """Cluster profiles of one view (n x d, dense or CSR) for ``labels`` (0..c-1)."""
    labels = np.asarray(labels, dtype=np.int64)
    c = int(n_clusters or labels.max() + 1)
    n = labels.size
    counts = np.bincount(labels, minlength=c).astype(np.float64)
    s1, s2 = _moments(x, labels, c)
    t1, t2 = s1.sum(axis=0), s2.sum(axis=0)
    rest = np.maximum(n - counts, 1)[:, None]
    nk = np.maximum(counts, 1)[:, None]
    mean_in, mean_out = s1 / nk, (t1 - s1) / rest
    var_in = np.maximum(s2 / nk - mean_in**2, 0)
    var_out = np.maximum((t2 - s2) / rest - mean_out**2, 0)
    pooled = np.sqrt((nk * var_in + rest * var_out) / (nk + rest))
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = np.where(pooled > 0, (mean_in - mean_out) / pooled, 0.0)
    sums, ties = rank_sums(x, labels, c)
    no = n - counts[:, None]
    u = sums - counts[:, None] * (counts[:, None] + 1) / 2
    mu = counts[:, None] * no / 2
    var = counts[:, None] * no / 12 * ((n + 1) - ties[None, :] / (n * (n - 1)))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(var > 0, (u - mu) / np.sqrt(np.maximum(var, 1e-300)), 0.0)
        auc = np.where(no * counts[:, None] > 0, u / (counts[:, None] * no), 0.5)
    p = np.minimum(2 * ndtr(-np.abs(z)), 1.0)
    mean_all = t1 / n
    sd_all = np.sqrt(np.maximum(t2 / n - mean_all**2, 0))
    with np.errstate(divide="ignore", invalid="ignore"):
        std_means = np.where(sd_all > 0, (mean_in - mean_all) / sd_all, 0.0)
    return ViewProfile(mean_in, mean_out, effect, auc, p, bh_qvalues(p), std_means)
