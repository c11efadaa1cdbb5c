"""Wide views (more features than samples) in the sample space: the methods where the row-space
reduction is exact give the same run with and without it; MVSC-HFD's variant is a valid
feature-space iterate and its authors' path stays available."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import core.numerics.row_space as rs
from conftest import make_blobs_views
from core.methods import ALPC, DTLL, FMDC, MVSCHFD, RGMVC
from core.methods.baselines import AnchorSpectralSingleView, KMeansConcat
from core.methods.mvsc_hfd import solver as hfd_solver
from core.numerics.metrics import accuracy


@pytest.fixture(scope="module")
def wide():
    views, labels = make_blobs_views(n=60, c=3, dims=(300, 150), sep=1.0, seed=4)
    return views, labels


def _both(monkeypatch, make, views):
    """(run without the reduction, run with it)."""
    monkeypatch.setattr(rs, "ROW_SPACE_MAX_N", 0)
    plain = make().fit(views)
    monkeypatch.setattr(rs, "ROW_SPACE_MAX_N", 3000)
    return plain, make().fit(views)


@pytest.mark.parametrize(
    "make",
    [
        lambda: FMDC(3, n_anchors=16),
        lambda: DTLL(3, max_iter=20),
        lambda: RGMVC(3, max_iter=20),
        lambda: KMeansConcat(3),
        lambda: AnchorSpectralSingleView(3, n_anchors=16),
    ],
    ids=["fmdc", "dtll", "rg-mvc", "kmeans-concat", "anchor-sc"],
)
def test_exact_methods_give_the_same_run_in_the_sample_space(monkeypatch, wide, make):
    views, _ = wide
    plain, reduced = _both(monkeypatch, make, views)
    assert "row_space" not in plain.resolved_params_
    assert reduced.resolved_params_["row_space"].startswith("view 1: 300 -> 60 dims")
    np.testing.assert_array_equal(plain.labels_, reduced.labels_)
    np.testing.assert_allclose(plain.objective_history_, reduced.objective_history_, rtol=1e-9)
    if isinstance(plain.anchors_, list):  # feature-space anchors come back lifted
        for a, b in zip(plain.anchors_, reduced.anchors_, strict=True):
            np.testing.assert_allclose(a, b, atol=1e-9)
    np.testing.assert_array_equal(plain.predict(views), reduced.predict(views))


def test_rgmvc_cosine_kernels_of_sparse_views_are_kept(monkeypatch):
    g = np.random.default_rng(2)
    labels = np.repeat([0, 1, 2], 20)
    views = []
    for d in (400, 300):
        x = g.random((60, d)) * (g.random((60, d)) < 0.3)
        for k in range(3):
            x[labels == k, k * 20 : k * 20 + 20] += 1
        views.append(sp.csr_matrix(x))
    plain, reduced = _both(monkeypatch, lambda: RGMVC(3, max_iter=20), views)
    assert reduced.kernels_ == ["cosine", "cosine"] and "row_space" in reduced.resolved_params_
    np.testing.assert_array_equal(plain.labels_, reduced.labels_)
    np.testing.assert_allclose(plain.objective_history_, reduced.objective_history_, rtol=1e-9)


def test_alpc_follows_the_feature_space_path(monkeypatch, wide):
    views, _ = wide
    # the code formulation amplifies round-off after a few iterations (as dense vs sparse)
    plain, reduced = _both(monkeypatch, lambda: ALPC(3, max_iter=4, tol=0.0), views)
    assert "row_space" in reduced.resolved_params_
    np.testing.assert_allclose(plain.objective_history_, reduced.objective_history_, rtol=1e-10)
    for a, b in zip(plain.anchors_, reduced.anchors_, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-8 * np.abs(a).max())
    for a, b in zip(plain.cluster_bases_, reduced.cluster_bases_, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-9)


def test_mvsc_hfd_row_space_is_a_feature_space_iterate(monkeypatch, wide):
    views, truth = wide
    views = [(x - x.mean(0)) / x.std(0, ddof=1) for x in views]
    monkeypatch.setattr(hfd_solver, "ROW_SPACE_FLOPS", 0.0)  # auto: the row space here
    s = MVSCHFD(3, depth=3, n_anchors=3, sample_norm=0).fit(views)  # the authors' settings
    assert s.resolved_params_["row_space"] == "view 1: 300 -> 59 dims, view 2: 150 -> 59 dims"
    assert accuracy(truth, s.labels_) == 1.0
    z = s.anchor_graph_
    dense = 0.0
    for x, layers, a in zip(views, s.layers_, s.view_weights_, strict=True):
        assert layers[0].shape[0] == x.shape[1]  # lifted to the features
        p = layers[0]
        for w in layers:
            np.testing.assert_allclose(w.T @ w, np.eye(w.shape[1]), atol=1e-10)
        for w in layers[1:]:
            p = p @ w
        dense += a**2 * np.sum((x.T - p @ s.anchors_ @ z.T) ** 2)
    assert s.objective_history_[-1] == pytest.approx(dense, rel=1e-9)
    original = MVSCHFD(3, depth=3, n_anchors=3, sample_norm=0, feature_space="original").fit(views)
    assert "row_space" not in original.resolved_params_
    assert accuracy(truth, original.labels_) == 1.0


def test_mvsc_hfd_auto_keeps_the_authors_path_where_it_is_cheap():
    # MSRC-v1's shapes (210 samples, one 1302-feature view): first layers of width 39
    views = [np.zeros((210, d)) for d in (1302, 48, 512, 100, 256, 210)]
    assert not MVSCHFD(7)._row_space_wanted(views)
    # 3Sources' shapes: 169 samples, ~3,500 features, first layers capped at 1024
    wide = [sp.csr_matrix((169, d)) for d in (3560, 3631, 3068)]
    assert MVSCHFD(6)._row_space_wanted(wide)
    assert not MVSCHFD(6, feature_space="original")._row_space_wanted(wide)
    # 3000 samples: the row space (layers up to 1024 wide on 3000 coordinates) saves too little
    assert not MVSCHFD(5)._row_space_wanted([sp.csr_matrix((3000, d)) for d in (5000, 6000)])
