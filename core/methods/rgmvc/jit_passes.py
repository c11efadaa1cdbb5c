"""numba kernels of RG-MVC's blockwise passes (spec rgmvc.md §3, §12): kernel statistics
and per-row candidate selection without an n x n matrix. The graph solves that use them are
in ``core/methods/rgmvc/jit_graph.py``."""

from __future__ import annotations

import math

import numpy as np
from numba import prange

from core.methods.rgmvc.jit_graph import CONE_DELTA
from core.numerics.jit.config import JIT, PARALLEL_JIT, njit


@njit(**JIT)
def _insert_largest(val: np.ndarray, idx: np.ndarray, size: int, x: float, j: int) -> int:
    """Insert (x, j) into the descending list val/idx of length size; earlier j wins ties."""
    cap = val.shape[0]
    if size == cap:
        if x <= val[cap - 1]:
            return size
        pos = cap - 1
    else:
        pos = size
        size += 1
    while pos > 0 and val[pos - 1] < x:
        val[pos] = val[pos - 1]
        idx[pos] = idx[pos - 1]
        pos -= 1
    val[pos] = x
    idx[pos] = j
    return size


@njit(**PARALLEL_JIT)
def scan_block(
    k0: np.ndarray, row0: int, sign: float, top_idx: np.ndarray, top_val: np.ndarray
) -> np.ndarray:
    """Per-row statistics of a base-kernel block and the top-L neighbours (self excluded).

    Keeps the L largest ``sign * k0[r, j]`` (sign −1 on squared distances: the nearest)
    in ``top_idx/top_val[row0 + r]``, descending. Returns (b x 5): Σ_j k0, Σ_j k0²,
    Σ_{j≠i} sqrt(k0) (the distance sum when k0 holds d²), min_j k0, max_j k0.
    """
    b, n = k0.shape
    big_l = top_idx.shape[1]
    out = np.empty((b, 5), dtype=np.float64)
    for r in prange(b):
        i = row0 + r
        val = np.empty(big_l, dtype=np.float64)
        idx = np.empty(big_l, dtype=np.int64)
        size = 0
        s1 = 0.0
        s2 = 0.0
        sd = 0.0
        lo = np.inf
        hi = -np.inf
        for j in range(n):
            x = k0[r, j]
            s1 += x
            s2 += x * x
            lo = min(lo, x)
            hi = max(hi, x)
            if j != i:
                if sign < 0.0:
                    sd += math.sqrt(x)
                size = _insert_largest(val, idx, size, sign * x, j)
        for h in range(size):
            top_idx[i, h] = idx[h]
            top_val[i, h] = sign * val[h]
        out[r, 0] = s1
        out[r, 1] = s2
        out[r, 2] = sd
        out[r, 3] = lo
        out[r, 4] = hi
    return out


@njit(**PARALLEL_JIT)
def tri_dist_block(g: np.ndarray, sq_r: np.ndarray, sq_c: np.ndarray, row0: int, col0: int):
    """Σ sqrt(d²) and max d² over the pairs j > i of a Gram block (rows row0.., cols col0..).

    ``g[r, c] = x_i . x_j``; d² is clipped at 0 as in the dense path. Returns (b x 2); twice
    the first column summed over the upper-triangle blocks is Σ_{i≠j} ‖x_i − x_j‖.
    """
    b, m = g.shape
    out = np.empty((b, 2), dtype=np.float64)
    for r in prange(b):
        i = row0 + r
        sd = 0.0
        hi = 0.0
        for c in range(max(0, i + 1 - col0), m):
            d2 = sq_r[r] + sq_c[c] - 2.0 * g[r, c]
            if d2 < 0.0:
                d2 = 0.0
            sd += math.sqrt(d2)
            hi = max(hi, d2)
        out[r, 0] = sd
        out[r, 1] = hi
    return out


@njit(**JIT)
def _push_top(val: np.ndarray, x: float) -> None:
    """Insert x into the descending list val (fixed length, padded with −inf)."""
    pos = val.shape[0] - 1
    if not x > val[pos]:
        return
    while pos > 0 and val[pos - 1] < x:
        val[pos] = val[pos - 1]
        pos -= 1
    val[pos] = x


