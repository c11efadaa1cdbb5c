"""Tensor Schatten-p norm and proximal step (core.numerics.tensor, kernels in
core.numerics.jit.tensor)."""

from __future__ import annotations

import numpy as np
import pytest

from core.numerics.jit.tensor import gst, gst_array, shrink_slices, slice_singular_values
from core.numerics.tensor import fft_slices, schatten_p_norm, schatten_prox, slice_weights


def gst_twin(y: np.ndarray, tau: float, p: float) -> np.ndarray:
    """NumPy twin of GST (solve_Lp_w.m)."""
    y = np.asarray(y, dtype=float)
    if tau == 0:
        return y.copy()  # the MATLAB code would give NaN thresholds; the prox is the identity
    with np.errstate(divide="ignore"):
        base = 2 * tau * (1 - p)
        thr = base ** (1 / (2 - p)) + p * tau * np.float64(base) ** ((p - 1) / (2 - p))
    x = np.zeros_like(y)
    big = np.abs(y) > thr
    t = np.abs(y[big])
    for _ in range(4):
        t = np.abs(y[big]) - p * tau * t ** (p - 1)
    x[big] = np.sign(y[big]) * t
    return x


def prox_twin(t: np.ndarray, tau: float, p: float, axis: int) -> np.ndarray:
    """NumPy twin of schatten_prox: full complex FFT, one SVD per slice in a Python loop."""
    f = np.moveaxis(np.fft.fft(t, axis=axis), axis, 0)
    out = np.empty_like(f)
    for i in range(f.shape[0]):
        u, s, vh = np.linalg.svd(f[i], full_matrices=False)
        out[i] = (u * gst_twin(s, tau, p)) @ vh
    return np.fft.ifft(np.moveaxis(out, 0, axis), axis=axis)


def norm_twin(t: np.ndarray, p: float, axis: int) -> float:
    f = np.moveaxis(np.fft.fft(t, axis=axis), axis, 0)
    return float(sum((np.linalg.svd(s, compute_uv=False) ** p).sum() for s in f))


@pytest.mark.kernels
@pytest.mark.parametrize("p", [0.1, 0.5, 0.9, 1.0])
@pytest.mark.parametrize("tau", [0.0, 0.05, 1.0, 7.0])
def test_gst_matches_twin(p, tau):
    y = np.linspace(-12, 12, 97)
    np.testing.assert_allclose(gst_array(y, tau, p), gst_twin(y, tau, p), rtol=1e-13, atol=1e-13)


@pytest.mark.kernels
def test_gst_p1_is_soft_thresholding_and_minimises_the_scalar_problem():
    y = np.linspace(-5, 5, 41)
    np.testing.assert_allclose(gst_array(y, 1.5, 1.0), np.sign(y) * np.maximum(np.abs(y) - 1.5, 0))
    grid = np.linspace(-6, 6, 120001)
    for p in (0.3, 0.5, 0.8):
        for yy in (-4.0, -0.7, 0.2, 1.3, 3.5):
            x = gst(yy, 0.6, p)
            f = 0.5 * (grid - yy) ** 2 + 0.6 * np.abs(grid) ** p
            # 4 fixed-point steps: within a small tolerance of the global minimum
            assert 0.5 * (x - yy) ** 2 + 0.6 * abs(x) ** p <= f.min() + 1e-3


@pytest.mark.kernels
@pytest.mark.parametrize("shape", [(7, 5, 3), (6, 4, 4), (9, 12, 2), (5, 3, 1)])
def test_slice_kernels_match_numpy_svd(shape):
    g = np.random.default_rng(sum(shape))
    f = g.normal(size=shape) + 1j * g.normal(size=shape)
    s = np.sort(slice_singular_values(f.copy()), axis=1)
    np.testing.assert_allclose(s, np.sort(np.linalg.svd(f, compute_uv=False), axis=1), rtol=1e-12)
    expect = np.empty_like(f)
    for i in range(shape[0]):
        u, sv, vh = np.linalg.svd(f[i], full_matrices=False)
        expect[i] = (u * gst_twin(sv, 0.8, 0.5)) @ vh
    shrink_slices(f, 0.8, 0.5)
    np.testing.assert_allclose(f, expect, atol=1e-12)


@pytest.mark.kernels
def test_slice_kernels_rank_deficient_and_zero_slices():
    g = np.random.default_rng(1)
    a = g.normal(size=(6, 1)) + 0j
    f = np.stack([a @ g.normal(size=(1, 3)), np.zeros((6, 3))]).astype(np.complex128)
    s = np.sort(slice_singular_values(f.copy()), axis=1)
    assert s[0, 0] == pytest.approx(0, abs=1e-12) and s[0, 1] == pytest.approx(0, abs=1e-12)
    assert s[0, 2] == pytest.approx(np.linalg.norm(f[0]))
    before = f.copy()
    shrink_slices(f, 0.0, 0.5)  # τ = 0: identity, also for a rank-1 slice
    np.testing.assert_allclose(f, before, atol=1e-12)
    shrink_slices(f, 0.5, 1.0)  # rank 1: soft thresholding of the single singular value
    np.testing.assert_allclose(f[0], before[0] * (1 - 0.5 / s[0, 2]), atol=1e-12)
    assert not np.any(f[1])


@pytest.mark.parametrize("n", [20, 21])
@pytest.mark.parametrize("orientation,axis", [("per_sample", 0), ("per_cluster", 1)])
def test_prox_matches_twin_and_is_real(n, orientation, axis):
    t = np.random.default_rng(n).normal(size=(n, 5, 3))
    got = schatten_prox(t, 2.0, 0.5, orientation)
    ref = prox_twin(t, 2.0, 0.5, axis)
    assert np.abs(ref.imag).max() < 1e-10
    np.testing.assert_allclose(got, ref.real, atol=1e-10)
    assert schatten_p_norm(t, 0.5, orientation) == pytest.approx(norm_twin(t, 0.5, axis))


def test_prox_p1_minimises_its_objective():
    """p = 1: J = argmin τ Σ_f ‖Ĵ_f‖_* + (N/2)‖J − T‖²_F; random perturbations do worse."""
    g = np.random.default_rng(0)
    t = g.normal(size=(16, 4, 3))
    tau = 3.0
    j = schatten_prox(t, tau, 1.0)

    def objective(x):
        return tau * schatten_p_norm(x, 1.0) + 0.5 * 16 * np.sum((x - t) ** 2)

    base = objective(j)
    assert 0 < np.abs(j).max() < np.abs(t).max()  # shrunk, not zeroed
    for _ in range(50):
        assert objective(j + 1e-3 * g.normal(size=t.shape)) >= base - 1e-9


def test_prox_limits_and_weights():
    t = np.random.default_rng(2).normal(size=(10, 4, 3))
    np.testing.assert_allclose(schatten_prox(t, 0.0, 0.5), t, atol=1e-12)
    assert not np.any(schatten_prox(t, 1e6, 0.5))
    np.testing.assert_array_equal(slice_weights(6), [1, 2, 2, 1])
    np.testing.assert_array_equal(slice_weights(7), [1, 2, 2, 2])
    assert fft_slices(t).shape == (6, 4, 3)
    assert fft_slices(t, "per_cluster").shape == (3, 10, 3)
    assert fft_slices(np.zeros((10, 2, 5))).shape == (6, 5, 2)  # slices made tall
    with pytest.raises(ValueError, match="orientation"):
        schatten_prox(t, 1.0, 0.5, "per_view")
