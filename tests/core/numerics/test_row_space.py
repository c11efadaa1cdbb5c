"""Row-space coordinates of wide views: same Gram matrix, exact lifting, when it applies."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from core.numerics import row_space as rs


def _wide(n=30, d=200, rank=None, seed=0):
    g = np.random.default_rng(seed)
    if rank is None:
        return g.normal(size=(n, d))
    return g.normal(size=(n, rank)) @ g.normal(size=(rank, d))


@pytest.mark.parametrize("kind", ["dense", "sparse", "low_rank", "float32"])
def test_coordinates_keep_every_inner_product_among_samples(kind):
    x = {
        "dense": lambda: _wide(),
        "sparse": lambda: sp.random(30, 500, density=0.3, format="csr", random_state=1),
        "low_rank": lambda: _wide(rank=7),
        "float32": lambda: _wide().astype(np.float32),
    }[kind]()
    space = rs.row_space(x)
    y = space.coords
    xd = x.toarray() if sp.issparse(x) else x.astype(np.float64)
    gram = xd @ xd.T
    tol = 1e-5 if kind == "float32" else 1e-12
    np.testing.assert_allclose(y.astype(np.float64) @ y.T, gram, atol=tol * np.abs(gram).max())
    assert y.shape[0] == 30 and y.dtype == x.dtype
    assert y.shape[1] == (7 if kind == "low_rank" else 30)  # the rank, not d


def test_lift_maps_combinations_of_samples_back_to_the_features():
    x = _wide(rank=12)
    space = rs.row_space(x)
    w = np.random.default_rng(3).random((5, x.shape[0]))  # e.g. group means, centres
    np.testing.assert_allclose(space.lift(w @ space.coords), w @ x, atol=1e-10)
    xs = sp.csr_matrix(x * (np.abs(x) > 1))
    s2 = rs.row_space(xs)
    np.testing.assert_allclose(s2.lift(w @ s2.coords), w @ xs.toarray(), atol=1e-10)


def test_axes_extension_holds_the_first_axes_and_lifts_exactly():
    x = _wide(n=20, d=150)
    ext = rs.with_axes(rs.row_space(x), 3)
    start = ext.start
    np.testing.assert_allclose(start.T @ start, np.eye(3), atol=1e-12)  # orthonormal, as I_{d×3}
    np.testing.assert_allclose(ext.lift(start.T), np.eye(150)[:3], atol=1e-12)  # = e_1 … e_3
    y = ext.coords
    np.testing.assert_allclose(y @ y.T, x @ x.T, atol=1e-9)
    np.testing.assert_allclose(y @ start, x[:, :3], atol=1e-10)  # products with U = I_{d×3}
    w = np.random.default_rng(0).normal(size=(4, 20))
    p = w @ y + np.random.default_rng(1).normal(size=(4, 3)) @ start.T
    q = w @ x + np.random.default_rng(1).normal(size=(4, 3)) @ np.eye(150)[:3]
    np.testing.assert_allclose(ext.lift(p), q, atol=1e-10)


def test_when_a_view_counts_as_wide(monkeypatch):
    assert rs.is_wide(np.zeros((50, 100))) and not rs.is_wide(np.zeros((50, 99)))
    # sparse: by stored values, so sparse text with few words per sample stays as it is
    text = sp.random(100, 10_000, density=0.01, format="csr", random_state=0)
    assert not rs.is_wide(text) and rs.has_more_features(text)
    from core.data.blocks import ArraySource

    assert not rs.is_wide(ArraySource(np.zeros((50, 1000))))  # out-of-core: streamed as it is
    monkeypatch.setattr(rs, "ROW_SPACE_MAX_N", 40)
    assert not rs.is_wide(np.zeros((50, 1000)))
    views, spaces = rs.reduce_wide([np.ones((30, 100)), np.ones((30, 10))])
    assert views[0].shape == (30, 1) and spaces[1] is None and views[1].shape == (30, 10)
    assert rs.describe(spaces) == "view 1: 100 -> 1 dims"
    assert rs.tolerance_scale([np.ones((30, 100))], [np.ones((30, 1))]) == 0.01
