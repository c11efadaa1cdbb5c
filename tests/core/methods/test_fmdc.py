"""FMDC: objective identities, monotone descent, view weights, real-data regression."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from conftest import make_blobs_views
from core.methods import FMDC
from core.methods.fmdc.solver import effective_anchor_count
from core.methods.fmdc.updates import (
    cross_gram,
    fmdc_objective_terms,
    graph_products,
    solve_view_weights,
    spectral_embedding,
    stack_graphs,
)
from core.numerics.graphs import normalize_anchor_graph
from core.numerics.metrics import accuracy


def _dense_objective(graphs, alpha, labels, c):
    """‖Σ α_v Z_v Δ_v⁻¹ Z_vᵀ − Y(YᵀY)⁻¹Yᵀ‖²_F with explicit n x n matrices (tests only)."""
    s = sum(
        a * (z @ sp.diags(1 / np.maximum(z.sum(0).A1, 1e-300)) @ z.T).toarray()
        for a, z in zip(alpha, graphs, strict=True)
    )
    y = np.eye(c)[labels]
    p = y @ np.diag(1 / y.sum(0)) @ y.T
    return float(((s - p) ** 2).sum())


@pytest.fixture(scope="module")
def noisy():
    views, labels = make_blobs_views(n=120, c=3, dims=(6, 6), sep=5.0, seed=11)
    g = np.random.default_rng(0)
    return [*views, g.normal(size=(120, 6))], labels


def test_graph_products_on_a_side_thread_equal_the_sequence(noisy):
    views, _ = noisy
    s = FMDC(3, n_anchors=16, n_neighbors=4, max_iter=1).fit(views)
    graphs = s.view_graphs_
    zhats = [normalize_anchor_graph(z) for z in graphs]
    gram, heat, stack, emb = graph_products(zhats, graphs, 3, np.random.default_rng(5))
    np.testing.assert_array_equal(gram, cross_gram(zhats))
    assert (heat != (sum(graphs) / 3).tocsr()).nnz == 0
    expect = stack_graphs(zhats)
    np.testing.assert_array_equal(stack.indices, expect.indices)
    np.testing.assert_array_equal(stack.data, expect.data)
    np.testing.assert_array_equal(emb, spectral_embedding(expect, 3, 3, np.random.default_rng(5)))
    assert graph_products(zhats, graphs, 3, None)[3] is None  # random starts: no embedding


def test_recorded_objective_equals_the_dense_definition(noisy):
    views, _ = noisy
    s = FMDC(3, n_anchors=16, n_neighbors=4, max_iter=5).fit(views)
    dense = _dense_objective(s.view_graphs_, s.view_weights_, s.labels_, 3)
    assert s.objective_history_[-1] == pytest.approx(dense, rel=1e-9)


def test_objective_never_increases_even_from_random_starts(noisy):
    views, _ = noisy
    for seed in range(3):
        s = FMDC(3, n_anchors=32, init="random", n_init=1, random_state=seed).fit(views)
        h = np.array(s.objective_history_)
        assert np.all(np.diff(h) <= 1e-12 * np.abs(h[:-1]).max())


def test_noise_view_gets_the_smallest_weight_and_clusters_are_found(noisy):
    views, labels = noisy
    s = FMDC(3, n_anchors=32).fit(views)
    assert s.view_weights_.sum() == pytest.approx(1.0) and (s.view_weights_ >= 0).all()
    # the noise view has the smallest weight (the exact QP may give 0 to a good view too)
    assert s.view_weights_[2] == s.view_weights_.min()
    assert accuracy(labels, s.labels_) == 1.0
    assert sp.issparse(s.anchor_graph_) and s.anchor_graph_.shape == (120, 32)
    np.testing.assert_allclose(s.anchor_graph_.sum(1), 1.0)


def test_alm_reaches_the_exact_qp_minimiser(noisy):
    views, _ = noisy
    s = FMDC(3, n_anchors=16, n_neighbors=15).fit(views)
    zh = [normalize_anchor_graph(z) for z in s.view_graphs_]
    gram, lin = cross_gram(zh), fmdc_objective_terms(zh, s.labels_, 3)
    exact, alm = solve_view_weights(gram, lin, "exact_qp"), solve_view_weights(gram, lin, "alm")
    f = lambda a: a @ gram @ a - lin @ a  # noqa: E731
    assert f(alm) == pytest.approx(f(exact), abs=1e-8)


def test_anchor_count_rule():
    assert effective_anchor_count(None, 1000) == 128
    assert effective_anchor_count(None, 20000) == 1024
    assert effective_anchor_count(200, 10000) == 256  # snapped to a power of 2
    assert effective_anchor_count(1024, 300) == 128  # at most n/2


def test_sparse_views_stay_sparse():
    g = np.random.default_rng(1)
    labels = np.repeat([0, 1], 40)
    dense = np.abs(g.normal(size=(80, 200))) * (g.random((80, 200)) < 0.05)
    dense[:40, :20] += 3
    dense[40:, 20:40] += 3
    x = sp.csr_matrix(dense)
    s = FMDC(2, n_anchors=8, n_neighbors=3).fit([x, x.copy()])
    assert accuracy(labels, s.labels_) == 1.0


@pytest.mark.datasets
def test_webkb_regression(benchmark_file):
    from core.data.io import load_dataset
    from core.data.preprocessing import preprocess

    ds = load_dataset(benchmark_file("WebKB.mat"))
    views, _ = preprocess(ds.views, "auto")
    s = FMDC(ds.n_classes, random_state=0).fit(views)
    assert accuracy(ds.labels, s.labels_) >= 0.93  # paper 0.9657


def test_alm_matches_exact_qp_on_random_problems():
    from core.numerics.linalg import simplex_qp

    g = np.random.default_rng(5)
    for _ in range(50):
        v = int(g.integers(2, 6))
        a = g.normal(size=(v + 2, v))
        gram, lin = a.T @ a, g.normal(size=v) * 3
        alm, exact = solve_view_weights(gram, lin, "alm"), simplex_qp(gram, lin)
        assert alm @ gram @ alm - lin @ alm <= exact @ gram @ exact - lin @ exact + 1e-9


def test_sketched_bkhk_gives_balanced_groups_and_equal_quality():
    from core.data.demo import make_synthetic
    from core.numerics.anchors import bkhk_steps

    ds = make_synthetic(4000, (40, 60), 5, seed=2)
    gen = bkhk_steps(ds.views, 64, np.random.default_rng(0), space="sketch")
    try:
        while True:
            next(gen)
    except StopIteration as stop:
        anchors, groups = stop.value
    assert sorted({g.size for g in groups}) == [62, 63]  # balanced halves down the tree
    np.testing.assert_allclose(anchors[0][0], ds.views[0][groups[0]].mean(0))
    full = FMDC(5, n_anchors=64, bkhk_space="full").fit(ds.views)
    sketch = FMDC(5, n_anchors=64, bkhk_space="sketch").fit(ds.views)
    assert accuracy(ds.labels, sketch.labels_) >= accuracy(ds.labels, full.labels_) - 0.02


def test_kmeans_on_large_embeddings_uses_a_subsample_and_still_finds_clusters():
    from core.numerics.kmeans import kmeans_labels

    g = np.random.default_rng(0)
    labels = np.repeat(np.arange(4), 3000)
    f = np.eye(4)[labels] * 5 + g.normal(size=(12000, 4))
    got = kmeans_labels(f, 4, np.random.default_rng(1), subsample=2000)
    assert accuracy(labels, got) > 0.99
