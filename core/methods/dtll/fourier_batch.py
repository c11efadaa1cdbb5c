"""DTLL's Fourier-slice kernels for three views, a batch of slices at a time.

The same arithmetic as ``fourier_jit._fourier_shrink`` and ``_fourier_sp_norm`` (bit for
bit: tests/core/methods/test_dtll_fourier.py), arranged so that the work on the C × 3
slices runs on vector registers: the slices' real and imaginary parts are copied into
batch-major arrays (the batch index innermost), and the Gram matrices and the products with
the 3 × 3 shrinkage matrices are loops over the batch, with every complex product written as
numba computes it ((a + bi)(c + di) = (ac − bd) + (ad + bc)i); the 3 × 3 eigen-work is
batched too (``eig_batch``), except slices with close eigenvalues (the per-slice Jacobi path)
and the acos/cos calls. At n = 100k, late in a run (every slice kept), the shrink took 45 ms
per step on one thread.
"""

from __future__ import annotations

import math

import numpy as np
from numba import prange

from core.methods.dtll.eig_batch import eig3_batch, shrink_matrices
from core.methods.dtll.eig_jit import hermitian_eig
from core.methods.dtll.fourier_jit import (
    _CHUNK,
    _GAP,
    _ZERO_EIG,
    PARALLEL_SIZE,
    _shrink_matrix,
    fourier_shrink,
    fourier_sp_norm,
)
from core.numerics.jit.config import JIT, PARALLEL_JIT, njit
from core.numerics.jit.tensor import gst_threshold

__all__ = ["BATCH", "shrink", "sp_norm"]

BATCH = 64  # slices per batch: the batch arrays of a thread stay in L1/L2
#: no division in these kernels may be zero-tested (the NumPy error model lets the batch
#: loops vectorise; every divisor here is a count or a positive norm)
_VEC = {"error_model": "numpy"}


@njit(**JIT, **_VEC)
def _load(gf, mf, inv_mu, f0, nb, gb, mb, tr, ti, total):
    """T̂ = Ĝ + M̂/μ for slices f0..f0+nb into (3, C, B) real/imaginary arrays, and each
    slice's squared Frobenius norm (v outer, c inner, as the scalar kernel). ``gf``, ``mf``:
    Ĝ and M̂ viewed as float64 (re, im interleaved); their batch is kept in ``gb``, ``mb``
    (3, C, 2B) for :func:`_store`, which then only writes. numba computes M̂·(1/μ) as a
    complex product with (1/μ + 0i): the same values as mr/μ, mi/μ (signs of zeros aside)."""
    nv, nc = gf.shape[0], gf.shape[1]
    for s in range(nb):
        total[s] = 0.0
    for v in range(nv):
        for c in range(nc):
            g = gf[v, c, 2 * f0 : 2 * (f0 + nb)]
            m = mf[v, c, 2 * f0 : 2 * (f0 + nb)]
            for s in range(2 * nb):
                gb[v, c, s] = g[s]
                mb[v, c, s] = m[s]
            for s in range(nb):
                tr[v, c, s] = gb[v, c, 2 * s] + mb[v, c, 2 * s] * inv_mu
                ti[v, c, s] = gb[v, c, 2 * s + 1] + mb[v, c, 2 * s + 1] * inv_mu
            for s in range(nb):
                total[s] += tr[v, c, s] * tr[v, c, s] + ti[v, c, s] * ti[v, c, s]


@njit(**JIT, **_VEC)
def _store(mf, jf, mu, f0, nb, gb, mb, keep, xr, xi):
    """Ĵ and M̂ += μ(Ĝ − Ĵ) for the batch (Ĵ = 0 where not kept), on the float64 views,
    from the batch copies of Ĝ and M̂ made by :func:`_load`."""
    nv, nc = gb.shape[0], gb.shape[1]
    for v in range(nv):
        for c in range(nc):
            m = mf[v, c, 2 * f0 : 2 * (f0 + nb)]
            j = jf[v, c, 2 * f0 : 2 * (f0 + nb)]
            for s in range(nb):
                jr = xr[v, c, s] if keep[s] else 0.0
                ji = xi[v, c, s] if keep[s] else 0.0
                j[2 * s] = jr
                j[2 * s + 1] = ji
                m[2 * s] = mb[v, c, 2 * s] + mu * (gb[v, c, 2 * s] - jr)
                m[2 * s + 1] = mb[v, c, 2 * s + 1] + mu * (gb[v, c, 2 * s + 1] - ji)