@njit(**PARALLEL_JIT)
def gauss_rows_block(
    g: np.ndarray,
    sq_r: np.ndarray,
    sq_c: np.ndarray,
    row0: int,
    col0: int,
    inv2s2: float,
    sums: np.ndarray,
    top: np.ndarray,
    neg_bot: np.ndarray,
) -> None:
    """In place: Gram block -> Gaussian K0 (d² clipped at 0, zero on i == j), fused with
    the row statistics: adds the row sums of K0 and K0² to ``sums[row0 + r]`` and merges
    the values (j ≠ i) into the descending running lists ``top[row0 + r]`` and their
    negatives into ``neg_bot[row0 + r]`` (the smallest values; start both at −inf).
    :func:`accumulate_cols` adds the column side."""
    b, m = g.shape
    for r in prange(b):
        i = row0 + r
        s1 = 0.0
        s2 = 0.0
        for c in range(m):
            d2 = sq_r[r] + sq_c[c] - 2.0 * g[r, c]
            if d2 < 0.0 or col0 + c == i:
                d2 = 0.0
            x = math.exp(-d2 * inv2s2)
            g[r, c] = x
            s1 += x
            s2 += x * x
            if col0 + c != i:
                _push_top(top[i], x)
                _push_top(neg_bot[i], -x)
        sums[i, 0] += s1
        sums[i, 1] += s2


_COL_TILE = 16  # columns per task in accumulate_cols: each row read is one cache line pair


@njit(**PARALLEL_JIT)
def accumulate_cols(
    k0: np.ndarray, row0: int, col0: int, sums: np.ndarray, top: np.ndarray, neg_bot: np.ndarray
) -> None:
    """The column side of :func:`gauss_rows_block`: adds column sums of K0 and K0² to
    ``sums[col0 + c]`` and merges the values (i ≠ j) into ``top[col0 + c]`` (negatives
    into ``neg_bot[col0 + c]``). Tiles of
    columns read the block row by row, so no transposed copy is needed."""
    b, m = k0.shape
    n_tiles = (m + _COL_TILE - 1) // _COL_TILE
    for tt in prange(n_tiles):
        c_lo = tt * _COL_TILE
        c_hi = min(m, c_lo + _COL_TILE)
        s1 = np.zeros(_COL_TILE, dtype=np.float64)
        s2 = np.zeros(_COL_TILE, dtype=np.float64)
        for r in range(b):
            for c in range(c_lo, c_hi):
                x = k0[r, c]
                s1[c - c_lo] += x
                s2[c - c_lo] += x * x
                if row0 + r != col0 + c:
                    _push_top(top[col0 + c], x)
                    _push_top(neg_bot[col0 + c], -x)
        for c in range(c_lo, c_hi):
            sums[col0 + c, 0] += s1[c - c_lo]
            sums[col0 + c, 1] += s2[c - c_lo]


@njit(inline="always", **JIT)
def _k2_entry(
    dot: float,
    sq_i: float,
    sq_j: float,
    i: int,
    j: int,
    kind: int,
    inv2s2: float,
    lo: float,
    hi: float,
    diag: np.ndarray,
    bad: np.ndarray,
) -> float:
    """K2[i, j] = knorm(clip(K0)) from the dot product x_i . x_j (kind 1: Gaussian K0 from
    the squared distance, 2: cosine, K0 is the dot product), as in ``KernelChain``."""
    x = dot
    if kind == 1:
        d2 = sq_i + sq_j - 2.0 * dot
        if d2 < 0.0 or j == i:
            d2 = 0.0
        x = math.exp(-d2 * inv2s2)
    if bad[i] or bad[j]:
        x = 1.0 if i == j else 0.0
    else:
        x = min(max(x, lo), hi) / math.sqrt(diag[i] * diag[j])
    return x


@njit(**PARALLEL_JIT)
def normalized_row_sums(
    g: np.ndarray,
    sq_rows: np.ndarray,
    sq_all: np.ndarray,
    rows: np.ndarray,
    kind: int,
    inv2s2: float,
    lo: float,
    hi: float,
    diag: np.ndarray,
    bad: np.ndarray,
) -> np.ndarray:
    """Exact row sums / sums of squares of K2 = knorm(clip(K0)) for samples ``rows`` (b x 2),
    from their dot products with all samples ``g`` (b x n); see :func:`_k2_entry`."""
    b, n = g.shape
    out = np.empty((b, 2), dtype=np.float64)
    for q in prange(b):
        i = rows[q]
        s1 = 0.0
        s2 = 0.0
        for j in range(n):
            x = _k2_entry(g[q, j], sq_rows[q], sq_all[j], i, j, kind, inv2s2, lo, hi, diag, bad)
            s1 += x
            s2 += x * x
        out[q, 0] = s1
        out[q, 1] = s2
    return out


