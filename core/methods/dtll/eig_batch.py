"""3 × 3 Hermitian eigen-work for a batch of DTLL Fourier slices (``fourier_batch``).

The per-slice functions of ``eig_jit`` (``eig3``, ``null_vector3``) and
``fourier_jit._shrink_matrix`` (the simple-spectrum path) rewritten over a batch, the batch
index innermost, with each complex operation spelled out as numba evaluates it, so that the
values are those of the per-slice code (tests/core/methods/test_dtll_fourier.py). The Gram
matrices come as the upper triangles ``kr``/``ki`` (3, 3, B) of ``fourier_batch._gram3``; the
diagonal's imaginary part is 0. Slices whose kept eigenvalues are within ``_GAP`` of another
are flagged for the per-slice Jacobi path.
"""

from __future__ import annotations

import math

import numpy as np

from core.methods.dtll.fourier_jit import _GAP, _gst_factor
from core.numerics.jit.config import JIT, njit

__all__ = ["eig3_batch", "shrink_matrices"]

_VEC = {"error_model": "numpy"}  # see fourier_batch: lets the batch loops vectorise
_THIRD = 2.0 * math.pi / 3.0


@njit(**JIT, **_VEC)
def eig3_batch(kr: np.ndarray, ki: np.ndarray, nb: int, e: np.ndarray, work: np.ndarray) -> None:
    """``eig_jit.eig3`` of slices 0..nb-1 into e (3, B); ``work`` (4, B) is scratch."""
    mean, pp, arg, flat = work[0], work[1], work[2], work[3]
    for s in range(nb):
        a, b, c = kr[0, 0, s], kr[1, 1, s], kr[2, 2, s]
        off = (kr[0, 1, s] * kr[0, 1, s] + ki[0, 1, s] * ki[0, 1, s]) + (
            kr[0, 2, s] * kr[0, 2, s] + ki[0, 2, s] * ki[0, 2, s]
        )
        off = off + (kr[1, 2, s] * kr[1, 2, s] + ki[1, 2, s] * ki[1, 2, s])
        m = (a + b + c) / 3.0
        p2 = (a - m) ** 2 + (b - m) ** 2 + (c - m) ** 2 + 2.0 * off
        flat[s] = 1.0 if p2 <= 0.0 else 0.0
        q = math.sqrt(p2 / 6.0) if p2 > 0.0 else 1.0
        a, b, c = (a - m) / q, (b - m) / q, (c - m) / q
        r01, i01 = kr[0, 1, s] / q, ki[0, 1, s] / q
        r02, i02 = kr[0, 2, s] / q, ki[0, 2, s] / q
        r12, i12 = kr[1, 2, s] / q, ki[1, 2, s] / q
        # (x01 x12 conj(x02)).real with numba's products: t = x01 x12, then t·conj(x02)
        tr = r01 * r12 - i01 * i12
        ti = r01 * i12 + i01 * r12
        det = a * b * c + 2.0 * (tr * r02 + ti * i02)
        det -= (
            a * (r12 * r12 + i12 * i12) + b * (r02 * r02 + i02 * i02) + c * (r01 * r01 + i01 * i01)
        )
        mean[s] = m
        pp[s] = q
        arg[s] = min(1.0, max(-1.0, 0.5 * det))
    for s in range(nb):  # acos and cos: library calls, one slice at a time
        phi = math.acos(arg[s]) / 3.0
        e[0, s] = math.cos(phi)
        e[2, s] = math.cos(phi + _THIRD)
    for s in range(nb):
        m = mean[s]
        e1 = m + 2.0 * pp[s] * e[0, s]
        e3 = m + 2.0 * pp[s] * e[2, s]
        flat_s = flat[s] > 0.0
        e[0, s] = m if flat_s else e1
        e[1, s] = m if flat_s else 3.0 * m - e1 - e3
        e[2, s] = m if flat_s else e3


@njit(**JIT, **_VEC)
def _cross(a0r, a0i, a1r, a1i, a2r, a2i, b0r, b0i, b1r, b1i, b2r, b2i):
    """a × b for complex 3-vectors as re/im pairs, with numba's complex products."""
    c0r = (a1r * b2r - a1i * b2i) - (a2r * b1r - a2i * b1i)
    c0i = (a1r * b2i + a1i * b2r) - (a2r * b1i + a2i * b1r)
    c1r = (a2r * b0r - a2i * b0i) - (a0r * b2r - a0i * b2i)
    c1i = (a2r * b0i + a2i * b0r) - (a0r * b2i + a0i * b2r)
    c2r = (a0r * b1r - a0i * b1i) - (a1r * b0r - a1i * b0i)
    c2i = (a0r * b1i + a0i * b1r) - (a1r * b0i + a1i * b0r)
    return c0r, c0i, c1r, c1i, c2r, c2i


