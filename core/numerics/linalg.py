"""Small dense linear-algebra building blocks shared by the solvers."""

from __future__ import annotations

import itertools

import numpy as np

from core.numerics.jit.simplex import (
    project_simplex_columns,
    project_simplex_rows,
    project_simplex_rows_into,
    project_simplex_vector,
)

__all__ = [
    "polar",
    "polar_stable",
    "project_simplex",
    "project_simplex_columns",
    "project_simplex_rows",
    "project_simplex_rows_into",
    "row_normalize",
    "simplex_qp",
]


def project_simplex(v: np.ndarray) -> np.ndarray:
    """Euclidean projection of a vector onto {x >= 0, sum x = 1}."""
    v = np.ascontiguousarray(v, dtype=np.float64).ravel()
    out = np.empty_like(v)
    project_simplex_vector(v, out)
    return out


def polar(m: np.ndarray) -> np.ndarray:
    """Orthogonal polar factor U V^T of m (p x q, p >= q): argmax tr(W^T m), W^T W = I.

    A zero matrix gives the truncated identity, as MATLAB's svd does (common spec §6).
    """
    if not np.any(m):
        return np.eye(*m.shape)
    u, _, vt = np.linalg.svd(m, full_matrices=False)
    return u @ vt


#: singular values below this fraction of the largest count as zero in :func:`polar_stable`
POLAR_RTOL = 1e-6
#: a completion direction is kept when at least this much of it survives the projections
KEEP = 1e-3


def polar_stable(m: np.ndarray, rtol: float = POLAR_RTOL) -> np.ndarray:
    """Polar factor of m (p x q, p >= q) whose undetermined part does not follow noise.

    When m has rank r < q, every W = U_r V_rᵀ + W_⊥ maximises tr(Wᵀm), with W_⊥ any
    orthonormal map from span(V_r)^⊥ to span(U_r)^⊥; :func:`polar` returns whatever
    completion the SVD gives, which rounding of m at the 1e-8 level decides (MVSC-HFD's
    layer products have rank ≤ m anchors: float32 rounding of BDGP's input moved ACC by 0.12).
    Here W_⊥ depends on the two subspaces only: the polar factor of the truncated identity
    projected onto the complements, and for directions that projection loses, standard basis
    vectors orthogonalised in order. Singular values below ``rtol``·σ_max count as zero; an m
    of full numerical rank gives :func:`polar`'s result unchanged.
    """
    if not np.any(m):
        return np.eye(*m.shape)
    u, s, vt = np.linalg.svd(m, full_matrices=False)
    r = int(np.count_nonzero(s > rtol * s[0]))
    if r == s.size:
        return u @ vt
    return _completed(u[:, :r], vt[:r].T, m.shape)


def _completed(ur: np.ndarray, vr: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """W (p x q) with orthonormal columns and W V_r = U_r, the rest fixed by the subspaces."""
    ref = np.eye(*shape)
    ref -= ur @ (ur.T @ ref)
    ref -= (ref @ vr) @ vr.T
    u2, s2, vt2 = np.linalg.svd(ref, full_matrices=False)
    k = min(int(np.count_nonzero(s2 > KEEP)), shape[1] - ur.shape[1])
    ur, vr = np.hstack([ur, u2[:, :k]]), np.hstack([vr, vt2[:k].T])
    missing = shape[1] - ur.shape[1]
    if missing:
        ur = np.hstack([ur, _basis_completion(ur, missing)])
        vr = np.hstack([vr, _basis_completion(vr, missing)])
    return ur @ vr.T


def _basis_completion(q: np.ndarray, count: int) -> np.ndarray:
    """``count`` orthonormal vectors orthogonal to q's columns: e_1, e_2, … in order, each
    orthogonalised (twice) against q and the vectors kept so far, kept when ≥ KEEP remains."""
    dim, kept = q.shape[0], []
    basis = q
    for j in range(dim):
        v = -(basis @ basis[j])
        v[j] += 1.0
        v -= basis @ (basis.T @ v)
        norm = float(np.linalg.norm(v))
        if norm > KEEP:
            kept.append(v / norm)
            basis = np.hstack([basis, kept[-1][:, None]])
            if len(kept) == count:
                break
    return np.array(kept).T


def row_normalize(u: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm; zero rows stay zero."""
    norms = np.sqrt(np.einsum("ij,ij->i", u, u))
    return u / np.maximum(norms, 1e-300)[:, None]


def simplex_qp(m: np.ndarray, b: np.ndarray) -> np.ndarray:
    """argmin_{a in simplex} a^T m a - b^T a for a small PSD m (V x V).

    Exact for V <= 12 by enumerating supports and solving the KKT system on each; projected
    gradient (accelerated) beyond that.
    """
    m = (np.asarray(m, dtype=np.float64) + np.asarray(m, dtype=np.float64).T) / 2
    b = np.asarray(b, dtype=np.float64).ravel()
    v = b.size
    if v == 1:
        return np.ones(1)
    if v > 12:
        return _simplex_qp_pg(m, b)
    best, best_val = np.full(v, 1.0 / v), np.inf
    for size in range(1, v + 1):
        for support in itertools.combinations(range(v), size):
            s = list(support)
            kkt = np.zeros((size + 1, size + 1))
            kkt[:size, :size] = 2 * m[np.ix_(s, s)]
            kkt[:size, size] = 1.0
            kkt[size, :size] = 1.0
            rhs = np.concatenate([b[s], [1.0]])
            sol = np.linalg.lstsq(kkt, rhs, rcond=None)[0][:size]
            if np.any(sol < -1e-12) or abs(sol.sum() - 1) > 1e-8:
                continue
            a = np.zeros(v)
            a[s] = np.maximum(sol, 0)
            a /= a.sum()
            val = a @ m @ a - b @ a
            if val < best_val - 1e-15:
                best, best_val = a, val
    return best


def _simplex_qp_pg(m: np.ndarray, b: np.ndarray, max_iter: int = 20000) -> np.ndarray:
    lip = 2 * max(np.linalg.eigvalsh(m)[-1], 1e-12)
    a = np.full(b.size, 1.0 / b.size)
    y, t = a.copy(), 1.0
    for _ in range(max_iter):
        a_new = project_simplex(y - (2 * m @ y - b) / lip)
        t_new = (1 + np.sqrt(1 + 4 * t * t)) / 2
        y = a_new + (t - 1) / t_new * (a_new - a)
        if np.max(np.abs(a_new - a)) < 1e-12:
            return a_new
        a, t = a_new, t_new
    return a
