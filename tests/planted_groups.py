"""A multi-view dataset with features planted higher and lower in a group, noise features and
samples missing a view: what the group comparison must find exactly (core/analysis/compare.py,
``mvc explain``)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

HIGHER, LOWER = (0, 3, 7), (1, 5)  # planted features of each view; the others are noise


def planted(n: int = 400, d: int = 30, seed: int = 1):
    """Two views (dense; sparse counts) where group A (the first quarter) is higher in
    features HIGHER and lower in LOWER; every other feature is noise. A sixth of the samples
    miss view 2, their rows holding wild values that must never count. (Benjamini-Hochberg
    keeps the share of false discoveries near 5 %, so some seeds let one noise feature
    through at q < 0.05: seed 1 is one whose noise stays out; seeds 0 and 3 each let one in.)"""
    rng = np.random.default_rng(seed)
    a = np.arange(n // 4)
    dense = rng.normal(size=(n, d))
    counts = rng.poisson(1.0, size=(n, d)).astype(float)
    for x, shift in ((dense, 1.2), (counts, 2.0)):
        x[np.ix_(a, HIGHER)] += shift
        x[np.ix_(a, LOWER)] -= shift
    counts = np.maximum(counts, 0.0)
    observed = np.ones((n, 2), dtype=bool)
    observed[rng.choice(n, n // 6, replace=False), 1] = False
    counts[~observed[:, 1]] = 1000.0  # never read: the samples do not have view 2
    return [dense, sp.csr_matrix(counts)], a, observed
