"""Reporting rules the papers used, shared by the case files."""

from __future__ import annotations

import numpy as np
from sklearn.cluster import KMeans
from threadpoolctl import threadpool_limits

from core.numerics.metrics import all_metrics


def max_over_kmeans(
    f: np.ndarray, c: int, labels_true: np.ndarray, seed: int, runs: int, replicates: int
) -> dict[str, float]:
    """Per-metric maximum over ``runs`` k-means runs (``replicates`` random starts each, like
    litekmeans) on the embedding f: what ALPC's and MVSC-HFD's demo scripts report."""
    rng = np.random.default_rng(seed)
    best: dict[str, float] = {}
    with threadpool_limits(1):
        for _ in range(runs):
            km = KMeans(
                c,
                init="random",
                n_init=replicates,
                max_iter=100,
                random_state=int(rng.integers(2**31 - 1)),
            )
            for key, val in all_metrics(labels_true, km.fit_predict(f)).items():
                best[key] = max(best.get(key, -np.inf), val)
    return best
