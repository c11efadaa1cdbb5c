"""MVSC-HFD quality cases: the paper's datasets that are here, preprocessed as the authors'
demo does (per-feature z-scoring, ``mapstd``).

``paper_protocol`` is the authors' reporting rule (``demoMVDSC_v10.m`` +
``myNMIACCwithmean.m``, common spec §8): 50 single k-means runs started from random samples
on the row-normalised left singular vectors of Zᵀ, and the **per-metric maximum** over the
50 runs. The honest numbers (mean ± std over seeds, k-means with 50 inits keeping the lowest
inertia) are what the harness reports next to it. The paper reports the best depth per
dataset (code loops δ = 1..5); the cases fix δ = 5, the depth it names best most often.
"""

from __future__ import annotations

import numpy as np

from cases._protocol import max_over_kmeans

#: the authors' code: the z-scored data as given (m = c anchors is set per case)
PAPER = {"sample_norm": 0}

CASES = [
    {
        "dataset": "MSRC-v1_6view.mat",
        "preprocess": "zscore",
        "params": {"depth": 5, **PAPER, "n_anchors": 7},
        "paper": {"acc": 0.8952, "nmi": 0.8420, "purity": 0.8952},
        "note": "paper's MSRCV1 (6 views), authors' defaults (m=c, 10 iterations, code's "
        "layer cache); paper protocol = per-metric max of 50 k-means",
    },
    {
        "dataset": "MSRC-v1_6view.mat",
        "label": "MSRC-v1_6view exact W-step",
        "preprocess": "zscore",
        "params": {"depth": 5, "w_update": "exact", **PAPER, "n_anchors": 7},
        "paper": {"acc": 0.8952, "nmi": 0.8420, "purity": 0.8952},
        "note": "experimental exact layer update: identical for every depth",
    },
    {
        "dataset": "BDGP_fea.mat",
        "preprocess": "zscore",
        "params": {"depth": 5, **PAPER, "n_anchors": 5},
        "paper": {"acc": 0.4796, "nmi": 0.2450, "purity": 0.4852},
        "note": "this file is the incomplete-view BDGP (missing views as zero rows); the "
        "paper used complete BDGP: not comparable",
    },
    {
        "dataset": "BDGP_fea.mat",
        "label": "BDGP_fea exact W-step",
        "preprocess": "zscore",
        "params": {"depth": 5, "w_update": "exact", **PAPER, "n_anchors": 5},
        "paper": {"acc": 0.4796, "nmi": 0.2450, "purity": 0.4852},
        "note": "experimental exact layer update; incomplete-view file, not comparable",
    },
]

SCALE_PARAMS = {"depth": 5}  # the product's defaults (sample_norm 0.5, 2c anchors)


def paper_protocol(solver, labels_true: np.ndarray, seed: int) -> dict[str, float]:
    """Per-metric maximum over 50 single k-means runs on the fitted embedding."""
    f = np.asarray(solver.embedding_)
    return max_over_kmeans(f, solver.n_clusters, labels_true, seed, runs=50, replicates=1)
