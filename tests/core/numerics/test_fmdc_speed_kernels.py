"""The threaded PKN graph, FMDC's dense cross products and label sums, BKHK on a subsample:
each against a plain NumPy computation (tests/naive.py style twins)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import naive
from conftest import make_blobs_views
from core.methods import FMDC
from core.methods.fmdc.jit import csr_cross_product, label_column_sums, scale_by_view
from core.methods.fmdc.updates import stack_graphs, tree_rows
from core.numerics import graphs
from core.numerics.anchors import bkhk_steps, kmeanspp_seeds, two_seeds
from core.numerics.graphs import row_sq_norms
from core.numerics.jit.graph import pkn_rows_into
from core.numerics.steps import drain

pytestmark = pytest.mark.kernels


def _twin_graph(x, anchors, k):
    gram = np.asarray(x @ anchors.T, dtype=np.float64)
    rs = np.asarray(x.multiply(x).sum(1)).ravel() if sp.issparse(x) else (x * x).sum(1)
    idx, w = naive.pkn_rows(gram, rs, (anchors * anchors).sum(1), k)
    n = x.shape[0]
    return sp.csr_matrix((w.ravel(), idx.ravel(), np.arange(0, n * k + 1, k)), (n, len(anchors)))


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("threads", [1, 3])
def test_threaded_small_block_graph_equals_the_twin(rng, monkeypatch, sparse, threads):
    # tiny blocks and sweeps: many blocks per thread and several progress reports
    monkeypatch.setattr(graphs, "PKN_BLOCK_BYTES", 64 * 8 * 20)
    monkeypatch.setattr(graphs, "PKN_SWEEP_BYTES", 64 * 8 * 20 * 2)
    monkeypatch.setattr(graphs, "blas_threads", lambda: threads)
    x = rng.normal(size=(1000, 7))
    if sparse:
        x[rng.random(x.shape) < 0.6] = 0.0
        x = sp.csr_matrix(x)
    anchors = rng.normal(size=(20, 7))
    steps = list(graphs.pkn_anchor_graph_steps(x, anchors, 4))
    assert len(steps) > 3 and steps[-1] == pytest.approx(1.0)
    got = graphs.pkn_anchor_graph(x, anchors, 4)
    expect = _twin_graph(x, anchors, 4)
    np.testing.assert_allclose(got.toarray(), expect.toarray(), atol=1e-12)


def test_pkn_rows_into_writes_the_twin_rows(rng):
    gram, rs, us = rng.normal(size=(30, 12)), rng.random(30) + 3, rng.random(12)
    idx = np.full((30, 5), -1, dtype=np.int64)
    w = np.zeros((30, 5))
    pkn_rows_into(gram, rs, us, 5, idx, w)
    idx2, w2 = naive.pkn_rows(gram, rs, us, 5)
    np.testing.assert_array_equal(idx, idx2)
    np.testing.assert_allclose(w, w2, atol=1e-14)


def test_csr_cross_product_and_label_sums_equal_numpy(rng):
    a = sp.random(200, 9, density=0.3, format="csr", random_state=1)
    b = sp.random(200, 13, density=0.3, format="csr", random_state=2)
    got = csr_cross_product(a.indptr, a.indices, a.data, b.indptr, b.indices, b.data, 9, 13)
    np.testing.assert_allclose(got, a.toarray().T @ b.toarray(), atol=1e-13)
    labels = rng.integers(0, 4, size=200)
    sums = label_column_sums(a.indptr, a.indices, a.data, labels, 4, 9)
    np.testing.assert_allclose(sums, a.toarray().T @ np.eye(4)[labels], atol=1e-13)


def test_scale_by_view_equals_take_then_multiply(rng):
    data, view = rng.random(500), rng.integers(0, 3, size=500).astype(np.uint8)
    root = np.sqrt(rng.dirichlet(np.ones(3)))
    out = np.full(500, np.nan)
    scale_by_view(data, view, root, out)
    np.testing.assert_array_equal(out, np.take(root, view) * data)


def test_bkhk_on_a_subsample_forms_balanced_groups_of_sampled_rows(rng):
    x = rng.normal(size=(600, 5))
    anchors, groups = drain(bkhk_steps([x], 16, np.random.default_rng(0), sample=160))
    rows = np.concatenate(groups)
    assert rows.size == 160 and np.unique(rows).size == 160  # 10 sampled rows per anchor
    assert {g.size for g in groups} == {10}
    np.testing.assert_allclose(anchors[0], np.array([x[g].mean(0) for g in groups]))
    # a sample of at least n rows is the full tree, draw for draw
    full = drain(bkhk_steps([x], 16, np.random.default_rng(0)))
    same = drain(bkhk_steps([x], 16, np.random.default_rng(0), sample=600))
    np.testing.assert_array_equal(full[0][0], same[0][0])


def test_fmdc_tree_rows_rule():
    assert tree_rows(None, 30_000, 1024) is None  # up to 32768 rows: every row (the paper)
    assert tree_rows(None, 100_000, 1024) == 32 * 1024
    assert tree_rows(None, 1_000_000, 128) == 32768
    assert tree_rows(0, 10**6, 1024) is None
    assert tree_rows(4, 10_000, 1024) == 4096
    # the solver passes its parameter through: a 4-per-anchor tree gives 4-row groups
    views, _ = make_blobs_views(n=400, c=2, dims=(3, 3), sep=4.0, seed=0)
    s = FMDC(2, n_anchors=16, bkhk_sample=4, max_iter=2).fit(views)
    assert s.anchor_graph_.shape == (400, 16)


def test_stack_graphs_equals_scipy_hstack():
    zs = [sp.random(50, w, density=0.2, format="csr", random_state=w) for w in (7, 3, 11)]
    got = stack_graphs(zs)
    expect = sp.hstack(zs, format="csr")
    np.testing.assert_array_equal(got.indptr, expect.indptr)
    np.testing.assert_array_equal(got.indices, expect.indices)
    np.testing.assert_array_equal(got.data, expect.data)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_two_seeds_draws_as_kmeanspp_seeds(rng, dtype):
    x = rng.normal(size=(300, 6)).astype(dtype)
    x[5] = x[7]  # a zero distance
    sq = row_sq_norms(x)
    for size in (2, 3, 40, 300):
        rows = np.sort(rng.choice(300, size, replace=False))
        for seed in range(5):
            a, b = np.random.default_rng(seed), np.random.default_rng(seed)
            np.testing.assert_array_equal(
                two_seeds(x, rows, a, sq), kmeanspp_seeds([x], rows, 2, b, [sq])
            )
            assert a.random() == b.random()  # the streams stay in step
    same = np.array([3, 3, 3])  # every distance 0: the second seed is a uniform draw
    got = two_seeds(x, same, np.random.default_rng(0), sq)
    np.testing.assert_array_equal(got, kmeanspp_seeds([x], same, 2, np.random.default_rng(0), [sq]))