@njit(**JIT, **_VEC)
def _norm2(c):
    return (c[0] * c[0] + c[1] * c[1]) + (c[2] * c[2] + c[3] * c[3]) + (c[4] * c[4] + c[5] * c[5])


@njit(**JIT, **_VEC)
def _null_vectors(kr, ki, e, a, nb, x):
    """``eig_jit.null_vector3`` of every batch slice for its eigenvalue e[a], into x (6, B)
    (re/im of the three components): the largest of the cross products of two rows of
    K − eI (the first on ties), normalised. Rows from the stored upper triangle (lower
    entries are conjugates, the diagonal is real); straight-line code so the loop over the
    batch vectorises."""
    for s in range(nb):
        ev = e[a, s]
        d0, d1, d2 = kr[0, 0, s] - ev, kr[1, 1, s] - ev, kr[2, 2, s] - ev
        r01, i01 = kr[0, 1, s], ki[0, 1, s]
        r02, i02 = kr[0, 2, s], ki[0, 2, s]
        r12, i12 = kr[1, 2, s], ki[1, 2, s]
        c01 = _cross(d0, 0.0, r01, i01, r02, i02, r01, -i01, d1, 0.0, r12, i12)
        c02 = _cross(d0, 0.0, r01, i01, r02, i02, r02, -i02, r12, -i12, d2, 0.0)
        c12 = _cross(r01, -i01, d1, 0.0, r12, i12, r02, -i02, r12, -i12, d2, 0.0)
        n01, n02, n12 = _norm2(c01), _norm2(c02), _norm2(c12)
        best, c = n01, c01
        if n02 > best:
            best, c = n02, c02
        if n12 > best:
            best, c = n12, c12
        scale = 1.0 / math.sqrt(best) if best > 0.0 else 0.0
        x[0, s], x[1, s] = c[0] * scale, c[1] * scale
        x[2, s], x[3, s] = c[2] * scale, c[3] * scale
        x[4, s], x[5, s] = c[4] * scale, c[5] * scale


@njit(**JIT, **_VEC)
def shrink_matrices(
    kr: np.ndarray,
    ki: np.ndarray,
    e: np.ndarray,
    nb: int,
    thr: float,
    tau: float,
    p: float,
    wr: np.ndarray,
    wi: np.ndarray,
    keep: np.ndarray,
    simple: np.ndarray,
    fac: np.ndarray,
    x: np.ndarray,
) -> None:
    """``fourier_jit._shrink_matrix`` (q = 3) for the batch slices with ``keep`` set, from
    their eigenvalues ``e``: clears ``keep`` where GST zeroes every σ, clears ``simple``
    where a kept eigenvalue is within _GAP of another (the caller then runs the per-slice
    Jacobi path), else writes W = Σ_a GST(σ_a)/σ_a · x_a x_aᴴ into wr/wi (3, 3, B).
    ``fac`` (3, B) and ``x`` (6, B) are scratch."""
    for s in range(nb):
        simple[s] = True
        for a in range(3):
            fac[a, s] = 0.0
        if not keep[s]:
            continue
        top = max(e[0, s], max(e[1, s], e[2, s]))
        if top <= thr * thr:
            keep[s] = False
            continue
        for a in range(3):
            fac[a, s] = _gst_factor(math.sqrt(max(e[a, s], 0.0)), thr, tau, p)
            if fac[a, s] > 0.0:
                for b in range(3):
                    if b != a and abs(e[a, s] - e[b, s]) <= _GAP * top:
                        simple[s] = False
        if not simple[s]:
            for a in range(3):
                fac[a, s] = 0.0
    for i in range(3):
        for j in range(3):
            for s in range(nb):
                wr[i, j, s] = 0.0
                wi[i, j, s] = 0.0
    for a in range(3):
        _null_vectors(kr, ki, e, a, nb, x)
        for i in range(3):
            for j in range(3):
                for s in range(nb):
                    # fac·x_i (a real times a complex), then times conj(x_j); the per-slice
                    # code skips eigenvalues GST zeroes, here they add nothing (fac = 0)
                    f = fac[a, s]
                    xr, xi = f * x[2 * i, s], f * x[2 * i + 1, s]
                    add_r = xr * x[2 * j, s] + xi * x[2 * j + 1, s]
                    add_i = xi * x[2 * j, s] - xr * x[2 * j + 1, s]
                    wr[i, j, s] += add_r if f > 0.0 else 0.0
                    wi[i, j, s] += add_i if f > 0.0 else 0.0
