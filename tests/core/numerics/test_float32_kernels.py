"""The numba kernels on float32 data (the anchor methods' float32 path) against their NumPy
twins: same neighbours and splits as the float64 reference on well-separated values, and
weights accumulated in float64."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import naive
from core.numerics.graphs import pkn_anchor_graph, row_sq_norms
from core.numerics.jit.graph import (
    balanced_split_level,
    gather_csr_dot,
    gather_csr_mean,
    gather_dense_dot,
    gather_dense_mean,
    pkn_rows,
    pkn_rows_refined_csr_into,
    pkn_rows_refined_into,
)

pytestmark = pytest.mark.kernels


@pytest.mark.parametrize("k", [1, 5])
def test_pkn_rows_float32_matches_twin(rng, k):
    x, u = rng.normal(size=(60, 8)), rng.normal(size=(16, 8))
    x32, u32 = x.astype(np.float32), u.astype(np.float32)
    gram, rs, us = x32 @ u32.T, row_sq_norms(x32), row_sq_norms(u32)
    assert gram.dtype == np.float32 and rs.dtype == np.float64
    idx, w = pkn_rows(gram, rs, us, k)
    idx2, w2 = naive.pkn_rows(gram.astype(np.float64), rs, us, k)
    np.testing.assert_array_equal(idx, idx2)
    assert w.dtype == np.float64
    np.testing.assert_allclose(w, w2, atol=1e-10)
    np.testing.assert_allclose(w.sum(1), 1.0)


def test_anchor_graph_float32_equals_float64_graph(rng):
    x, u = rng.normal(size=(200, 12)), rng.normal(size=(20, 12))
    z64 = pkn_anchor_graph(x, u, 5)
    z32 = pkn_anchor_graph(x.astype(np.float32), u, 5)
    assert z32.dtype == np.float64
    np.testing.assert_array_equal(z32.indices, z64.indices)
    np.testing.assert_allclose(z32.data, z64.data, atol=1e-4)


def test_gather_kernels_float32(rng):
    x = rng.normal(size=(30, 7)).astype(np.float32)
    xs = sp.random(30, 7, density=0.3, format="csr", random_state=1, dtype=np.float32)
    rows, w = np.array([3, 0, 29, 3]), rng.normal(size=7)
    ref = x.astype(np.float64)
    np.testing.assert_allclose(gather_dense_dot(x, rows, w), ref[rows] @ w, rtol=1e-6)
    np.testing.assert_allclose(gather_dense_mean(x, rows), ref[rows].mean(0), rtol=1e-6)
    refs = xs.astype(np.float64)
    np.testing.assert_allclose(
        gather_csr_dot(xs.indptr, xs.indices, xs.data, rows, w), refs[rows] @ w, rtol=1e-6
    )
    np.testing.assert_allclose(
        gather_csr_mean(xs.indptr, xs.indices, xs.data, 7, rows),
        np.asarray(refs[rows].mean(0)).ravel(),
        rtol=1e-6,
    )


def test_balanced_split_level_float32_matches_float64(rng):
    x = rng.normal(size=(120, 4)) + np.repeat([[0.0], [4.0]], 60, axis=0)
    rows = np.arange(120)
    offsets, s0, s1 = np.array([0, 120]), np.array([0]), np.array([119])
    got = balanced_split_level(x.astype(np.float32), rows, offsets, s0, s1, 100)
    expect = balanced_split_level(x, rows, offsets, s0, s1, 100)
    assert set(got[:60]) == set(expect[:60])


def _refined_twin(x32, anchors, k):
    """NumPy twin of the refined PKN rows: the k + 1 nearest from float32 products, their
    distances recomputed in float64, re-sorted (ties by anchor index), PKN weights."""
    a32 = anchors.astype(np.float32)
    rs = row_sq_norms(x32)
    sel = np.maximum(rs[:, None] + row_sq_norms(a32)[None, :] - 2 * (x32 @ a32.T), 0.0)
    idx = np.argsort(sel, axis=1, kind="stable")[:, : k + 1]
    x64 = x32.astype(np.float64)
    exact = np.maximum(rs[:, None] + (anchors**2).sum(1)[None, :] - 2 * (x64 @ anchors.T), 0)
    d = np.take_along_axis(np.asarray(exact), idx, axis=1)
    order = np.lexsort((idx, d), axis=1)
    idx, d = np.take_along_axis(idx, order, axis=1), np.take_along_axis(d, order, axis=1)
    gaps = d[:, k : k + 1] - d[:, :k]
    return idx[:, :k], gaps / gaps.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("sparse", [False, True])
def test_refined_pkn_rows_match_twin(rng, sparse):
    x = rng.normal(size=(80, 37))
    if sparse:
        x[rng.random(x.shape) < 0.7] = 0.0
    anchors, k = rng.normal(size=(24, 37)) * 0.3, 5
    x32 = x.astype(np.float32)
    a32 = anchors.astype(np.float32)
    gram, rs = x32 @ a32.T, row_sq_norms(x32)
    idx = np.full((80, k), -1, dtype=np.int64)
    w = np.zeros((80, k))
    args = (anchors, rs, row_sq_norms(a32), row_sq_norms(anchors), k, idx, w)
    if sparse:
        xs = sp.csr_matrix(x32)
        pkn_rows_refined_csr_into(gram, xs.indptr, xs.indices, xs.data, *args)
    else:
        pkn_rows_refined_into(gram, x32, *args)
    idx2, w2 = _refined_twin(x32, anchors, k)
    np.testing.assert_array_equal(idx, idx2)
    np.testing.assert_allclose(w, w2, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("sparse", [False, True])
def test_float32_graph_weights_equal_float64_weights_of_the_same_values(rng, sparse):
    # clustered data: each row's nearest anchors lie close together, so the weights divide
    # small differences of distances; float32 products alone gave ~1e-6 errors here
    centres = rng.normal(size=(8, 300)) * 3
    x = centres[rng.integers(8, size=400)] + rng.normal(size=(400, 300)) * 0.5
    if sparse:
        x[rng.random(x.shape) < 0.8] = 0.0
        x = sp.csr_matrix(x)
    anchors = centres[rng.integers(8, size=64)] + rng.normal(size=(64, 300)) * 0.5
    x32 = x.astype(np.float32)
    z32 = pkn_anchor_graph(x32, anchors, 15)
    z64 = pkn_anchor_graph(x32.astype(np.float64), anchors, 15)  # the same (rounded) values
    assert z32.dtype == np.float64
    np.testing.assert_array_equal(z32.indices, z64.indices)
    np.testing.assert_allclose(z32.data, z64.data, rtol=0, atol=1e-11)
