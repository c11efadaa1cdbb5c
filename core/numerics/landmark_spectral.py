"""Labels from a linear embedding by spectral clustering on a landmark graph (no n x n matrix).

k-means on a linear embedding (ALPC's Zᵀ = X K) cuts the space into convex cells, so digit
manifolds and two moons are split where the data are thin rather than where they are apart.
Here every sample is tied to its k nearest of L landmarks (k-means centres of the embedding)
by a PKN anchor graph, and k-means runs on the top-c left singular vectors of its
degree-normalised form (the anchor-graph spectral clustering of common spec §4): O(n·L·d).
"""

from __future__ import annotations

from collections.abc import Generator

import numpy as np
from sklearn.cluster import KMeans

from core.data.dataset import DataError
from core.numerics.graphs import normalize_anchor_graph, pkn_anchor_graph_steps
from core.numerics.kmeans import kmeans_steps, restart_size
from core.numerics.linalg import row_normalize
from core.numerics.spectral import top_left_singular_vectors
from core.numerics.steps import scaled
from core.numerics.threads import single_threaded

__all__ = ["LANDMARKS_PER_CLUSTER", "LANDMARK_NEIGHBORS", "landmark_spectral_steps"]

#: landmarks per cluster. ALPC's Zᵀ on the 24 shared files, 3 seeds (docs/defaults.md):
#: 10 per cluster lost Dermatology and 3Sources, 30 gained nothing
LANDMARKS_PER_CLUSTER = 20
#: landmarks each sample is tied to: mean ACC 0.725 with 5, 0.733 with 8, 0.731 with 10,
#: 0.725 with 12 (5 lost 0.08 on NGs, 8 lost 0.02)
LANDMARK_NEIGHBORS = 8
#: rows per landmark the landmarks' k-means sees (a subsample above that): 20 and 50 gave
#: the same labels on the shared files; 20 keeps the landmarks' cost small at n = 100k
ROWS_PER_LANDMARK = 20
#: k-means runs for the landmarks (the lowest inertia wins). One run left a bad landmark set
#: in 1 of 12 draws on NGs (ACC 0.74 against 0.87-0.90: also what a float32 run hit once);
#: with 3 the worst of 12 draws was 0.868 (3Sources mean 0.645 -> 0.659, Reuters-1200
#: 0.607 -> 0.601)
LANDMARK_RESTARTS = 3


def landmarks(emb: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` k-means centres of the rows of ``emb`` (``LANDMARK_RESTARTS`` short seeded
    runs, on at most ``ROWS_PER_LANDMARK`` rows per centre)."""
    n = emb.shape[0]
    rows = emb
    if n > ROWS_PER_LANDMARK * count:
        rows = emb[np.sort(rng.choice(n, ROWS_PER_LANDMARK * count, replace=False))]
    km = KMeans(
        count, n_init=LANDMARK_RESTARTS, max_iter=20, random_state=int(rng.integers(2**31 - 1))
    )
    with single_threaded():
        return km.fit(rows).cluster_centers_


def landmark_spectral_steps(
    emb: np.ndarray,
    n_clusters: int,
    rng: np.random.Generator,
    *,
    n_init: int = 20,
    per_cluster: int = LANDMARKS_PER_CLUSTER,
    neighbors: int = LANDMARK_NEIGHBORS,
) -> Generator[float, None, tuple[np.ndarray, np.ndarray]]:
    """Spectral labels of the rows of ``emb`` through a landmark graph, yielding progress.

    Returns ``(labels, spectral_embedding)``. ``per_cluster·n_clusters`` landmarks (at most
    n/2), each sample tied to its ``neighbors`` nearest by PKN weights; k-means
    (``n_init`` restarts) on the row-normalised top-``n_clusters`` left singular vectors of
    Z Δ^{-1/2}.
    """
    emb = np.ascontiguousarray(emb, dtype=np.float64)
    n = emb.shape[0]
    if n <= n_clusters:
        raise DataError(f"'n_clusters' = {n_clusters} must be below the {n} samples")
    count = int(max(n_clusters + 1, min(per_cluster * n_clusters, n // 2)))
    centres = landmarks(emb, count, rng)
    yield 0.2
    graph = yield from scaled(pkn_anchor_graph_steps(emb, centres, neighbors), 0.2, 0.5)
    spectral = row_normalize(
        top_left_singular_vectors(normalize_anchor_graph(graph), n_clusters, rng)
    )
    km = kmeans_steps(
        spectral, n_clusters, rng, n_init=n_init, restart_rows=restart_size(n_clusters)
    )
    labels, _ = yield from scaled(km, 0.5, 1.0)
    return labels, spectral
