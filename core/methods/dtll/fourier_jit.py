"""DTLL's ALM kernels in the Fourier domain (per-sample orientation, dtll spec §6).

The tensors are held as (V, C, N) in time and (V, C, F) in frequency (F = N//2 + 1), so the
FFT along the samples runs over contiguous rows. A Fourier slice is the C × V matrix
X[c, v] = T̂[v, c, f]. Its singular values and the GST shrinkage come from the q × q Gram
matrix, q = min(C, V) (3 for three views): a Hermitian Jacobi eigen-decomposition of 3 × 3
instead of a one-sided Jacobi SVD of the 10 × 3 slice (a third of the work, no allocation
per slice). The NumPy twins are in tests/core/methods/test_dtll_fourier.py.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import prange

from core.methods.dtll.eig_jit import eig3, hermitian_eig, null_vector3
from core.numerics.jit.config import JIT, PARALLEL_JIT, njit
from core.numerics.jit.tensor import gst_threshold

__all__ = ["dual_update", "fourier_shrink", "fourier_sp_norm", "label_argmax", "onehot_update"]

_GST_STEPS = 4  # as jit.tensor.gst (the reference code's fixed-point steps)
PARALLEL_SIZE = 1 << 20  # tensor entries above which the kernels run on all threads
_CHUNK = 512  # frequencies per parallel task
_ROWS = 4096  # samples per parallel task of the G-step


@njit(**JIT)
def _gst_factor(s: float, thr: float, tau: float, p: float) -> float:
    """GST(s; τ, p)/s for a singular value s ≥ 0 (``jit.tensor.gst`` with its threshold
    computed once per call, not per value)."""
    if s <= thr or s <= 0.0:
        return 0.0
    if tau <= 0.0:
        return 1.0
    t = s
    if p == 0.5:  # the default: t^(-1/2) by sqrt, a third of the cost of pow
        for _ in range(_GST_STEPS):
            t = s - p * tau / math.sqrt(t)
    else:
        for _ in range(_GST_STEPS):
            t = s - p * tau * t ** (p - 1.0)
    return t / s


@njit(**JIT)
def _gram(t: np.ndarray, f: int, k: np.ndarray) -> None:
    """Gram matrix of slice f over its smaller side: XᴴX (V ≤ C) or XXᴴ (C < V)."""
    nv, nc = t.shape[0], t.shape[1]
    if nv <= nc:
        for a in range(nv):
            for b in range(a, nv):
                acc = 0.0j
                for c in range(nc):
                    acc += t[a, c, f].conjugate() * t[b, c, f]
                k[a, b] = acc
                k[b, a] = acc.conjugate()
    else:
        for a in range(nc):
            for b in range(a, nc):
                acc = 0.0j
                for v in range(nv):
                    acc += t[v, a, f] * t[v, b, f].conjugate()
                k[a, b] = acc
                k[b, a] = acc.conjugate()


_ZERO_EIG = 1e-12
_GAP = 1e-5  # relative eigenvalue gap above which 3 x 3 eigenvectors come from cross products


@njit(**JIT)
def _shrink_matrix(
    k: np.ndarray,
    u: np.ndarray,
    fac: np.ndarray,
    w: np.ndarray,
    thr: float,
    tau: float,
    p: float,
) -> bool:
    """W = Σ_j GST(σ_j)/σ_j · u_j u_jᴴ for the Gram matrix k = Σ_j σ_j² u_j u_jᴴ (q × q,
    destroyed). False when GST zeroes every σ. For q = 3 the eigenvalues come in closed
    form, and when every kept one is apart from the others by more than _GAP relative, its
    vector from cross products; otherwise, and for q ≠ 3, from Jacobi."""
    q = k.shape[0]
    if q == 3:
        e = eig3(k)
        top = max(e[0], max(e[1], e[2]))
        if top <= thr * thr:
            return False
        simple = True
        for a in range(3):
            fac[a] = _gst_factor(math.sqrt(max(e[a], 0.0)), thr, tau, p)
            if fac[a] > 0.0:
                for b in range(3):
                    if b != a and abs(e[a] - e[b]) <= _GAP * top:
                        simple = False
        if simple:
            x = u[0]  # scratch row
            for i in range(3):
                for j in range(3):
                    w[i, j] = 0.0
            for a in range(3):
                if fac[a] > 0.0:
                    null_vector3(k, e[a], x)
                    for i in range(3):
                        xi = fac[a] * x[i]
                        for j in range(3):
                            w[i, j] += xi * x[j].conjugate()
            return True
    hermitian_eig(k, u)
    kept = False
    for a in range(q):
        fac[a] = _gst_factor(math.sqrt(max(k[a, a].real, 0.0)), thr, tau, p)
        kept = kept or fac[a] > 0.0
    for a in range(q):
        for b in range(q):
            acc = 0.0j
            for e in range(q):
                acc += u[a, e] * fac[e] * u[b, e].conjugate()
            w[a, b] = acc
    return kept


def _fourier_shrink(
    g_hat: np.ndarray, m_hat: np.ndarray, mu: float, tau: float, p: float, j_hat: np.ndarray
) -> None:
    """J-step and the Fourier half of the M-step, slice by slice (dtll spec §6.2-6.3).

    T̂ = Ĝ + M̂/μ; every slice X = U Σ Wᴴ becomes Ĵ = U·GST(Σ; τ, p)·Wᴴ, computed as X·K
    (or K·X) with K = W diag(GST(σ)/σ) Wᴴ from the Gram matrix; then M̂ += μ(Ĝ − Ĵ).
    """
    nv, nc, nf = g_hat.shape
    q = min(nv, nc)
    thr = gst_threshold(tau, p)
    inv_mu = 1.0 / mu
    for chunk in prange((nf + _CHUNK - 1) // _CHUNK):
        k = np.empty((q, q), dtype=np.complex128)
        u = np.empty((q, q), dtype=np.complex128)
        w = np.empty((q, q), dtype=np.complex128)
        x = np.empty((nv, nc), dtype=np.complex128)
        fac = np.empty(q)
        t = np.empty((nv, nc, 1), dtype=np.complex128)
        for f in range(chunk * _CHUNK, min(nf, (chunk + 1) * _CHUNK)):
            total = 0.0
            for v in range(nv):
                for c in range(nc):
                    z = g_hat[v, c, f] + m_hat[v, c, f] * inv_mu
                    t[v, c, 0] = z
                    total += z.real * z.real + z.imag * z.imag
            if total <= thr * thr:  # σ_max² ≤ Σσ² = ‖X‖²_F ≤ thr²: GST zeroes the slice
                for v in range(nv):
                    for c in range(nc):
                        j_hat[v, c, f] = 0.0
                        m_hat[v, c, f] += mu * g_hat[v, c, f]
                continue
            _gram(t, 0, k)
            if not _shrink_matrix(k, u, fac, w, thr, tau, p):
                for v in range(nv):
                    for c in range(nc):
                        j_hat[v, c, f] = 0.0
                        m_hat[v, c, f] += mu * g_hat[v, c, f]
                continue
            if nv <= nc:  # Ĵ = X K: column v' of each row c
                for c in range(nc):
                    for b in range(nv):
                        acc = 0.0j
                        for a in range(nv):
                            acc += t[a, c, 0] * w[a, b]
                        x[b, c] = acc
            else:  # Ĵ = K X
                for v in range(nv):
                    for a in range(nc):
                        acc = 0.0j
                        for b in range(nc):
                            acc += w[a, b] * t[v, b, 0]
                        x[v, a] = acc
            for v in range(nv):
                for c in range(nc):
                    j_hat[v, c, f] = x[v, c]
                    m_hat[v, c, f] += mu * (g_hat[v, c, f] - x[v, c])


def _fourier_sp_norm(g_hat: np.ndarray, p: float, n: int) -> float:
    """‖𝒢‖_{S_p}^p = Σ_f Σ_j σ_j(Ĝ_f)^p over all n FFT slices (conjugates of the rfft
    slices counted twice). Gram eigenvalues below _ZERO_EIG × the slice's largest count as 0:
    the closed-form roots are exact to ~1e-14 of the largest, and σ^p (p < 1) would turn
    that rounding into visible noise (a one-hot 𝒢 has many exactly rank-deficient slices)."""
    nv, nc, nf = g_hat.shape
    q = min(nv, nc)
    nchunks = (nf + _CHUNK - 1) // _CHUNK
    part = np.zeros(nchunks)
    for chunk in prange(nchunks):
        k = np.empty((q, q), dtype=np.complex128)
        u = np.empty((q, q), dtype=np.complex128)
        ev = np.empty(q)
        acc = 0.0
        for f in range(chunk * _CHUNK, min(nf, (chunk + 1) * _CHUNK)):
            _gram(g_hat, f, k)
            close = True
            if q == 3:
                ev[0], ev[1], ev[2] = eig3(k)
                top = max(ev[0], max(ev[1], ev[2]))
                close = (
                    abs(ev[0] - ev[1]) <= _GAP * top
                    or abs(ev[0] - ev[2]) <= _GAP * top
                    or abs(ev[1] - ev[2]) <= _GAP * top
                )
            if close:  # the cubic's roots lose ~sqrt(eps) where two nearly coincide
                hermitian_eig(k, u)
                for a in range(q):
                    ev[a] = k[a, a].real
            top = 0.0
            for a in range(q):
                top = max(top, ev[a])
            s = 0.0
            for a in range(q):
                if ev[a] > _ZERO_EIG * top:
                    s += math.sqrt(math.sqrt(ev[a])) if p == 0.5 else ev[a] ** (0.5 * p)
            weight = 1.0 if f == 0 or (n % 2 == 0 and f == nf - 1) else 2.0
            acc += weight * s
        part[chunk] = acc
    return part.sum()


def _label_argmax(
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    h: np.ndarray,
    weight: float,
    mu: float,
    j: np.ndarray,
    m: np.ndarray,
    labels: np.ndarray,
) -> int:
    """G-step of one view (Eq. 19), in place: label_i = argmax_c (w·S H + μJ − M)[i, c]
    (first index on ties), with ``j`` and ``m`` this view's C × N slices. Returns the number
    of labels changed."""
    n = labels.shape[0]
    nc = h.shape[1]
    nchunks = (n + _ROWS - 1) // _ROWS
    moved = np.zeros(nchunks, dtype=np.int64)
    for chunk in prange(nchunks):
        row = np.empty(nc)
        for i in range(chunk * _ROWS, min(n, (chunk + 1) * _ROWS)):
            for c in range(nc):
                row[c] = 0.0
            for e in range(indptr[i], indptr[i + 1]):
                a = data[e]
                col = indices[e]
                for c in range(nc):
                    row[c] += a * h[col, c]
            best = 0
            bestval = -np.inf
            for c in range(nc):
                val = weight * row[c] + mu * j[c, i] - m[c, i]
                if val > bestval:
                    bestval = val
                    best = c
            if best != labels[i]:
                moved[chunk] += 1
                labels[i] = best
    return moved.sum()


def _dual_update(labels: np.ndarray, j: np.ndarray, m: np.ndarray, mu: float) -> float:
    """M-step in time (Eq. 28), in place: M += μ(G − J) with G the one-hot labels (V × N);
    returns the residual max|G − J|."""
    nv, nc, n = j.shape
    res = np.zeros(nv * nc)
    for vc in prange(nv * nc):
        v = vc // nc
        c = vc % nc
        r = 0.0
        for i in range(n):
            d = (1.0 if labels[v, i] == c else 0.0) - j[v, c, i]
            r = max(r, abs(d))
            m[v, c, i] += mu * d
        res[vc] = r
    return res.max()


@njit(**JIT)
def onehot_update(labels: np.ndarray, built: np.ndarray, out: np.ndarray) -> None:
    """Make ``out`` (V, C, N), the one-hot tensor of the labels ``built`` (V × N; -1: no
    entry set yet), that of ``labels``, in place: only the columns whose label moved are
    written (a few hundred per step, against zeroing and filling 3·10⁶ entries at N = 100k)."""
    nv, n = labels.shape
    for v in range(nv):
        for i in range(n):
            new = labels[v, i]
            old = built[v, i]
            if new != old:
                if old >= 0:
                    out[v, old, i] = 0.0
                out[v, new, i] = 1.0
                built[v, i] = new


_SHRINK = njit(**PARALLEL_JIT)(_fourier_shrink)
_SP_NORM = njit(**PARALLEL_JIT)(_fourier_sp_norm)
_DUAL = njit(**PARALLEL_JIT)(_dual_update)
_LABELS = njit(**PARALLEL_JIT)(_label_argmax)


def _run(kernel, size: int, *args):
    """Small tensors on the calling thread alone: a parallel region waits for a free core,
    which on a busy machine costs more than the work (one build, so one cache entry)."""
    if size >= PARALLEL_SIZE:
        return kernel(*args)
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        return kernel(*args)
    finally:
        numba.set_num_threads(before)


def fourier_shrink(
    g_hat: np.ndarray, m_hat: np.ndarray, mu: float, tau: float, p: float, j_hat: np.ndarray
) -> None:
    """J-step and the Fourier half of the M-step (``_fourier_shrink``), in place."""
    _run(_SHRINK, g_hat.size, g_hat, m_hat, mu, tau, p, j_hat)


def fourier_sp_norm(g_hat: np.ndarray, p: float, n: int) -> float:
    """‖𝒢‖_{S_p}^p from the rfft slices Ĝ (``_fourier_sp_norm``)."""
    return float(_run(_SP_NORM, g_hat.size, g_hat, p, n))


def dual_update(labels: np.ndarray, j: np.ndarray, m: np.ndarray, mu: float) -> float:
    """M += μ(G − J) in place; the residual max|G − J| (``_dual_update``)."""
    return float(_run(_DUAL, j.size, labels, j, m, mu))


def label_argmax(
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    h: np.ndarray,
    weight: float,
    mu: float,
    j: np.ndarray,
    m: np.ndarray,
    labels: np.ndarray,
) -> int:
    """G-step of one view in place (``_label_argmax``); the number of labels changed."""
    args = (indptr, indices, data, h, weight, mu, j, m, labels)
    return int(_run(_LABELS, data.size * h.shape[1], *args))
