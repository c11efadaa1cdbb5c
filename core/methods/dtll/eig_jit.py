"""Small Hermitian eigenproblems for DTLL's Fourier slices (dtll/fourier_jit.py): cyclic
Jacobi for any size, closed-form eigenvalues and cross-product eigenvectors for 3 × 3."""

from __future__ import annotations

import math

import numpy as np

from core.numerics.jit.config import JIT, njit

__all__ = ["abs2", "eig3", "hermitian_eig", "null_vector3"]

EIG_EPS = 1e-15
_EIG_SWEEPS = 40


@njit(**JIT)
def hermitian_eig(k: np.ndarray, u: np.ndarray, tol: float = EIG_EPS) -> None:
    """Cyclic Jacobi on a small Hermitian matrix ``k`` (q × q), in place.

    On return ``k`` is diagonal (the eigenvalues, real, unsorted) and ``u`` unitary with
    k_in = u diag(k_out) uᴴ, up to off-diagonals of ``tol`` × the trace. An eigenvalue's
    error is of second order in those, so eigenvalues alone need only tol ~ 1e-8.
    """
    q = k.shape[0]
    scale = 0.0
    for i in range(q):
        scale += abs(k[i, i].real)
        for j in range(q):
            u[i, j] = 1.0 if i == j else 0.0
    # off-diagonals below eps·trace move no eigenvalue beyond the Gram matrix's own
    # rounding (a relative rule never ends on rank-deficient slices)
    small = tol * scale
    for _ in range(_EIG_SWEEPS):
        rotated = False
        for i in range(q - 1):
            for j in range(i + 1, q):
                g = abs(k[i, j])
                a = k[i, i].real
                b = k[j, j].real
                if g <= small:
                    continue
                rotated = True
                ph = (k[i, j] / g).conjugate()  # column j times ph makes k[i, j] real
                zeta = (b - a) / (2.0 * g)
                t = (1.0 if zeta >= 0.0 else -1.0) / (abs(zeta) + math.sqrt(1.0 + zeta * zeta))
                c = 1.0 / math.sqrt(1.0 + t * t)
                s = c * t
                for r in range(q):  # columns: k <- k Q, u <- u Q
                    ki = k[r, i]
                    kj = k[r, j] * ph
                    k[r, i] = c * ki - s * kj
                    k[r, j] = s * ki + c * kj
                    ui = u[r, i]
                    uj = u[r, j] * ph
                    u[r, i] = c * ui - s * uj
                    u[r, j] = s * ui + c * uj
                phc = ph.conjugate()
                for r in range(q):  # rows: k <- Qᴴ k
                    ki = k[i, r]
                    kj = k[j, r] * phc
                    k[i, r] = c * ki - s * kj
                    k[j, r] = s * ki + c * kj
                k[i, j] = 0.0
                k[j, i] = 0.0
                k[i, i] = k[i, i].real
                k[j, j] = k[j, j].real
        if not rotated:
            break


@njit(**JIT)
def abs2(z: complex) -> float:
    return z.real * z.real + z.imag * z.imag


@njit(**JIT)
def eig3(k: np.ndarray) -> tuple[float, float, float]:
    """Eigenvalues of a 3 × 3 Hermitian matrix in closed form (trigonometric solution of
    the characteristic cubic); absolute error ~ eps·‖k‖, enough for the objective."""
    a, b, c = k[0, 0].real, k[1, 1].real, k[2, 2].real
    off = abs2(k[0, 1]) + abs2(k[0, 2]) + abs2(k[1, 2])
    mean = (a + b + c) / 3.0
    p2 = (a - mean) ** 2 + (b - mean) ** 2 + (c - mean) ** 2 + 2.0 * off
    if p2 <= 0.0:
        return mean, mean, mean
    pp = math.sqrt(p2 / 6.0)
    a, b, c = (a - mean) / pp, (b - mean) / pp, (c - mean) / pp
    x01, x02, x12 = k[0, 1] / pp, k[0, 2] / pp, k[1, 2] / pp
    det = a * b * c + 2.0 * (x01 * x12 * x02.conjugate()).real
    det -= a * abs2(x12) + b * abs2(x02) + c * abs2(x01)
    phi = math.acos(min(1.0, max(-1.0, 0.5 * det))) / 3.0
    e1 = mean + 2.0 * pp * math.cos(phi)
    e3 = mean + 2.0 * pp * math.cos(phi + 2.0 * math.pi / 3.0)
    return e1, 3.0 * mean - e1 - e3, e3


@njit(**JIT)
def null_vector3(k: np.ndarray, e: float, out: np.ndarray) -> None:
    """Unit vector x with (k − eI)x = 0 for a simple eigenvalue e of a 3 × 3 Hermitian k:
    the largest of the cross products of two rows (a·(a×b) = 0 holds without conjugation)."""
    best = -1.0
    for r1, r2 in ((0, 1), (0, 2), (1, 2)):
        a0, a1, a2 = k[r1, 0], k[r1, 1], k[r1, 2]
        b0, b1, b2 = k[r2, 0], k[r2, 1], k[r2, 2]
        if r1 == 0:
            a0 -= e
        else:
            a1 -= e
        if r2 == 1:
            b1 -= e
        else:
            b2 -= e
        c0 = a1 * b2 - a2 * b1
        c1 = a2 * b0 - a0 * b2
        c2 = a0 * b1 - a1 * b0
        norm = abs2(c0) + abs2(c1) + abs2(c2)
        if norm > best:
            best = norm
            out[0], out[1], out[2] = c0, c1, c2
    scale = 1.0 / math.sqrt(best) if best > 0.0 else 0.0
    for i in range(3):
        out[i] *= scale
