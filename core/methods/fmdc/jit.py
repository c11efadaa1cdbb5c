"""FMDC's exact row-by-row label sweep (FMDC spec §7.1), O(n·V·k·c) per sweep."""

from __future__ import annotations

import numpy as np

from core.numerics.jit.config import JIT, njit


@njit(**JIT)
def fmdc_sweep(
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    s: np.ndarray,
    b: np.ndarray,
    a: np.ndarray,
    counts: np.ndarray,
    labels: np.ndarray,
    order: np.ndarray,
) -> int:
    """One Gauss-Seidel sweep over rows; updates b, a, counts, labels in place.

    Q (n x Vm) is given by its CSR arrays, s[i] = ||q_i||^2, b = Q^T Y (Vm x c),
    a[l] = ||b[:, l]||^2, counts[l] = n_l. Each accepted move strictly increases
    sum_l a_l / n_l. A cluster's sole member never leaves it. Returns the number of moves.
    """
    c = b.shape[1]
    t = np.empty(c, dtype=np.float64)
    delta = np.empty(c, dtype=np.float64)
    moved = 0
    for pos in range(order.shape[0]):
        i = order[pos]
        p = labels[i]
        if counts[p] == 1:
            continue
        t[:] = 0.0
        for q in range(indptr[i], indptr[i + 1]):
            row = indices[q]
            val = data[q]
            for h in range(c):
                t[h] += val * b[row, h]
        sii = s[i]
        a_p_removed = a[p] - 2.0 * t[p] + sii
        t[p] -= sii
        for h in range(c):
            a_h = a_p_removed if h == p else a[h]
            n_h = counts[h] - 1 if h == p else counts[h]
            before = a_h / n_h if n_h > 0 else 0.0
            delta[h] = (a_h + 2.0 * t[h] + sii) / (n_h + 1) - before
        best = p
        best_gain = delta[p] + 1e-14 * max(1.0, abs(delta[p]))
        for h in range(c):
            if delta[h] > best_gain:
                best_gain = delta[h]
                best = h
        if best != p:
            for q in range(indptr[i], indptr[i + 1]):
                row = indices[q]
                b[row, p] -= data[q]
                b[row, best] += data[q]
            a[p] = a_p_removed
            counts[p] -= 1
            a[best] += 2.0 * t[best] + sii
            counts[best] += 1
            labels[i] = best
            moved += 1
    return moved


@njit(**JIT)
def csr_cross_product(
    indptr_a: np.ndarray,
    indices_a: np.ndarray,
    data_a: np.ndarray,
    indptr_b: np.ndarray,
    indices_b: np.ndarray,
    data_b: np.ndarray,
    m_a: int,
    m_b: int,
) -> np.ndarray:
    """AᵀB (m_a x m_b, dense) for two CSR matrices with the same rows, O(Σ_i nnz_a(i)·nnz_b(i)).

    Anchor graphs have k non-zeros per row, so this is n·k² additions into a dense m x m
    array; scipy's sparse product built the (nearly dense) sparse result twice over.
    """
    out = np.zeros((m_a, m_b), dtype=np.float64)
    for i in range(indptr_a.shape[0] - 1):
        for p in range(indptr_a[i], indptr_a[i + 1]):
            row = out[indices_a[p]]
            va = data_a[p]
            for q in range(indptr_b[i], indptr_b[i + 1]):
                row[indices_b[q]] += va * data_b[q]
    return out


@njit(**JIT)
def scale_by_view(data: np.ndarray, view: np.ndarray, root: np.ndarray, out: np.ndarray) -> None:
    """out[p] = root[view[p]] · data[p] in one pass (np.take then *=: two passes, 17-32 ms per
    call over a 100k x 45 stack; this: 3.3 ms). Serial: called once per sweep, after the
    OpenMP threads went idle, a parallel loop took 4-8 ms to wake them (load 5)."""
    for p in range(data.shape[0]):
        out[p] = root[view[p]] * data[p]


@njit(**JIT)
def label_column_sums(
    indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, labels: np.ndarray, c: int, p: int
) -> np.ndarray:
    """QᵀY (p x c) for a CSR matrix Q (n x p) and the indicator Y of ``labels``."""
    out = np.zeros((p, c), dtype=np.float64)
    for i in range(indptr.shape[0] - 1):
        h = labels[i]
        for q in range(indptr[i], indptr[i + 1]):
            out[indices[q], h] += data[q]
    return out


@njit(**JIT)
def place_csr_block(
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    offset: int,
    fill: np.ndarray,
    out_idx: np.ndarray,
    out_val: np.ndarray,
) -> None:
    """Append each row of one CSR block (columns shifted by ``offset``) at ``fill[i]`` in the
    output arrays of a horizontal stack, advancing ``fill`` (see ``stack_graphs``)."""
    for i in range(indptr.shape[0] - 1):
        pos = fill[i]
        for p in range(indptr[i], indptr[i + 1]):
            out_idx[pos] = indices[p] + offset
            out_val[pos] = data[p]
            pos += 1
        fill[i] = pos
