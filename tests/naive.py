"""Plain NumPy twins of the numba kernels in core/kernels (slow, obviously correct)."""

from __future__ import annotations

import numpy as np


def pkn_rows(gram, row_sq, anchor_sq, k):
    d = np.maximum(row_sq[:, None] + anchor_sq[None, :] - 2 * gram, 0.0)
    idx = np.argsort(d, axis=1, kind="stable")[:, : k + 1]
    ds = np.take_along_axis(d, idx, axis=1)
    g = ds[:, k : k + 1] - ds[:, :k]
    den = g.sum(axis=1, keepdims=True)
    scale = np.maximum(ds[:, k : k + 1], 1e-300)
    w = np.where(den > 1e-12 * scale, g / np.where(den > 0, den, 1), 1.0 / k)
    return idx[:, :k], w


def project_simplex(v):
    u = np.sort(v)[::-1]
    css = np.cumsum(u)
    j = np.arange(1, v.size + 1)
    rho = np.nonzero(u - (css - 1) / j > 0)[0][-1]
    theta = (css[rho] - 1) / (rho + 1)
    return np.maximum(v - theta, 0)


def fmdc_sweep(q, labels, c, order):
    """Reference sweep with dense S = Q Qᵀ (small n only): same moves as the kernel."""
    s_full = (q @ q.T).toarray() if hasattr(q, "toarray") else q @ q.T
    labels = labels.copy()
    moved = 0
    for i in order:
        p = labels[i]
        counts = np.bincount(labels, minlength=c)
        if counts[p] == 1:
            continue
        others = labels.copy()
        others[i] = -1
        gains = np.empty(c)
        for h in range(c):
            members = np.flatnonzero(others == h)
            a = s_full[np.ix_(members, members)].sum()
            before = a / members.size if members.size else 0.0
            after = (a + 2 * s_full[i, members].sum() + s_full[i, i]) / (members.size + 1)
            gains[h] = after - before
        best, best_gain = p, gains[p] + 1e-14 * max(1.0, abs(gains[p]))
        for h in range(c):
            if gains[h] > best_gain:
                best, best_gain = h, gains[h]
        if best != p:
            labels[i] = best
            moved += 1
    return labels, moved


def balanced_split(x, rows, c0, c1, max_iter):
    """Balanced 2-means with NumPy: the reference for core.numerics.jit.graph.balanced_split."""
    half = rows.size // 2
    order, side = np.arange(rows.size), None
    for _ in range(max_iter):
        q = 2 * x[rows] @ (c1 - c0) + c0 @ c0 - c1 @ c1
        new = np.argsort(q, kind="stable")
        new_side = np.zeros(rows.size, bool)
        new_side[new[:half]] = True
        if side is not None and np.array_equal(new_side, side):
            break
        side = new_side
        order = np.concatenate([np.flatnonzero(side), np.flatnonzero(~side)])
        c0, c1 = x[rows[order[:half]]].mean(0), x[rows[order[half:]]].mean(0)
    return order


def group_moments(x, groups, c):
    """Per-group float64 sums and sums of squares (squares in x's dtype), rows in order."""
    d = x.shape[1]
    s1, s2 = np.zeros((c, d)), np.zeros((c, d))
    for i in range(x.shape[0]):
        if groups[i] >= 0:
            s1[groups[i]] += x[i].astype(np.float64)
            s2[groups[i]] += (x[i] * x[i]).astype(np.float64)
    return s1, s2
