"""BKHK's PCA sketch: the rows' coordinates on the top principal directions of the
concatenated views (never concatenated), and the "auto" rule that picks it."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

import core.numerics.anchors as anchors
from core.methods import REGISTRY
from core.numerics.metrics import accuracy


def _low_rank_views(rng, n, dims, rank):
    latent = rng.normal(size=(n, rank))
    return [latent @ rng.normal(size=(rank, d)) for d in dims]


def test_pca_sketch_equals_the_exact_projection_on_low_rank_data():
    rng = np.random.default_rng(0)
    views = _low_rank_views(rng, 300, (40, 70, 25), rank=6)
    views[1] = sp.csr_matrix(views[1])  # sparse and dense views mix
    got = anchors.pca_sketch(views, 6, np.random.default_rng(1))
    full = np.hstack([v.toarray() if sp.issparse(v) else v for v in views])
    _, _, vt = np.linalg.svd(full, full_matrices=False)
    want = full @ vt[:6].T
    # equal up to a rotation within the 6-dim space: compare the Gram matrices (distances)
    assert got.shape == (300, 6)
    np.testing.assert_allclose(got @ got.T, want @ want.T, atol=1e-8 * np.abs(want).max() ** 2)


def test_pca_sketch_keeps_float32():
    rng = np.random.default_rng(2)
    views = [v.astype(np.float32) for v in _low_rank_views(rng, 200, (30, 50), rank=4)]
    assert anchors.pca_sketch(views, 8, np.random.default_rng(0)).dtype == np.float32


def test_auto_partitions_the_pca_sketch_above_the_threshold(monkeypatch):
    rng = np.random.default_rng(3)
    n, labels = 1200, np.arange(1200) % 4
    views = [rng.normal(scale=5.0, size=(4, d))[labels] + rng.normal(size=(n, d)) for d in (90, 60)]
    assert anchors.use_sketch(views, "auto") is None  # small data: the full features
    monkeypatch.setattr(anchors, "PCA_ABOVE", 1000)
    assert anchors.use_sketch(views, "auto") == "pca"
    calls = []
    real = anchors.pca_sketch
    monkeypatch.setattr(anchors, "pca_sketch", lambda *a, **k: calls.append(1) or real(*a, **k))
    fit = REGISTRY["fmdc"](n_clusters=4, n_anchors=64).fit(views)
    assert calls and accuracy(labels, fit.labels_) == 1.0


def test_group_means_of_float32_views_in_row_blocks(monkeypatch):
    """float32 views are averaged block by block (scipy would copy them whole to float64)."""
    import core.numerics.graphs as graphs

    rng = np.random.default_rng(4)
    x = rng.normal(size=(1000, 7)).astype(np.float32)
    groups = np.array_split(rng.permutation(1000), 16)
    monkeypatch.setattr(anchors, "block_rows", lambda n, d: 300)  # several blocks
    got = anchors.group_means([x], groups)[0]
    want = np.stack([x[g].astype(np.float64).mean(axis=0) for g in groups])
    assert got.dtype == np.float64 and graphs.block_rows(1000, 7) >= 300
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