@njit(**JIT, **_VEC)
def _gram3(tr, ti, nb, kr, ki):
    """Gram matrices XᴴX (3 × 3) of the batch: k[a, b] = Σ_c conj(t[a, c]) t[b, c] for
    a ≤ b, summed over c in order as ``fourier_jit._gram`` (conj(x)·y computed as numba
    does: real ar·br + ai·bi, imaginary ar·bi − ai·br)."""
    nc = tr.shape[1]
    for a in range(3):
        for b in range(a, 3):
            for s in range(nb):
                kr[a, b, s] = 0.0
                ki[a, b, s] = 0.0
            for c in range(nc):
                for s in range(nb):
                    ar = tr[a, c, s]
                    ai = ti[a, c, s]
                    br = tr[b, c, s]
                    bi = ti[b, c, s]
                    kr[a, b, s] += ar * br + ai * bi
                    ki[a, b, s] += ar * bi - ai * br


@njit(**JIT)
def _pack(kr, ki, s, k):
    """Slice s's Gram matrix as the complex 3 × 3 array of ``fourier_jit._gram``."""
    for a in range(3):
        for b in range(a, 3):
            z = complex(kr[a, b, s], ki[a, b, s])
            k[a, b] = z
            k[b, a] = z.conjugate()


@njit(**JIT, **_VEC)
def _times_w(tr, ti, wr, wi, nb, xr, xi):
    """Ĵ = X W per slice (x[b, c] = Σ_a t[a, c] w[a, b], a in order)."""
    nc = tr.shape[1]
    for b in range(3):
        for c in range(nc):
            for s in range(nb):
                accr = 0.0
                acci = 0.0
                for a in range(3):
                    accr += tr[a, c, s] * wr[a, b, s] - ti[a, c, s] * wi[a, b, s]
                    acci += tr[a, c, s] * wi[a, b, s] + ti[a, c, s] * wr[a, b, s]
                xr[b, c, s] = accr
                xi[b, c, s] = acci


