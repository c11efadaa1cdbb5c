"""Tensor kernels: generalised shrinkage thresholding (GST) and the tensor Schatten-p
proximal step on Fourier slices (one-sided Jacobi SVD per slice).

GST and the slice shrinkage follow docs/methods/dtll.md (dtll spec §6.2).
"""

from __future__ import annotations

import math

import numpy as np
from numba import prange

from core.numerics.jit.config import JIT, PARALLEL_JIT, njit

_JACOBI_EPS = 1e-15
_JACOBI_SWEEPS = 40
_GST_STEPS = 4  # fixed-point steps of the reference code (solve_Lp_w.m)


@njit(**JIT)
def gst_threshold(tau: float, p: float) -> float:
    """Threshold below which GST returns 0: (2τ(1−p))^(1/(2−p)) + pτ(2τ(1−p))^((p−1)/(2−p))."""
    base = 2.0 * tau * (1.0 - p)
    if base == 0.0:
        # p = 1 (soft thresholding): 0**0 = 1 gives thr = τ; τ = 0 gives 0
        return tau if p == 1.0 else 0.0
    return base ** (1.0 / (2.0 - p)) + p * tau * base ** ((p - 1.0) / (2.0 - p))


@njit(**JIT)
def gst(y: float, tau: float, p: float) -> float:
    """GST(y; τ, p) (Zuo et al. 2013): the minimiser of ½(x − y)² + τ|x|^p, 0 < p ≤ 1."""
    ay = abs(y)
    if tau <= 0.0:
        return y
    if ay <= gst_threshold(tau, p):
        return 0.0
    t = ay
    for _ in range(_GST_STEPS):
        t = ay - p * tau * t ** (p - 1.0)
    return t if y >= 0.0 else -t


@njit(**JIT)
def gst_array(y: np.ndarray, tau: float, p: float) -> np.ndarray:
    """GST applied elementwise to a 1-D array."""
    out = np.empty_like(y)
    for i in range(y.shape[0]):
        out[i] = gst(y[i], tau, p)
    return out


@njit(**JIT)
def _jacobi_columns(a: np.ndarray, v: np.ndarray) -> None:
    """One-sided (Hestenes) Jacobi on the columns of a (r x q, complex), in place.

    On return the columns of ``a`` are orthogonal, ``v`` (q x q) is unitary and
    a_in = a_out vᴴ, so the singular values are the column norms of a_out.
    """
    r, q = a.shape
    for i in range(q):
        for j in range(q):
            v[i, j] = 1.0 if i == j else 0.0
    for _ in range(_JACOBI_SWEEPS):
        rotated = False
        for i in range(q - 1):
            for j in range(i + 1, q):
                alpha = 0.0
                beta = 0.0
                gamma = 0.0j
                for t in range(r):
                    ai = a[t, i]
                    aj = a[t, j]
                    alpha += ai.real * ai.real + ai.imag * ai.imag
                    beta += aj.real * aj.real + aj.imag * aj.imag
                    gamma += ai.conjugate() * aj
                g = abs(gamma)
                if g == 0.0 or g <= _JACOBI_EPS * math.sqrt(alpha * beta):
                    continue
                rotated = True
                phase = gamma / g  # scale column j by conj(phase): a_iᴴ a_j becomes real
                ph = phase.conjugate()
                zeta = (beta - alpha) / (2.0 * g)
                tt = (1.0 if zeta >= 0.0 else -1.0) / (abs(zeta) + math.sqrt(1.0 + zeta * zeta))
                c = 1.0 / math.sqrt(1.0 + tt * tt)
                s = c * tt
                for t in range(r):
                    ai = a[t, i]
                    aj = a[t, j] * ph
                    a[t, i] = c * ai - s * aj
                    a[t, j] = s * ai + c * aj
                for t in range(q):
                    vi = v[t, i]
                    vj = v[t, j] * ph
                    v[t, i] = c * vi - s * vj
                    v[t, j] = s * vi + c * vj
        if not rotated:
            break


@njit(**PARALLEL_JIT)
def shrink_slices(f: np.ndarray, tau: float, p: float) -> None:
    """Replace every slice f[b] (r x q complex, r ≥ q) by U·GST(Σ)·Vᴴ, in place.

    Uses f[b] = (f[b] V) Vᴴ with orthogonal columns f[b] V = U Σ, so the shrunk slice is
    (f[b] V) diag(GST(σ)/σ) Vᴴ; σ = 0 columns are dropped.
    """
    nb, r, q = f.shape
    for b in prange(nb):
        a = f[b].copy()
        v = np.empty((q, q), dtype=np.complex128)
        _jacobi_columns(a, v)
        factor = np.empty(q, dtype=np.float64)
        for j in range(q):
            s = 0.0
            for t in range(r):
                s += a[t, j].real * a[t, j].real + a[t, j].imag * a[t, j].imag
            s = math.sqrt(s)
            factor[j] = gst(s, tau, p) / s if s > 0.0 else 0.0
        for t in range(r):
            for k in range(q):
                acc = 0.0j
                for j in range(q):
                    acc += a[t, j] * factor[j] * v[k, j].conjugate()
                f[b, t, k] = acc


@njit(**PARALLEL_JIT)
def slice_singular_values(f: np.ndarray) -> np.ndarray:
    """Singular values (unsorted) of every slice f[b] (r x q complex, r ≥ q): (nb, q)."""
    nb, r, q = f.shape
    out = np.empty((nb, q), dtype=np.float64)
    for b in prange(nb):
        a = f[b].copy()
        v = np.empty((q, q), dtype=np.complex128)
        _jacobi_columns(a, v)
        for j in range(q):
            s = 0.0
            for t in range(r):
                s += a[t, j].real * a[t, j].real + a[t, j].imag * a[t, j].imag
            out[b, j] = math.sqrt(s)
    return out
