"""Kernels for anchor graphs: top-(k+1) selection with PKN weights, gathered row products."""

from __future__ import annotations

import numpy as np
from numba import prange

from core.numerics.jit.config import JIT, PARALLEL_JIT, njit
from core.numerics.jit.select import _insert_smallest, pkn_select, scratch_size


@njit(**JIT)
def _pkn_weights(
    dist: np.ndarray, idx: np.ndarray, i: int, out_idx: np.ndarray, out_w: np.ndarray
) -> None:
    """PKN weights of row i from its k + 1 ascending distances (see :func:`pkn_rows`)."""
    k = dist.shape[0] - 1
    ref = dist[k]
    den = 0.0
    for h in range(k):
        den += ref - dist[h]
    scale = max(ref, 1e-300)
    for h in range(k):
        out_idx[i, h] = idx[h]
        if den > 1e-12 * scale:
            out_w[i, h] = (ref - dist[h]) / den
        else:
            out_w[i, h] = 1.0 / k


@njit(**JIT)
def _pkn_block(
    gram: np.ndarray,
    lo: int,
    hi: int,
    row_sq: np.ndarray,
    anchor_sq: np.ndarray,
    k: int,
    out_idx: np.ndarray,
    out_w: np.ndarray,
) -> None:
    """PKN indices and weights of rows lo:hi of a block (see :func:`pkn_rows`)."""
    dist = np.empty(k + 1, dtype=np.float64)
    idx = np.empty(k + 1, dtype=np.int64)
    scratch = np.empty(scratch_size(gram.shape[1]), dtype=np.float64)
    for i in range(lo, hi):
        pkn_select(gram, i, row_sq[i], anchor_sq, dist, idx, scratch)
        _pkn_weights(dist, idx, i, out_idx, out_w)


