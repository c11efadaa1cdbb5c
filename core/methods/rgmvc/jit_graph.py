"""numba kernels of RG-MVC (spec rgmvc.md §4, §12): the consensus-graph solve (the
blockwise passes that build the kernel statistics are in ``rgmvc_passes.py``).

Notation: ``a = A_γ / 2`` with ``A_γ = Σ_p γ_p² K_p``; each row ``i`` of G is the Euclidean
projection of ``a[i, j≠i]`` onto the simplex, ``G_ij = max(a_ij − θ_i, 0)``. The threshold
``θ_i`` always lies in ``[max_j a_ij − 1, max_j a_ij)``, so only entries above
``max − 1`` are sorted: exact, and far cheaper than sorting the whole row.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from core.numerics.jit.config import JIT, PARALLEL_JIT, njit


@njit(**JIT)
def simplex_threshold(v: np.ndarray, m: int, skip: int, buf: np.ndarray) -> float:
    """θ with Σ_{k<m, k≠skip} max(v_k − θ, 0) = 1.

    Michelot's algorithm on the entries above ``max − 1`` (a superset of the support):
    θ = (Σ kept − 1)/#kept, drop entries <= θ, repeat until nothing drops. Exact, O(m) per
    round, and the final sum runs in index order (the dense and sparse paths agree).
    """
    vmax = -np.inf
    for k in range(m):
        if k != skip and v[k] > vmax:
            vmax = v[k]
    lo = vmax - 1.0
    cnt = 0
    s = 0.0
    for k in range(m):
        if k != skip and v[k] > lo:
            buf[cnt] = v[k]
            cnt += 1
            s += v[k]
    theta = (s - 1.0) / cnt
    while True:
        kept = 0
        s = 0.0
        for h in range(cnt):
            if buf[h] > theta:
                buf[kept] = buf[h]
                kept += 1
                s += buf[h]
        if kept == cnt:
            return theta
        cnt = kept
        theta = (s - 1.0) / cnt


@njit(**PARALLEL_JIT)
def dense_graph_solve(
    ks: np.ndarray, g2: np.ndarray, out: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """G(γ) for full kernels ks (V x n x n), g2 = γ²; G is written into out (n x n).

    Returns per-row objective terms ``Σ_j A_ij G_ij − G_ij²`` and per-row traces
    ``Σ_j K_p[i, j] G_ij`` (n x V); the caller sums them in a fixed order.
    """
    nv, n = ks.shape[0], ks.shape[1]
    row_f = np.empty(n, dtype=np.float64)
    row_tr = np.empty((n, nv), dtype=np.float64)
    for i in prange(n):
        a = np.empty(n, dtype=np.float64)
        buf = np.empty(n, dtype=np.float64)
        for j in range(n):
            s = 0.0
            for p in range(nv):
                s += g2[p] * ks[p, i, j]
            a[j] = 0.5 * s
        theta = simplex_threshold(a, n, i, buf)
        f = 0.0
        tr = np.zeros(nv, dtype=np.float64)
        for j in range(n):
            gij = a[j] - theta
            if j == i or gij <= 0.0:
                out[i, j] = 0.0
                continue
            out[i, j] = gij
            f += 2.0 * a[j] * gij - gij * gij
            for p in range(nv):
                tr[p] += ks[p, i, j] * gij
        row_f[i] = f
        for p in range(nv):
            row_tr[i, p] = tr[p]
    return row_f, row_tr


CONE_DELTA = 0.5  # tilt of the V reference directions (see left_out_bound)


@njit(**JIT)
def left_out_bound(
    bview: np.ndarray, bref: float, bdir: np.ndarray, wref: np.ndarray, g2: np.ndarray
) -> float:
    """Upper bound of A_ij(γ) = Σ_p γ_p² K_p[i, j] over the left-out j of a row.

    Known for every left-out j: ``K_p[i, j] <= bview_p``, ``Σ_p wref_p K_p[i, j] <= bref``
    and ``Σ_p wref_p ρ^k_p K_p[i, j] <= bdir_k`` for the tilted directions
    ``ρ^k = (1 − δ)·1 + δV·e_k``. Any split ``γ² = Σ_k μ_k (wref ∘ ρ^k) + ν`` with μ, ν >= 0
    bounds A by ``Σ_k μ_k bdir_k + Σ_p ν_p bview_p``. Two splits are tried:
    ``μ_k = (ρ_k − (1 − δ) mean ρ)/(δV)`` with ρ = γ²/wref (exact, ν = 0, when every
    ratio is at least (1 − δ) times the mean), and ``λ = min ρ`` on the reference itself
    (``λ bref + Σ (γ² − λ wref) bview``). The smaller is returned.
    """
    if bref == -np.inf:
        return -np.inf
    nv = g2.shape[0]
    rho = np.empty(nv, dtype=np.float64)
    lam = np.inf
    plain = 0.0
    joint = 0.0
    for p in range(nv):
        rho[p] = g2[p] / wref[p]
        lam = min(lam, rho[p])
        plain += g2[p] * bview[p]
        joint += wref[p] * bview[p]
    best = plain - lam * max(joint - bref, 0.0)
    mean = rho.sum() / nv
    cone = 0.0
    for k in range(nv):
        mu = (rho[k] - (1.0 - CONE_DELTA) * mean) / (CONE_DELTA * nv)
        if mu < 0.0:
            return best
        cone += mu * bdir[k]
    return min(best, cone)


@njit(**PARALLEL_JIT)
def sparse_graph_solve(
    starts: np.ndarray,
    ends: np.ndarray,
    vals: np.ndarray,
    bview: np.ndarray,
    bref: np.ndarray,
    bdir: np.ndarray,
    wref: np.ndarray,
    g2: np.ndarray,
    out: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """G(γ) restricted to candidate sets, with the exactness certificate.

    Row i holds its candidates in ``starts[i]:ends[i]`` (ascending j) with
    ``vals[t, p] = K_p[i, j_t]``; the left-out entries are bounded by
    :func:`left_out_bound`. The row is exact iff that bound / 2 <= θ_i (every left-out
    entry then gets G = 0); ``fail[i]`` flags rows that cannot be certified. G values are
    written into out (aligned with vals).
    """
    n, nv = bview.shape
    row_f = np.empty(n, dtype=np.float64)
    row_tr = np.empty((n, nv), dtype=np.float64)
    fail = np.zeros(n, dtype=np.bool_)
    for i in prange(n):
        s0 = starts[i]
        m = ends[i] - s0
        a = np.empty(m, dtype=np.float64)
        buf = np.empty(m, dtype=np.float64)
        for t in range(m):
            s = 0.0
            for p in range(nv):
                s += g2[p] * vals[s0 + t, p]
            a[t] = 0.5 * s
        theta = simplex_threshold(a, m, -1, buf)
        bnd = 0.5 * left_out_bound(bview[i], bref[i], bdir[i], wref[i], g2)
        # a small relative slack absorbs round-off: certification stays conservative
        if bnd > theta - 1e-9 * (1.0 + abs(theta)):
            fail[i] = True
        f = 0.0
        tr = np.zeros(nv, dtype=np.float64)
        for t in range(m):
            gij = a[t] - theta
            if gij <= 0.0:
                out[s0 + t] = 0.0
                continue
            out[s0 + t] = gij
            f += 2.0 * a[t] * gij - gij * gij
            for p in range(nv):
                tr[p] += vals[s0 + t, p] * gij
        row_f[i] = f
        for p in range(nv):
            row_tr[i, p] = tr[p]
    return row_f, row_tr, fail
