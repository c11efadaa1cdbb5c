"""Euclidean projection onto the probability simplex (common spec §5), column-wise."""

from __future__ import annotations

import numpy as np
from numba import prange

from core.numerics.jit.config import JIT, PARALLEL_JIT, njit


@njit(**JIT)
def project_simplex_vector(v: np.ndarray, out: np.ndarray) -> None:
    """out = argmin_{x in simplex} ||x - v||^2 (sort-based, O(L log L))."""
    u = np.sort(v)[::-1]
    css = 0.0
    theta = 0.0
    for j in range(u.shape[0]):
        css += u[j]
        t = (css - 1.0) / (j + 1)
        if u[j] - t > 0.0:
            theta = t
    for j in range(v.shape[0]):
        x = v[j] - theta
        out[j] = x if x > 0.0 else 0.0


@njit(**PARALLEL_JIT)
def project_simplex_columns(a: np.ndarray) -> np.ndarray:
    """Project every column of a (L x n) onto the simplex; returns a new array."""
    out = np.empty_like(a)
    for j in prange(a.shape[1]):
        col = np.ascontiguousarray(a[:, j])
        res = np.empty(a.shape[0], dtype=np.float64)
        project_simplex_vector(col, res)
        out[:, j] = res
    return out


@njit(**PARALLEL_JIT)
def project_simplex_rows(a: np.ndarray) -> np.ndarray:
    """Project every row of a (n x L) onto the simplex; returns a new array."""
    out = np.empty_like(a)
    for i in prange(a.shape[0]):
        project_simplex_vector(a[i], out[i])
    return out


@njit(**JIT)
def project_simplex_rows_into(a: np.ndarray, out: np.ndarray) -> None:
    """:func:`project_simplex_rows` on one thread into ``out``: for callers that already run
    row blocks in their own threads (several parallel launches at once are not safe under
    every numba threading layer, and would oversubscribe the cores)."""
    for i in range(a.shape[0]):
        project_simplex_vector(a[i], out[i])