@njit(**PARALLEL_JIT)
def pkn_rows(
    gram: np.ndarray, row_sq: np.ndarray, anchor_sq: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Parameter-free k-NN weights for a block of rows (common spec §4).

    gram[i, j] = x_i . u_j; squared distances are row_sq[i] + anchor_sq[j] - 2 gram[i, j],
    clipped at 0. Returns (indices, weights), both (b, k): the k nearest anchors in order
    (ties by index) and their weights (d_(k+1) - d_j) / sum_h (d_(k+1) - d_h), or 1/k when
    that sum is 0.
    """
    b = gram.shape[0]
    out_idx = np.empty((b, k), dtype=np.int64)
    out_w = np.empty((b, k), dtype=np.float64)
    step = 64  # rows per task: the scratch is allocated once per task
    for t in prange((b + step - 1) // step):
        _pkn_block(gram, t * step, min(b, (t + 1) * step), row_sq, anchor_sq, k, out_idx, out_w)
    return out_idx, out_w


@njit(**JIT)
def pkn_rows_into(
    gram: np.ndarray,
    row_sq: np.ndarray,
    anchor_sq: np.ndarray,
    k: int,
    out_idx: np.ndarray,
    out_w: np.ndarray,
) -> None:
    """:func:`pkn_rows` on one thread, written into ``out_idx``/``out_w`` (b x k views): for
    callers that run several row blocks at once in their own threads (nogil)."""
    _pkn_block(gram, 0, gram.shape[0], row_sq, anchor_sq, k, out_idx, out_w)


@njit(**JIT)
def _dot64(x: np.ndarray, r: int, a: np.ndarray, j: int) -> float:
    """x[r] . a[j] accumulated in float64, in four running sums (a single chain waits on the
    add latency: 4x slower at d = 600)."""
    d = x.shape[1]
    s0 = s1 = s2 = s3 = 0.0
    top = d - d % 4
    for f in range(0, top, 4):
        s0 += np.float64(x[r, f]) * a[j, f]
        s1 += np.float64(x[r, f + 1]) * a[j, f + 1]
        s2 += np.float64(x[r, f + 2]) * a[j, f + 2]
        s3 += np.float64(x[r, f + 3]) * a[j, f + 3]
    for f in range(top, d):
        s0 += np.float64(x[r, f]) * a[j, f]
    return (s0 + s1) + (s2 + s3)


@njit(**JIT)
def _resort(dist: np.ndarray, idx: np.ndarray) -> None:
    """Insertion sort of the k + 1 refined distances (ties by anchor index)."""
    for h in range(1, dist.shape[0]):
        _insert_smallest(dist[: h + 1], idx[: h + 1], h, dist[h], idx[h])


@njit(**JIT)
def pkn_rows_refined_into(
    gram: np.ndarray,
    x: np.ndarray,
    anchors: np.ndarray,
    row_sq: np.ndarray,
    anchor_sq: np.ndarray,
    anchor_sq64: np.ndarray,
    k: int,
    out_idx: np.ndarray,
    out_w: np.ndarray,
) -> None:
    """:func:`pkn_rows_into` for a low-precision block: the k + 1 nearest anchors are chosen
    from ``gram`` (float32 products with ``anchor_sq`` of the float32 anchors), then only their
    distances are recomputed in float64 from the block ``x`` (dense, b x d) and the float64
    ``anchors`` (m x d, norms ``anchor_sq64``) before the weights. The weights divide
    differences of nearby distances: from float32 products they carried ~1e-4 relative errors.
    """
    dist = np.empty(k + 1, dtype=np.float64)
    idx = np.empty(k + 1, dtype=np.int64)
    scratch = np.empty(scratch_size(gram.shape[1]), dtype=np.float64)
    for i in range(gram.shape[0]):
        pkn_select(gram, i, row_sq[i], anchor_sq, dist, idx, scratch)
        for h in range(k + 1):
            d = row_sq[i] + anchor_sq64[idx[h]] - 2.0 * _dot64(x, i, anchors, idx[h])
            dist[h] = d if d > 0.0 else 0.0
        _resort(dist, idx)
        _pkn_weights(dist, idx, i, out_idx, out_w)


@njit(**JIT)
def pkn_rows_refined_csr_into(
    gram: np.ndarray,
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    anchors: np.ndarray,
    row_sq: np.ndarray,
    anchor_sq: np.ndarray,
    anchor_sq64: np.ndarray,
    k: int,
    out_idx: np.ndarray,
    out_w: np.ndarray,
) -> None:
    """:func:`pkn_rows_refined_into` for a CSR block given by its arrays."""
    dist = np.empty(k + 1, dtype=np.float64)
    idx = np.empty(k + 1, dtype=np.int64)
    scratch = np.empty(scratch_size(gram.shape[1]), dtype=np.float64)
    for i in range(gram.shape[0]):
        pkn_select(gram, i, row_sq[i], anchor_sq, dist, idx, scratch)
        for h in range(k + 1):
            j = idx[h]
            s = 0.0
            for p in range(indptr[i], indptr[i + 1]):
                s += np.float64(data[p]) * anchors[j, indices[p]]
            d = row_sq[i] + anchor_sq64[j] - 2.0 * s
            dist[h] = d if d > 0.0 else 0.0
        _resort(dist, idx)
        _pkn_weights(dist, idx, i, out_idx, out_w)


@njit(**JIT)
def gather_dense_dot(x: np.ndarray, rows: np.ndarray, w: np.ndarray) -> np.ndarray:
    """out[t] = x[rows[t]] . w without copying the gathered rows.

    Serial on purpose: BKHK calls it thousands of times on small groups, where a parallel
    region's start-up and barrier cost dominated (25x slower on a busy 2-core machine), and
    the large calls are memory-bound.
    """
    out = np.empty(rows.shape[0], dtype=np.float64)
    d = x.shape[1]
    for t in range(rows.shape[0]):
        r = rows[t]
        s = 0.0
        for j in range(d):
            s += x[r, j] * w[j]
        out[t] = s
    return out


@njit(**JIT)
def gather_csr_dot(
    indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, rows: np.ndarray, w: np.ndarray
) -> np.ndarray:
    """Sparse twin of gather_dense_dot for a CSR matrix given by its arrays."""
    out = np.empty(rows.shape[0], dtype=np.float64)
    for t in range(rows.shape[0]):
        r = rows[t]
        s = 0.0
        for p in range(indptr[r], indptr[r + 1]):
            s += data[p] * w[indices[p]]
        out[t] = s
    return out


@njit(**JIT)
def gather_dense_mean(x: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Mean of the gathered rows x[rows] (rows non-empty)."""
    d = x.shape[1]
    out = np.zeros(d, dtype=np.float64)
    for t in range(rows.shape[0]):
        r = rows[t]
        for j in range(d):
            out[j] += x[r, j]
    return out / rows.shape[0]


@njit(**JIT)
def gather_csr_mean(
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    n_cols: int,
    rows: np.ndarray,
) -> np.ndarray:
    out = np.zeros(n_cols, dtype=np.float64)
    for t in range(rows.shape[0]):
        r = rows[t]
        for p in range(indptr[r], indptr[r + 1]):
            out[indices[p]] += data[p]
    return out / rows.shape[0]


@njit(**JIT)
def _lower_half(q: np.ndarray, half: int) -> np.ndarray:
    """Mask of the ``half`` smallest entries, ties taken in index order: the same set as the
    first ``half`` positions of a stable argsort, found in O(n) by selection."""
    n = q.shape[0]
    side = np.zeros(n, dtype=np.bool_)
    if half == 0:
        return side
    v = np.partition(q, half - 1)[half - 1]
    taken = 0
    for t in range(n):
        if q[t] < v:
            side[t] = True
            taken += 1
    for t in range(n):
        if taken == half:
            break
        if q[t] == v:
            side[t] = True
            taken += 1
    return side


@njit(**JIT)
def balanced_split(
    x: np.ndarray, rows: np.ndarray, c0: np.ndarray, c1: np.ndarray, max_iter: int
) -> np.ndarray:
    """Balanced 2-means on the rows ``rows`` of a dense matrix (FMDC spec §4.1), one call.

    Starts from centres c0, c1; each round sorts q_i = 2 x_i.(c1 - c0) + |c0|² - |c1|²
    and gives the floor(n/2) smallest (ties by index, as a stable sort) to group 0; stops
    when the halves repeat.
    Returns the positions in ``rows`` of group 0 then group 1, each in index order.

    The rows are copied once, feature-major, so that each x_i.w runs over contiguous
    columns for many rows at once: the same sums in the same order per row as a row-by-row
    dot product (bit for bit), 3x faster on the 64-dim sketch (one add chain per row waited
    on the add latency). The centres are summed in row order from the side mask, as from
    the ordered positions (same order, no ordering per round).
    """
    n, d = rows.shape[0], x.shape[1]
    half = n // 2
    cols = np.empty((d, n), dtype=x.dtype)
    for t in range(n):
        r = rows[t]
        for j in range(d):
            cols[j, t] = x[r, j]
    q = np.empty(n)
    side = np.zeros(n, dtype=np.bool_)
    have = False
    for _ in range(max_iter):
        w = c1 - c0
        const = 0.0
        for j in range(d):
            const += c0[j] * c0[j] - c1[j] * c1[j]
        q[:] = 0.0
        for j in range(d):
            wj = w[j]
            col = cols[j]
            for t in range(n):
                q[t] += col[t] * wj
        for t in range(n):
            q[t] = 2.0 * q[t] + const
        new_side = _lower_half(q, half)
        if have and np.array_equal(new_side, side):
            break
        side, have = new_side, True
        c0 = np.zeros(d)
        c1 = np.zeros(d)
        for t in range(n):
            r = rows[t]
            if side[t]:
                for j in range(d):
                    c0[j] += x[r, j]
            else:
                for j in range(d):
                    c1[j] += x[r, j]
        c0 /= max(half, 1)
        c1 /= max(n - half, 1)
    if not have:
        return np.arange(n)
    return np.concatenate((np.flatnonzero(side), np.flatnonzero(~side)))


@njit(**PARALLEL_JIT)
def balanced_split_level(
    x: np.ndarray,
    rows: np.ndarray,
    offsets: np.ndarray,
    seed0: np.ndarray,
    seed1: np.ndarray,
    max_iter: int,
) -> np.ndarray:
    """``balanced_split`` for every group of one BKHK level at once (parallel over groups).

    Group g is rows[offsets[g]:offsets[g + 1]], started from rows seed0[g] and seed1[g] of x.
    Returns, per group and in the same layout, the order of positions within the group.
    """
    out = np.empty(rows.shape[0], dtype=np.int64)
    for g in prange(offsets.shape[0] - 1):
        lo, hi = offsets[g], offsets[g + 1]
        # centres in float64 whatever the data's precision (float32 data: the float32 path)
        out[lo:hi] = balanced_split(
            x, rows[lo:hi], x[seed0[g]].astype(np.float64), x[seed1[g]].astype(np.float64), max_iter
        )
    return out


@njit(**JIT)
def seed_gaps(x: np.ndarray, rows: np.ndarray, first: int, sq: np.ndarray) -> np.ndarray:
    """max(‖x_r − x_first‖², 0) for r in rows, as ``sq[r] + sq[first] − 2 x_r·x_first`` with
    the dot product accumulated in float64 (k-means++'s second draw, BKHK's splits)."""
    w = x[first].astype(np.float64)
    out = np.empty(rows.shape[0], dtype=np.float64)
    for t in range(rows.shape[0]):
        r = rows[t]
        s = 0.0
        for j in range(x.shape[1]):
            s += x[r, j] * w[j]
        d = (sq[r] + sq[first]) - 2.0 * s
        out[t] = d if d > 0.0 else 0.0
    return out
