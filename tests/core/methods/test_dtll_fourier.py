"""DTLL's ALM in the Fourier domain (dtll/fourier.py, kernels in dtll/fourier_jit.py): kernels
against NumPy twins, and the step against the reference step of alm.py."""

from __future__ import annotations

import numba
import numpy as np
import pytest
import scipy.sparse as sp

from conftest import make_blobs_views
from core.methods.dtll import fourier_batch as fb
from core.methods.dtll import fourier_jit as fj
from core.methods.dtll import solver as dtll_solver
from core.methods.dtll.alm import MU0, AlmParams, AlmState, alm_step
from core.methods.dtll.eig_jit import eig3, hermitian_eig
from core.methods.dtll.fourier import FourierState, fourier_step
from core.methods.dtll.solver import DTLL
from core.methods.dtll.updates import nnz_rows
from core.numerics.graphs import pkn_anchor_graph
from core.numerics.tensor import schatten_p_norm, schatten_prox
from tests.core.numerics.test_tensor import gst_twin


def _same(a, b) -> bool:
    return bool(np.array_equal(a, b))


def _close(a, b) -> bool:
    return bool(np.allclose(a, b, rtol=1e-12, atol=1e-12 * np.max(np.abs(b))))


def _slices(shape, seed, rank=None):
    """Random Fourier-domain slices (V, C, F); ``rank`` < min(V, C) makes them deficient."""
    rng = np.random.default_rng(seed)
    v, c, f = shape
    a = rng.normal(size=shape) + 1j * rng.normal(size=shape)
    if rank is not None:
        left = rng.normal(size=(v, rank, f)) + 1j * rng.normal(size=(v, rank, f))
        right = rng.normal(size=(rank, c, f))
        a = np.einsum("vrf,rcf->vcf", left, right)
    return a


def shrink_twin(t_hat: np.ndarray, tau: float, p: float) -> np.ndarray:
    """Each slice X[c, v] = T̂[v, c, f] replaced by U·GST(Σ)·Vᴴ (NumPy SVD)."""
    out = np.empty_like(t_hat)
    for f in range(t_hat.shape[2]):
        u, s, vh = np.linalg.svd(t_hat[:, :, f].T, full_matrices=False)
        out[:, :, f] = ((u * gst_twin(s, tau, p)) @ vh).T
    return out


@pytest.mark.kernels
@pytest.mark.parametrize("shape", [(3, 10, 40), (2, 5, 33), (5, 3, 20), (6, 10, 17)])
@pytest.mark.parametrize("rank", [None, 1])
@pytest.mark.parametrize("tau", [0.3, 4.0])
def test_shrink_kernel_matches_twin(shape, rank, tau):
    g = _slices(shape, 0, rank)
    m = _slices(shape, 1, rank) * 0.1
    mu, p = 0.7, 0.5
    expected_j = shrink_twin(g + m / mu, tau, p)
    expected_m = m + mu * (g - expected_j)
    j = np.empty_like(g)
    for kernel in (fj._SHRINK, fj.fourier_shrink, fb.shrink):  # fb: batched for 3 views
        mm = m.copy()
        kernel(g, mm, mu, tau, p, j)
        np.testing.assert_allclose(j, expected_j, atol=1e-9 * np.abs(g).max())
        np.testing.assert_allclose(mm, expected_m, atol=1e-9 * np.abs(g).max())


@pytest.mark.kernels
@pytest.mark.parametrize("shape", [(3, 10, 40), (2, 5, 33), (4, 3, 20)])
@pytest.mark.parametrize("p", [0.5, 0.8])
def test_sp_norm_kernel_matches_twin(shape, p):
    g = _slices(shape, 2)
    n = 2 * (shape[2] - 1)
    weights = np.full(shape[2], 2.0)
    weights[0] = weights[-1] = 1.0
    sv = np.linalg.svd(g.transpose(2, 1, 0), compute_uv=False)
    expected = float(weights @ (sv**p).sum(axis=1))
    for kernel in (fj._SP_NORM, fj.fourier_sp_norm, fb.sp_norm):
        assert kernel(g, p, n) == pytest.approx(expected, rel=1e-9)


