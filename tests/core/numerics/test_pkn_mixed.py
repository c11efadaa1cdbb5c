"""Mixed-precision PKN rows (float32 screening, float64 distances) against float64 twins,
including near-tied distances that float32 products cannot order; the strided-minimum
selection of the k + 1 nearest against a stable sort."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from core.numerics import graphs
from core.numerics.graphs import pkn_anchor_graph, row_sq_norms
from core.numerics.jit.graph import pkn_rows
from core.numerics.jit.pkn_mixed import pkn_rows_mixed_into, screen_bounds
from core.numerics.jit.select import _kth_smallest

pytestmark = pytest.mark.kernels


def _twin(x, anchors, k):
    """NumPy twin: PKN rows of the float64 distances, k + 1 nearest by a stable sort."""
    d = np.maximum(row_sq_norms(x)[:, None] + row_sq_norms(anchors)[None, :] - 2 * x @ anchors.T, 0)
    idx = np.argsort(d, axis=1, kind="stable")[:, : k + 1]
    ds = np.take_along_axis(d, idx, axis=1)
    gaps = ds[:, k : k + 1] - ds[:, :k]
    return idx[:, :k], gaps / gaps.sum(axis=1, keepdims=True)


def _mixed(x, anchors, k):
    """The kernel on one block: (indices, weights, float64 distances computed)."""
    gram = x.astype(np.float32) @ anchors.astype(np.float32).T
    sq = row_sq_norms(anchors)
    idx = np.full((x.shape[0], k), -1, dtype=np.int64)
    w = np.zeros((x.shape[0], k))
    args = (row_sq_norms(x), sq, np.sqrt(sq), *screen_bounds(x.shape[1]), k, idx, w)
    done = pkn_rows_mixed_into(gram, x, anchors, *args)
    return idx, w, done


@pytest.mark.parametrize("case", ["random", "ties", "duplicates", "odd-m"])
@pytest.mark.parametrize("k", [15, 31])
def test_selection_with_chunk_bound_matches_a_stable_sort(rng, case, k):
    # m >= 512 anchors and 2(k + 1) <= 64 take the strided-minimum path
    m = 1000 if case == "odd-m" else 1024
    x, anchors = rng.normal(size=(80, 12)), rng.normal(size=(m, 12))
    if case == "ties":  # many exactly equal distances, also at the (k+1)-th place
        x, anchors = np.round(x), np.round(anchors)
    elif case == "duplicates":
        anchors = np.repeat(anchors[: m // 8], 8, axis=0)
    gram, rs, us = x @ anchors.T, row_sq_norms(x), row_sq_norms(anchors)
    idx, w = pkn_rows(gram, rs, us, k)
    d = np.maximum(rs[:, None] + us[None, :] - 2 * gram, 0.0)
    order = np.argsort(d, axis=1, kind="stable")[:, : k + 1]
    np.testing.assert_array_equal(idx, order[:, :k])
    ds = np.take_along_axis(d, order, axis=1)
    gaps = ds[:, k : k + 1] - ds[:, :k]
    den = gaps.sum(axis=1, keepdims=True)
    expect = np.where(
        den > 1e-12 * np.maximum(ds[:, k : k + 1], 1e-300), gaps / np.where(den > 0, den, 1), 1 / k
    )
    np.testing.assert_allclose(w, expect, rtol=1e-12, atol=1e-14)


def test_kth_smallest_equals_partition(rng):
    for size in (1, 2, 7, 64):
        a = np.round(rng.normal(size=size), 1)  # with repeated values
        for k in range(size):
            assert _kth_smallest(a.copy(), k) == np.partition(a, k)[k]


@pytest.mark.parametrize("k", [1, 5, 15])
def test_mixed_rows_match_float64_twin(rng, k):
    x, anchors = rng.normal(size=(70, 40)), rng.normal(size=(64, 40)) * 0.7
    idx, w, done = _mixed(x, anchors, k)
    idx2, w2 = _twin(x, anchors, k)
    np.testing.assert_array_equal(idx, idx2)
    np.testing.assert_allclose(w, w2, rtol=1e-10, atol=1e-13)
    assert done >= 70 * (k + 1)


def test_near_ties_are_ordered_in_float64(rng):
    # anchors 1e-6 apart around one centre: their distances to a row differ by ~1e-5 out of
    # ~600, below float32's resolution (~1e-4 here) and far above float64's (~1e-13)
    n, d, k = 60, 300, 5
    centre = rng.normal(size=d)
    anchors = np.vstack([centre + 1e-6 * rng.normal(size=(40, d)), rng.normal(size=(30, d)) * 3])
    x = centre + rng.normal(size=(n, d))
    idx, w, done = _mixed(x, anchors, k)
    idx2, w2 = _twin(x, anchors, k)
    np.testing.assert_array_equal(idx, idx2)
    np.testing.assert_allclose(w, w2, rtol=1e-6, atol=1e-7)  # gaps of ~1e-5, float64 rounding
    # the screen let the whole tied group through (k + 1 + 2 listed: the second look ran)
    assert done >= n * 40
    # and the data are hard: the float32 products alone pick other neighbours
    gram32 = (x.astype(np.float32) @ anchors.astype(np.float32).T).astype(np.float64)
    idx32, _ = pkn_rows(gram32, row_sq_norms(x), row_sq_norms(anchors), k)
    assert not np.array_equal(idx32, idx2)


def test_exact_ties_keep_the_smaller_anchor_index(rng):
    x = rng.normal(size=(20, 32))
    anchors = np.repeat(rng.normal(size=(8, 32)), 4, axis=0)  # every anchor four times
    idx, w, _ = _mixed(x, anchors, 6)
    idx2, w2 = _twin(x, anchors, 6)
    np.testing.assert_array_equal(idx, idx2)
    np.testing.assert_allclose(w, w2, rtol=1e-10, atol=1e-13)


def test_screen_bound_covers_the_float32_error(rng):
    # the bound holds entry by entry on data with a large common offset (poor conditioning)
    d = 500
    x, u = rng.normal(size=(50, d)) + 20.0, rng.normal(size=(40, d)) + 20.0
    rel, norm, tiny = screen_bounds(d)
    xs, us = row_sq_norms(x), row_sq_norms(u)
    d32 = xs[:, None] + us[None, :] - 2 * (x.astype(np.float32) @ u.astype(np.float32).T)
    d64 = xs[:, None] + us[None, :] - 2 * (x @ u.T)
    xn, un = np.sqrt(xs)[:, None], np.sqrt(us)[None, :]
    bound = rel * xn * un + norm * (xs[:, None] + us[None, :]) + tiny * (1 + xn + un)
    gap = np.abs(d32 - d64)
    assert (gap <= bound).all()
    assert gap.max() > 1e-3 * bound.max()  # not vacuous: within three orders of the bound


def test_builder_mixed_graph_equals_float64_graph(rng, monkeypatch):
    centres = rng.normal(size=(6, 256)) * 2
    x = centres[rng.integers(6, size=900)] + rng.normal(size=(900, 256))
    anchors = centres[rng.integers(6, size=64)] + rng.normal(size=(64, 256)) * 0.3
    monkeypatch.setattr(graphs, "PKN_BLOCK_BYTES", 64 * 4 * 64)  # many blocks on the threads
    z64 = pkn_anchor_graph(x, anchors, 10)
    zmx = pkn_anchor_graph(x, anchors, 10, mixed=True)
    np.testing.assert_array_equal(zmx.indptr, z64.indptr)
    np.testing.assert_array_equal(zmx.indices, z64.indices)
    np.testing.assert_allclose(zmx.data, z64.data, rtol=0, atol=1e-12)


def test_builder_mixed_float32_is_the_float64_graph_of_the_stored_values(rng):
    # float32 data: the k + 1 nearest are certified in float64, not taken from float32
    # products (near ties: anchors 1e-4 apart, below float32 resolution at this offset)
    centre = rng.normal(size=256) + 3.0
    anchors = np.vstack([centre + 1e-4 * rng.normal(size=(40, 256)), rng.normal(size=(40, 256))])
    x32 = (centre + rng.normal(size=(300, 256))).astype(np.float32)
    exact = pkn_anchor_graph(x32.astype(np.float64), anchors, 6)
    mixed = pkn_anchor_graph(x32, anchors, 6, mixed=True)
    np.testing.assert_array_equal(mixed.indices, exact.indices)
    np.testing.assert_allclose(mixed.data, exact.data, rtol=0, atol=1e-7)
    plain32 = pkn_anchor_graph(x32, anchors, 6)  # selection from float32 products
    assert not np.array_equal(plain32.indices, exact.indices)


@pytest.mark.parametrize("case", ["narrow", "float32-narrow", "sparse", "huge"])
def test_builder_keeps_the_plain_path_where_mixed_does_not_apply(rng, case):
    d = 16 if "narrow" in case else 256
    x, anchors = rng.normal(size=(120, d)), rng.normal(size=(40, d))
    if case == "float32-narrow":
        x = x.astype(np.float32)
    elif case == "sparse":
        x[rng.random(x.shape) < 0.8] = 0.0
        x = sp.csr_matrix(x)
    elif case == "huge":  # float32 products could overflow: the block falls back to float64
        x, anchors = x * 1e30, anchors * 1e30
    plain, mixed = pkn_anchor_graph(x, anchors, 5), pkn_anchor_graph(x, anchors, 5, mixed=True)
    np.testing.assert_array_equal(mixed.indices, plain.indices)
    np.testing.assert_array_equal(mixed.data, plain.data)