@njit(**PARALLEL_JIT)
def final_rows(
    g: np.ndarray,
    sq_rows: np.ndarray,
    sq_all: np.ndarray,
    rows: np.ndarray,
    kind: int,
    inv2s2: float,
    lo: float,
    hi: float,
    diag: np.ndarray,
    bad: np.ndarray,
    r: np.ndarray,
    t: float,
    scale: float,
) -> None:
    """In place: dot products of samples ``rows`` with all samples (b x n) -> the model's K
    rows (same formula as ``KernelChain.final``). Rows may be any samples, so re-selected
    rows need no NumPy fallback."""
    b, n = g.shape
    for q in prange(b):
        i = rows[q]
        for j in range(n):
            x = _k2_entry(g[q, j], sq_rows[q], sq_all[j], i, j, kind, inv2s2, lo, hi, diag, bad)
            x = x - (r[i] + r[j]) + t
            if i == j:
                x = x + 1e-12
            g[q, j] = x / scale


@njit(**PARALLEL_JIT)
def select_block(
    kb: np.ndarray,
    w: np.ndarray,
    rows: np.ndarray,
    big_l: int,
    out_idx: np.ndarray,
    out_val: np.ndarray,
    out_cnt: np.ndarray,
    out_bview: np.ndarray,
    out_bref: np.ndarray,
    out_bdir: np.ndarray,
) -> None:
    """Candidates of a block of rows from the final kernels kb (V x b x n).

    Row i keeps the union of V + 1 lists (j ≠ i): the big_l largest ``K_p[i, j]`` of each
    view p and the big_l largest ``Σ_p w_p K_p[i, j]``. The union (out_cnt[q] entries,
    ascending j, with their per-view values) contains the support of G at every vertex of
    the simplex and near w whenever those supports have fewer than big_l entries.
    Over the j left out: out_bview[q, p] = max K_p[i, j], out_bref[q] = max
    Σ_p w_p K_p[i, j] and out_bdir[q, k] the same for the tilted weights
    ``w_p ((1 − δ) + δV [p = k])`` (−inf when nothing is left out; see left_out_bound).
    """
    nv, b, n = kb.shape
    for q in prange(b):
        i = rows[q]
        val = np.empty((nv + 1, big_l), dtype=np.float64)
        idx = np.empty((nv + 1, big_l), dtype=np.int64)
        size = np.zeros(nv + 1, dtype=np.int64)
        for j in range(n):
            if j == i:
                continue
            s = 0.0
            for p in range(nv):
                x = kb[p, q, j]
                s += w[p] * x
                size[p] = _insert_largest(val[p], idx[p], size[p], x, j)
            size[nv] = _insert_largest(val[nv], idx[nv], size[nv], s, j)
        mark = np.zeros(n, dtype=np.bool_)
        for h in range(nv + 1):
            for k in range(size[h]):
                mark[idx[h, k]] = True
        cnt = 0
        for j in range(n):
            if mark[j]:
                out_idx[q, cnt] = j
                for p in range(nv):
                    out_val[q, cnt, p] = kb[p, q, j]
                cnt += 1
        out_cnt[q] = cnt
        mark[i] = True
        bv = np.full(nv, -np.inf)
        bd = np.full(nv, -np.inf)
        br = -np.inf
        for j in range(n):
            if mark[j]:
                continue
            s = 0.0
            for p in range(nv):
                x = kb[p, q, j]
                bv[p] = max(bv[p], x)
                s += w[p] * x
            br = max(br, s)
            for k in range(nv):
                y = (1.0 - CONE_DELTA) * s + CONE_DELTA * nv * w[k] * kb[k, q, j]
                bd[k] = max(bd[k], y)
        out_bref[q] = br
        for p in range(nv):
            out_bview[q, p] = bv[p]
            out_bdir[q, p] = bd[p]
