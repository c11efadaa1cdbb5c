"""RG-MVC quality cases (spec rgmvc.md §16-17).

The paper's numbers use the standard precomputed kernel sets (DIGIT, Mfeat, ...), which are
not among the shared files; the cases below build kernels from features (spec §3.2): Gaussian
kernels on z-scored dense views, cosine kernels on tf-idf text views, then the authors'
normalisation chain. The honest numbers (mean ± std over seeds) follow the official code:
one k-means with 50 replicates, best inertia. ``paper_protocol`` follows the paper text
("repeat 50 times and record the average"): the mean of 50 single k-means runs on the same
embedding, with NMI = MI / max(H) as in the authors' ``myNMIACC``.
"""

from __future__ import annotations

import numpy as np
from sklearn.cluster import KMeans

from core.numerics.metrics import all_metrics

CASES = [
    {
        "dataset": "Handwritten.mat",
        "preprocess": "zscore",
        "paper": {"acc": 0.9645, "nmi": 0.9220, "purity": 0.9645},
        "note": "paper: DIGIT, 3 precomputed kernels; here 6 Gaussian feature kernels "
        "(spec prototype 0.9745)",
    },
    {
        "dataset": "UCI-Digits_3view.mat",
        "preprocess": "zscore",
        "paper": {"acc": 0.9645, "nmi": 0.9220, "purity": 0.9645},
        "note": "3 views 240/76/6 of the same digits; paper's DIGIT kernels differ",
    },
    {
        "dataset": "MSRC-v1_5view.mat",
        "preprocess": "zscore",
        "note": "not in the paper; spec prototype 0.762",
    },
    {
        "dataset": "BBCSport.mat",
        "preprocess": "tfidf",
        "note": "not in the paper; cosine kernels on log(1+tf)·idf (spec prototype without "
        "idf: 0.735)",
    },
    {
        "dataset": "Hdigit.mat",
        "preprocess": "zscore",
        "note": "not in the paper; n = 10000 runs the exact sparse path",
    },
]

SCALE_PARAMS = {"path": "sparse", "n_init": 10}


def paper_protocol(solver, labels_true: np.ndarray, seed: int) -> dict[str, float]:
    """Mean over 50 single k-means runs on the fitted spectral embedding (paper text)."""
    emb = solver.embedding_
    c = int(solver.n_clusters)
    rng = np.random.default_rng(seed)
    runs = []
    for _ in range(50):
        km = KMeans(
            c, init="k-means++", n_init=1, max_iter=100, random_state=int(rng.integers(2**31 - 1))
        )
        m = all_metrics(labels_true, km.fit_predict(emb))
        runs.append((m["acc"], m["nmi_max"], m["purity"]))
    acc, nmi, purity = np.mean(runs, axis=0)
    return {"acc": float(acc), "nmi": float(nmi), "purity": float(purity)}
