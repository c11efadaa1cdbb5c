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