@pytest.mark.kernels
@pytest.mark.parametrize("shape", [(3, 10, 300), (3, 3, 70), (3, 7, 1)])
@pytest.mark.parametrize("rank", [None, 1, 2])
@pytest.mark.parametrize("tau", [0.3, 4.0, 40.0])
def test_batched_kernels_equal_the_general_ones_bitwise(shape, rank, tau):
    # three views: the batch kernels must give the general kernels' numbers exactly, also
    # where slices are zeroed (large τ) or rank-deficient (the Jacobi fallback). Without
    # the JIT, NumPy's complex scalars divide by multiplying with a reciprocal (numba
    # divides as CPython does): equal to rounding there
    same = _same if not numba.config.DISABLE_JIT else _close
    g = _slices(shape, 7, rank)
    g[:, :, ::5] *= 0.05  # some slices below the threshold
    m = _slices(shape, 8, rank) * 0.1
    mu, p = 0.7, 0.5
    j_ref, m_ref = np.empty_like(g), m.copy()
    fj._SHRINK(g, m_ref, mu, tau, p, j_ref)
    f64 = np.float64
    for kernel in (fb.SHRINK3, fb.SHRINK3_SERIAL):  # on the float64 views
        j, mm = np.empty_like(g), m.copy()
        kernel(g.view(f64), mm.view(f64), mu, tau, p, j.view(f64))
        assert same(j, j_ref) and same(mm, m_ref)
    j, mm = np.empty_like(g), m.copy()
    fb.shrink(g, mm, mu, tau, p, j)
    assert same(j, j_ref) and same(mm, m_ref)
    n = 2 * shape[2] - 1
    general = getattr(fj._SP_NORM, "py_func", fj._SP_NORM)  # as on one thread (no JIT: itself)
    one_thread = general(g, p, n)
    assert same(fb.SP_NORM3(g.view(f64), p, n), one_thread)
    assert same(fb.SP_NORM3_SERIAL(g.view(f64), p, n), one_thread)
    assert same(fb.sp_norm(g, p, n), one_thread)
    assert fb.sp_norm(g, p, n) == pytest.approx(fj.fourier_sp_norm(g, p, n), rel=1e-14)


@pytest.mark.kernels
def test_batched_kernels_hand_other_shapes_to_the_general_ones():
    g, m = _slices((4, 6, 20), 9), _slices((4, 6, 20), 10) * 0.1
    j1, m1, j2, m2 = np.empty_like(g), m.copy(), np.empty_like(g), m.copy()
    fb.shrink(g, m1, 0.7, 0.3, 0.5, j1)
    fj.fourier_shrink(g, m2, 0.7, 0.3, 0.5, j2)
    assert np.array_equal(j1, j2) and np.array_equal(m1, m2)
    assert fb.sp_norm(g, 0.5, 38) == fj.fourier_sp_norm(g, 0.5, 38)


@pytest.mark.kernels
def test_hermitian_eig_and_closed_form_eigenvalues():
    rng = np.random.default_rng(3)
    for q in (2, 3, 5):
        a = rng.normal(size=(7, q)) + 1j * rng.normal(size=(7, q))
        k = a.conj().T @ a
        u = np.empty_like(k)
        work = k.copy()
        hermitian_eig(work, u)
        np.testing.assert_allclose(u @ np.diag(np.diag(work)) @ u.conj().T, k, atol=1e-12)
        np.testing.assert_allclose(
            np.sort(np.diag(work).real), np.linalg.eigvalsh(k), rtol=1e-12, atol=1e-12
        )
        if q == 3:
            ev = np.sort(np.array(eig3(k)))
            np.testing.assert_allclose(ev, np.linalg.eigvalsh(k), atol=1e-12 * ev.max())


@pytest.mark.kernels
def test_label_and_dual_kernels_match_twins():
    rng = np.random.default_rng(4)
    n, m, c = 60, 12, 4
    s = sp.random(n, m, density=0.3, random_state=5, format="csr")
    h = rng.normal(size=(m, c))
    j, mm = rng.normal(size=(c, n)), rng.normal(size=(c, n))
    labels = rng.integers(0, c, n)
    expected = np.argmax(0.7 * (s @ h) + 1.3 * j.T - mm.T, axis=1)
    before = labels.copy()
    changed = fj._LABELS(s.indptr, s.indices, s.data, h, 0.7, 1.3, j, mm, labels)
    assert np.array_equal(labels, expected) and changed == np.count_nonzero(before != expected)
    labels = before.copy()
    assert fj.label_argmax(s.indptr, s.indices, s.data, h, 0.7, 1.3, j, mm, labels) == changed
    view_labels = rng.integers(0, c, (2, n))
    big_j, big_m = rng.normal(size=(2, c, n)), rng.normal(size=(2, c, n))
    onehot = (view_labels[:, None, :] == np.arange(c)[None, :, None]).astype(float)
    for kernel in (fj._DUAL, fj.dual_update):
        m2 = big_m.copy()
        res = kernel(view_labels, big_j, m2, 0.9)
        assert res == np.abs(onehot - big_j).max()
        np.testing.assert_allclose(m2, big_m + 0.9 * (onehot - big_j), rtol=1e-15)


