"""MVSC-HFD's label refinement under the clusters' shared covariance (mvsc_hfd/refine.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.cluster import KMeans

from core.methods.mvsc_hfd import refine
from core.methods.mvsc_hfd.refine import centred_embedding, shared_covariance_labels
from core.methods.mvsc_hfd.solver import MVSCHFD
from core.numerics.metrics import accuracy


def _elongated(n_per: int = 300, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Three long parallel clusters (one shared covariance, spread along them as large as the
    gap between them): k-means cuts them across, the shared-covariance metric separates them."""
    g = np.random.default_rng(seed)
    labels = np.repeat(np.arange(3), n_per)
    centres = np.array([[0.0, 0.0], [0.0, 3.0], [0.0, 6.0]])
    x = centres[labels] + g.normal(size=(3 * n_per, 2)) * np.array([3.0, 0.5])
    return x, labels


def _det_w(x: np.ndarray, lab: np.ndarray) -> float:
    """det of the pooled within-cluster scatter: the criterion the steps lower."""
    r = x - np.stack([x[lab == k].mean(0) for k in range(lab.max() + 1)])[lab]
    return float(np.linalg.det(r.T @ r))


def test_shared_covariance_separates_clusters_k_means_cuts_across():
    x, truth = _elongated()
    start = KMeans(3, n_init=10, random_state=0).fit_predict(x)
    assert accuracy(truth, start) < 0.7
    labels, steps = shared_covariance_labels(x, start)
    assert accuracy(truth, labels) > 0.97 and steps > 0


def test_steps_never_raise_det_w_and_end_at_a_fixed_point():
    x, _ = _elongated(seed=1)
    start = KMeans(3, n_init=1, random_state=3).fit_predict(x)
    dets = [_det_w(x, shared_covariance_labels(x, start, max_steps=k)[0]) for k in range(8)]
    assert all(b <= a * (1 + 1e-12) for a, b in itertools.pairwise(dets))
    final, _ = shared_covariance_labels(x, start)
    again, steps = shared_covariance_labels(x, final)
    np.testing.assert_array_equal(again, final)
    assert steps == 0


def test_result_does_not_depend_on_a_linear_map_of_the_embedding():
    x, _ = _elongated(seed=2)
    start = KMeans(3, n_init=1, random_state=0).fit_predict(x)
    mixed = x @ np.array([[2.0, 0.5], [-0.3, 0.7]])
    np.testing.assert_array_equal(
        shared_covariance_labels(x, start)[0], shared_covariance_labels(mixed, start)[0]
    )


def test_subsample_start_ends_at_a_fixed_point_on_all_rows(monkeypatch):
    x, truth = _elongated()
    start = KMeans(3, n_init=10, random_state=0).fit_predict(x)
    monkeypatch.setattr(refine, "SUBSAMPLE", 300)
    labels, _ = shared_covariance_labels(x, start, np.random.default_rng(0))
    assert accuracy(truth, labels) > 0.97
    monkeypatch.setattr(refine, "SUBSAMPLE", 10**9)
    assert shared_covariance_labels(x, labels)[1] == 0  # all-rows steps change nothing


def test_centred_embedding_is_the_whitened_svd_of_the_centred_graph(monkeypatch):
    g = np.random.default_rng(0)
    zt = g.random((500, 6)) ** 3
    zt /= zt.sum(1, keepdims=True)  # rows on the simplex, as MVSC-HFD's Zᵀ
    monkeypatch.setattr(refine, "BLOCK", 128)  # several row blocks
    got = centred_embedding(zt)
    u, s, _ = np.linalg.svd(zt - zt.mean(0), full_matrices=False)
    want = u[:, s > 1e-10 * s[0]]
    want /= np.linalg.norm(want, axis=1, keepdims=True)
    assert got.shape == (500, 5)  # the all-ones direction is gone (rows sum to one)
    np.testing.assert_allclose(got @ got.T, want @ want.T, atol=1e-9)


@pytest.fixture(scope="module")
def gaussian_views():
    from core.data.demo import make_synthetic
    from core.data.preprocessing import preprocess

    ds = make_synthetic(2000, (40, 60, 80), 6, seed=1)
    return preprocess(ds.views, "zscore")[0], ds.labels


def test_default_refines_and_the_authors_scale_does_not(gaussian_views):
    views, truth = gaussian_views
    auto = MVSCHFD(6, random_state=0).fit(views)
    plain = MVSCHFD(6, random_state=0, labels_refine="none").fit(views)
    np.testing.assert_allclose(auto.anchor_graph_, plain.anchor_graph_)  # labels only
    assert auto.refine_steps_ > 0 and plain.refine_steps_ == 0
    assert accuracy(truth, auto.labels_) > accuracy(truth, plain.labels_)
    paper = MVSCHFD(6, random_state=0, sample_norm=0, n_anchors=6).fit(views)
    same = MVSCHFD(6, random_state=0, sample_norm=0, n_anchors=6, labels_refine="none")
    np.testing.assert_array_equal(paper.labels_, same.fit(views).labels_)
    assert paper.refine_steps_ == 0
