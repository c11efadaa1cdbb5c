"""The polar factor with a noise-free completion (MVSC-HFD's rank-deficient layer products)."""

import numpy as np
import pytest

from core.numerics.linalg import polar, polar_stable


@pytest.mark.parametrize(("p", "q", "r"), [(60, 32, 5), (19, 6, 2), (6, 6, 1), (201, 152, 5)])
def test_rank_deficient_factor_is_optimal_and_ignores_noise(p, q, r):
    rng = np.random.default_rng(p + q + r)
    m = rng.normal(size=(p, r)) @ rng.normal(size=(r, q))
    w = polar_stable(m)
    np.testing.assert_allclose(w.T @ w, np.eye(q), atol=1e-12)
    # every maximiser of tr(Wᵀm) has the same trace: the nuclear norm
    assert np.trace(w.T @ m) == pytest.approx(np.linalg.norm(m, "nuc"), rel=1e-12)
    noisy = m * (1 + 1e-9 * rng.standard_normal(m.shape))
    assert np.abs(polar_stable(noisy) - w).max() < 1e-6
    # the SVD's own completion follows the noise (what made MVSC-HFD chaotic)
    assert np.abs(polar(noisy) - polar(m)).max() > 1e-3


def test_full_rank_and_zero_keep_the_plain_factor():
    m = np.random.default_rng(0).normal(size=(9, 4))
    assert np.array_equal(polar_stable(m), polar(m))
    np.testing.assert_array_equal(polar_stable(np.zeros((5, 3))), np.eye(5, 3))


def test_completion_survives_a_column_space_the_identity_cannot_reach():
    # span(U_r) holds e_1, e_2, which the truncated identity maps the complement onto
    m = np.zeros((8, 5))
    m[0, 0], m[1, 1] = 1.0, 2.0
    w = polar_stable(m)
    np.testing.assert_allclose(w.T @ w, np.eye(5), atol=1e-12)
    assert np.trace(w.T @ m) == pytest.approx(3.0)
