"""Small dense linear-algebra building blocks shared by the solvers."""

from __future__ import annotations

import itertools

import numpy as np

from core.numerics.jit.simplex import (
    project_simplex_columns,
    project_simplex_rows,
    project_simplex_vector,
)

__all__ = [
    "polar",
    "project_simplex",
    "project_simplex_columns",
    "project_simplex_rows",
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
