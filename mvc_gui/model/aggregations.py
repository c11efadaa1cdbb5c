"""Display aggregations (Qt-free): the anchor-graph heat map and the confusion matrix.

Both are computed in worker threads so the GUI thread only uploads small arrays.
Heat-map ordering follows the common spec §10: rows sorted by predicted cluster (then by
index), columns by the cluster that receives the largest share of each anchor's mass
(``argmax_l sum_{i: y_i = l} Z_ij / n_l``), rows averaged to at most ``max_rows`` display
rows without mixing clusters.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment

__all__ = ["HeatMap", "confusion", "heatmap_image"]


@dataclass(frozen=True)
class HeatMap:
    image: np.ndarray  # (rows, m) float32, row-major
    row_cluster: np.ndarray | None  # cluster of each display row (None: unsorted)
    col_cluster: np.ndarray | None  # dominant cluster of each displayed column
    n_samples: int
    levels: tuple[float, float]


def _indicator(labels: np.ndarray, k: int, weights: np.ndarray) -> sp.csr_matrix:
    n = labels.size
    return sp.csr_matrix((weights, (labels, np.arange(n))), shape=(k, n))


def heatmap_image(
    graph: sp.spmatrix | np.ndarray, labels: np.ndarray | None, max_rows: int = 1000
) -> HeatMap:
    """Sorted, row-aggregated image of an n x m anchor graph."""
    z = sp.csr_matrix(graph, dtype=np.float64) if sp.issparse(graph) else np.asarray(graph)
    n, m = z.shape
    if labels is None or labels.size != n:
        seg_labels = np.zeros(n, dtype=np.int64)
        order = np.arange(n)
        col_cluster = None
        col_order = np.arange(m)
    else:
        seg_labels = np.asarray(labels, dtype=np.int64)
        k = int(seg_labels.max()) + 1
        order = np.argsort(seg_labels, kind="stable")
        sizes = np.bincount(seg_labels, minlength=k).astype(np.float64)
        h = _indicator(seg_labels, k, 1.0 / sizes[seg_labels])
        share = h @ z  # k x m mean mass per cluster
        share = share.toarray() if sp.issparse(share) else np.asarray(share)
        dominant = np.argmax(share, axis=0)
        best = share[dominant, np.arange(m)]
        col_order = np.lexsort((-best, dominant))
        col_cluster = dominant[col_order]
    sorted_labels = seg_labels[order]
    # display rows per cluster, proportional to size, at least one each
    clusters, starts, counts = np.unique(sorted_labels, return_index=True, return_counts=True)
    budget = max_rows if n > max_rows else n
    rows_per = np.maximum(1, np.floor(counts * budget / n)).astype(np.int64)
    rows_per = np.minimum(rows_per, counts)
    offsets = np.concatenate([[0], np.cumsum(rows_per)])
    pos = np.arange(n) - np.repeat(starts, counts)
    display_row = np.repeat(offsets[:-1], counts) + (pos * np.repeat(rows_per, counts)) // (
        np.repeat(counts, counts)
    )
    total_rows = int(offsets[-1])
    per_row = np.bincount(display_row, minlength=total_rows).astype(np.float64)
    agg = sp.csr_matrix((1.0 / per_row[display_row], (display_row, order)), shape=(total_rows, n))
    img = agg @ z
    img = img.toarray() if sp.issparse(img) else np.asarray(img)
    img = np.ascontiguousarray(img[:, col_order], dtype=np.float32)
    hi = float(np.percentile(img, 99.5)) if img.size else 1.0
    row_cluster = None if col_cluster is None else np.repeat(clusters, rows_per)
    return HeatMap(img, row_cluster, col_cluster, n, (0.0, hi if hi > 0 else 1.0))


def confusion(
    true_labels: np.ndarray,
    labels: np.ndarray,
    n_classes: int,
    n_clusters: int,
    table: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Counts (classes x clusters) and the cluster order that puts matches on the diagonal.

    ``table``: those counts already made where the run ran (rows: class codes 0.., columns:
    clusters 0..; smaller than ``n_classes`` x ``n_clusters`` is padded with zeros)."""
    if table is not None:
        k = max(n_clusters, table.shape[1])
        counts = np.zeros((max(n_classes, table.shape[0]), k), dtype=np.int64)
        counts[: table.shape[0], : table.shape[1]] = table
    else:
        k = max(n_clusters, int(labels.max()) + 1 if labels.size else 0)
        flat = true_labels * k + labels
        counts = np.bincount(flat, minlength=n_classes * k).reshape(n_classes, k)
    rows, cols = linear_sum_assignment(-counts)
    matched = list(cols[np.argsort(rows)])
    rest = [j for j in range(k) if j not in set(matched)]
    return counts, np.array(matched + rest, dtype=np.int64)