def _shrink3(gf, mf, mu, tau, p, jf):
    """``fourier_jit._fourier_shrink`` for V = 3 ≤ C, a batch of slices at a time, on Ĝ,
    M̂ and Ĵ viewed as float64 (V, C, 2F)."""
    nc, nf = gf.shape[1], gf.shape[2] // 2
    thr = gst_threshold(tau, p)
    inv_mu = 1.0 / mu
    for chunk in prange((nf + _CHUNK - 1) // _CHUNK):
        gb = np.empty((3, nc, 2 * BATCH))
        mb = np.empty((3, nc, 2 * BATCH))
        tr = np.empty((3, nc, BATCH))
        ti = np.empty((3, nc, BATCH))
        xr = np.empty((3, nc, BATCH))
        xi = np.empty((3, nc, BATCH))
        kr = np.empty((3, 3, BATCH))
        ki = np.empty((3, 3, BATCH))
        wr = np.zeros((3, 3, BATCH))
        wi = np.zeros((3, 3, BATCH))
        total = np.empty(BATCH)
        keep = np.zeros(BATCH, dtype=np.bool_)
        simple = np.ones(BATCH, dtype=np.bool_)
        facs = np.empty((3, BATCH))
        vec = np.empty((6, BATCH))
        e = np.empty((3, BATCH))
        work = np.empty((4, BATCH))
        k = np.empty((3, 3), dtype=np.complex128)
        u = np.empty((3, 3), dtype=np.complex128)
        w = np.empty((3, 3), dtype=np.complex128)
        fac = np.empty(3)
        lo = chunk * _CHUNK
        hi = min(nf, lo + _CHUNK)
        for f0 in range(lo, hi, BATCH):
            nb = min(BATCH, hi - f0)
            _load(gf, mf, inv_mu, f0, nb, gb, mb, tr, ti, total)
            _gram3(tr, ti, nb, kr, ki)
            for s in range(nb):  # σ_max² ≤ ‖X‖²_F ≤ thr²: GST zeroes the slice
                keep[s] = total[s] > thr * thr
            eig3_batch(kr, ki, nb, e, work)
            shrink_matrices(kr, ki, e, nb, thr, tau, p, wr, wi, keep, simple, facs, vec)
            for s in range(nb):
                if keep[s] and not simple[s]:  # close eigenvalues: the per-slice Jacobi path
                    _pack(kr, ki, s, k)
                    keep[s] = _shrink_matrix(k, u, fac, w, thr, tau, p)
                    for a in range(3):
                        for b in range(3):
                            wr[a, b, s] = w[a, b].real
                            wi[a, b, s] = w[a, b].imag
            _times_w(tr, ti, wr, wi, nb, xr, xi)
            _store(mf, jf, mu, f0, nb, gb, mb, keep, xr, xi)


def _sp_norm3(gf, p, n):
    """``fourier_jit._fourier_sp_norm`` for V = 3 ≤ C, a batch of slices at a time, on Ĝ
    viewed as float64 (V, C, 2F)."""
    nc, nf = gf.shape[1], gf.shape[2] // 2
    nchunks = (nf + _CHUNK - 1) // _CHUNK
    part = np.zeros(nchunks)
    for chunk in prange(nchunks):
        tr = np.empty((3, nc, BATCH))
        ti = np.empty((3, nc, BATCH))
        kr = np.empty((3, 3, BATCH))
        ki = np.empty((3, 3, BATCH))
        total = np.empty(BATCH)
        e = np.empty((3, BATCH))
        work = np.empty((4, BATCH))
        k = np.empty((3, 3), dtype=np.complex128)
        u = np.empty((3, 3), dtype=np.complex128)
        ev = np.empty(3)
        acc = 0.0
        lo = chunk * _CHUNK
        hi = min(nf, lo + _CHUNK)
        for f0 in range(lo, hi, BATCH):
            nb = min(BATCH, hi - f0)
            _copy(gf, f0, nb, tr, ti)
            _gram3(tr, ti, nb, kr, ki)
            eig3_batch(kr, ki, nb, e, work)
            for s in range(nb):
                for a in range(3):
                    ev[a] = e[a, s]
                top = max(ev[0], max(ev[1], ev[2]))
                if (
                    abs(ev[0] - ev[1]) <= _GAP * top
                    or abs(ev[0] - ev[2]) <= _GAP * top
                    or abs(ev[1] - ev[2]) <= _GAP * top
                ):  # the cubic's roots lose ~sqrt(eps) where two nearly coincide
                    _pack(kr, ki, s, k)
                    hermitian_eig(k, u)
                    for a in range(3):
                        ev[a] = k[a, a].real
                top = 0.0
                for a in range(3):
                    top = max(top, ev[a])
                total[s] = 0.0
                for a in range(3):
                    if ev[a] > _ZERO_EIG * top:
                        total[s] += math.sqrt(math.sqrt(ev[a])) if p == 0.5 else ev[a] ** (0.5 * p)
            for s in range(nb):
                f = f0 + s
                weight = 1.0 if f == 0 or (n % 2 == 0 and f == nf - 1) else 2.0
                acc += weight * total[s]
        part[chunk] = acc
    return part.sum()


@njit(**JIT, **_VEC)
def _copy(gf, f0, nb, tr, ti):
    """Slices f0..f0+nb of Ĝ (float64 view) into (3, C, B) real/imaginary arrays."""
    for v in range(3):
        for c in range(gf.shape[1]):
            g = gf[v, c, 2 * f0 : 2 * (f0 + nb)]
            for s in range(nb):
                tr[v, c, s] = g[2 * s]
                ti[v, c, s] = g[2 * s + 1]


SHRINK3 = njit(**PARALLEL_JIT)(_shrink3)
SHRINK3_SERIAL = njit(**JIT)(_shrink3)
SP_NORM3 = njit(**PARALLEL_JIT)(_sp_norm3)
SP_NORM3_SERIAL = njit(**JIT)(_sp_norm3)


def _batched(g_hat: np.ndarray) -> bool:
    """Three views and at least three clusters: the Gram matrices are 3 × 3 over the views."""
    return g_hat.shape[0] == 3 and g_hat.shape[1] >= 3


def shrink(
    g_hat: np.ndarray, m_hat: np.ndarray, mu: float, tau: float, p: float, j_hat: np.ndarray
) -> None:
    """``fourier_jit.fourier_shrink`` (same results), batched for three views."""
    if not (_batched(g_hat) and all(a.flags.c_contiguous for a in (g_hat, m_hat, j_hat))):
        fourier_shrink(g_hat, m_hat, mu, tau, p, j_hat)
        return
    # small tensors on the calling thread (as fourier_jit._run); the float64 views of the
    # C-ordered complex arrays interleave re and im along the last axis
    kernel = SHRINK3 if g_hat.size >= PARALLEL_SIZE else SHRINK3_SERIAL
    f64 = np.float64
    kernel(g_hat.view(f64), m_hat.view(f64), mu, tau, p, j_hat.view(f64))


def sp_norm(g_hat: np.ndarray, p: float, n: int) -> float:
    """``fourier_jit.fourier_sp_norm``, batched for three views (the same per-slice values;
    the total is summed as on one thread, where the parallel reduction of the general kernel
    can differ in the last bit)."""
    if not (_batched(g_hat) and g_hat.flags.c_contiguous):
        return fourier_sp_norm(g_hat, p, n)
    kernel = SP_NORM3 if g_hat.size >= PARALLEL_SIZE else SP_NORM3_SERIAL
    return float(kernel(g_hat.view(np.float64), p, n))
