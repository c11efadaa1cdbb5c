"""ALPC quality cases: the datasets of the ALPC paper that are here, with the authors' demo
parameters where they exist.

``paper_protocol`` is the authors' reporting rule (``measure/myNMIACCwithmean.m``, common
spec §8): 10 k-means runs, each the best of 20 replicates started from random samples
(litekmeans 'sample'), on the row-normalised Zᵀ, and the **per-metric maximum** over the 10
runs. The honest numbers (mean ± std over seeds, one k-means with 20 inits per seed) are
what the harness reports next to it.
"""

from __future__ import annotations

import numpy as np

from cases._protocol import max_over_kmeans
from core.numerics.linalg import row_normalize

#: the paper's labels (k-means on the row-normalised Zᵀ); the product default is spectral
PAPER_LABELS = {"labels_from": "kmeans"}

CASES = [
    {
        "dataset": "BBCSport.mat",
        "preprocess": "none",
        "params": {"anchors_per_cluster": 15, "lambda1": 90.0, "lambda2": 0.1, **PAPER_LABELS},
        "paper": {"acc": 0.9512, "nmi": 0.8410, "purity": 0.9512},
        "note": "authors' demo file and parameters, raw counts; paper protocol = per-metric "
        "max of 10 k-means (demo comment 0.9567)",
    },
    {
        "dataset": "Wiki_fea.mat",
        "preprocess": "none",
        "params": {"anchors_per_cluster": 8, "lambda1": 1e4, "lambda2": 0.1, **PAPER_LABELS},
        "paper": {"acc": 0.6040, "nmi": 0.5514, "purity": 0.6399},
        "note": "authors' demo file and parameters; paper protocol = per-metric max of 10 "
        "k-means (demo comment 0.6043)",
    },
    {
        "dataset": "MSRC-v1_5view.mat",
        "label": "MSRC-v1 (4 views)",
        "views": [0, 2, 3, 4],
        "preprocess": "zscore",
        "params": {"anchors_per_cluster": 10, "lambda1": 1e4, "lambda2": 0.1, **PAPER_LABELS},
        "paper": {"acc": 0.8819, "nmi": 0.7758, "purity": 0.8819},
        "note": "paper's 4 views 24/512/256/254 (576-dim view dropped), z-scored; no demo "
        "parameters published: m=10, λ1=1e4, λ2=0.1 fixed a priori, not tuned",
    },
    {
        "dataset": "MSRC-v1_5view.mat",
        "label": "MSRC-v1 (5 views)",
        "preprocess": "zscore",
        "params": {"anchors_per_cluster": 10, "lambda1": 1e4, "lambda2": 0.1, **PAPER_LABELS},
        "paper": {"acc": 0.8819, "nmi": 0.7758, "purity": 0.8819},
        "note": "all 5 views (not the paper's variant), z-scored",
    },
]

# the defaults: λ1 from the data (a fixed λ1 = 100, from before that rule, does not scale
# with n: ACC 0.69 at 100k and 0.57 at 1M on the scale data, against 0.94 with the defaults)
SCALE_PARAMS: dict = {}


def paper_protocol(solver, labels_true: np.ndarray, seed: int) -> dict[str, float]:
    """Per-metric maximum over 10 k-means runs (20 replicates each) on row-normalised Zᵀ."""
    f = row_normalize(np.asarray(solver.anchor_graph_))
    return max_over_kmeans(f, solver.n_clusters, labels_true, seed, runs=10, replicates=20)