@pytest.mark.kernels
def test_onehot_update_writes_the_one_hot_of_the_new_labels():
    rng = np.random.default_rng(6)
    nv, c, n = 3, 4, 50
    out = np.zeros((nv, c, n))
    built = np.full((nv, n), -1, dtype=np.int64)
    for _ in range(3):  # from nothing, then after moves
        labels = rng.integers(0, c, (nv, n))
        fj.onehot_update(labels, built, out)
        twin = (labels[:, None, :] == np.arange(c)[None, :, None]).astype(float)
        assert np.array_equal(out, twin) and np.array_equal(built, labels)


# -- the step -------------------------------------------------------------------------------
def _problem(n=150, c=3, seed=3):
    views, _ = make_blobs_views(n=n, c=c, dims=(5, 7, 4), sep=1.5, seed=seed)
    graphs = [pkn_anchor_graph(x, x[::5], 5).tocsr() for x in views]
    labels0 = np.random.default_rng(0).integers(0, c, n)
    return graphs, labels0


@pytest.mark.parametrize("n", [150, 151])
def test_fourier_step_equals_the_reference_step(n):
    """Same labels, residuals and objectives as alm.alm_step, 𝒥 and ℳ to rounding, over a
    whole run (labels moving, then still)."""
    graphs, labels0 = _problem(n)
    c, nv = 3, len(graphs)
    rows = [nnz_rows(g) for g in graphs]
    ref = AlmState(
        rows=rows,
        view_labels=np.tile(labels0, (nv, 1)),
        big_g=np.zeros((n, c, nv)),
        big_j=np.zeros((n, c, nv)),
        big_m=np.zeros((n, c, nv)),
        alpha=np.full(nv, 1 / nv),
        mu=MU0,
    )
    new = FourierState(rows, np.tile(labels0, (nv, 1)), np.full(nv, 1 / nv), MU0, c)
    params = AlmParams(1.0, 0.5, 0.5, "per_sample", True)
    moved = 0
    for _ in range(120):
        obj_ref, step_ref = alm_step(graphs, ref, c, params)
        obj, step = fourier_step(graphs, new, params)
        assert np.array_equal(new.view_labels, ref.view_labels)
        assert step["changed"] == step_ref["changed"]
        assert step["residual"] == pytest.approx(step_ref["residual"], rel=1e-9, abs=1e-12)
        # rounding-level singular values (~1e-16) count as 0 here, as 1e-8 each (p = 1/2)
        # in the reference
        assert obj == pytest.approx(obj_ref, rel=1e-8)
        big_j, big_m = new.tensors()
        np.testing.assert_allclose(big_j, ref.big_j, atol=1e-9)
        np.testing.assert_allclose(big_m, ref.big_m, atol=1e-9 * max(1, np.abs(ref.big_m).max()))
        moved += step["changed"] > 0
    assert moved > 1


def test_fit_labels_equal_the_reference_path(monkeypatch):
    views, _ = make_blobs_views(n=240, c=4, dims=(6, 8, 5), sep=1.2, seed=7)
    fast = DTLL(n_clusters=4, lam=1.0).fit(views)
    monkeypatch.setattr(dtll_solver, "FOURIER_STEP", False)
    ref = DTLL(n_clusters=4, lam=1.0).fit(views)
    assert np.array_equal(fast.labels_, ref.labels_) and fast.n_iter_ == ref.n_iter_
    np.testing.assert_allclose(fast.objective_history_, ref.objective_history_, rtol=1e-8)


def test_reference_tensor_functions_agree_on_the_fourier_layout():
    """schatten_prox / schatten_p_norm (N × C × V) and the kernels ((V, C, F)) agree."""
    rng = np.random.default_rng(9)
    t = rng.normal(size=(64, 4, 3))
    t_hat = np.fft.rfft(t.transpose(2, 1, 0), axis=-1)
    j_hat = np.empty_like(t_hat)
    fj.fourier_shrink(t_hat, np.zeros_like(t_hat), 1.0, 2.0, 0.5, j_hat)
    back = np.fft.irfft(j_hat, n=64, axis=-1).transpose(2, 1, 0)
    np.testing.assert_allclose(back, schatten_prox(t, 2.0, 0.5), atol=1e-10)
    assert fj.fourier_sp_norm(t_hat, 0.5, 64) == pytest.approx(schatten_p_norm(t, 0.5), rel=1e-9)
