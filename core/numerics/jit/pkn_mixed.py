"""Mixed-precision PKN rows: candidates from float32 products, the graph from float64 distances.

For float64 data the n x m distance products are the cost of an anchor graph. Here they run
in float32 (about twice the BLAS speed) and only *screen* the anchors. With a rigorous bound
``e_j`` on the gap between a row's float32 distance ``d~_j`` and its float64 distance
(:func:`screen_bounds`), ``top = max over the k + 1 float32-nearest of (d~_j + e_j)`` bounds
the (k+1)-th smallest float64 distance from above, so an anchor with ``d~_j - e_j > top``
cannot be among the k + 1 nearest in float64. The other anchors (the candidates: k + 1 on
almost every row of the synthetic and shared data) get their float64 distances recomputed,
and the k + 1 smallest, ties by anchor index, give the PKN row: the graph of the float64
distances whatever the float32 rounding did.
"""

from __future__ import annotations

import numpy as np

from core.numerics.jit.config import JIT, njit
from core.numerics.jit.graph import _pkn_weights
from core.numerics.jit.select import _insert_smallest, pkn_select, scratch_size

U32 = 2.0**-24  # unit roundoff of float32
U64 = 2.0**-53
#: float32-nearest anchors kept beyond the k + 1: when the last of them is provably out,
#: no other anchor needs a second look (one row in ~500 of the synthetic data needs one)
SCREEN_PAD = 2


def screen_bounds(d: int) -> tuple[float, float, float]:
    """Coefficients (rel, norm, tiny) of the bound used by :func:`pkn_rows_mixed_into`:
    |d~_ij − d_ij| <= rel·‖x_i‖‖u_j‖ + norm·(‖x_i‖² + ‖u_j‖²) + tiny·(1 + ‖x_i‖ + ‖u_j‖).

    A dot product of length d in any summation order, FMA or not, errs by at most
    γ_d Σ|x_f||u_f| with γ_d = d·u/(1 − d·u) (Higham, Accuracy and Stability of Numerical
    Algorithms, §3.1), and Σ|x_f||u_f| <= ‖x‖‖u‖. float32: rounding x and u to float32
    (2u + u²), then the product (γ_d on the rounded values); float64: γ_d of the
    recomputation. Each distance ‖x‖² + ‖u‖² − 2xᵀu adds two roundings of at most
    u64·(‖x‖² + ‖u‖² + 2|xᵀu|), and 2|xᵀu| <= ‖x‖² + ‖u‖². ``tiny`` covers float32
    underflow (spacing 2^-149 per term). All is inflated by 1/16 for the rounding of the
    bound's own arithmetic and of the computed norms."""
    g32 = d * U32 / (1.0 - d * U32)
    g64 = d * U64 / (1.0 - d * U64)
    rel = 2.0 * (g32 * (1.0 + U32) ** 2 + 2.0 * U32 + U32 * U32 + g64)
    safety = 1.0625
    return rel * safety, 8.0 * U64 * safety, 2.0 * d * 2.0**-140


@njit(**JIT)
def _exact(x: np.ndarray, i: int, anchors: np.ndarray, j: int, base: float, sq: float) -> float:
    """The float64 squared distance of row i and anchor j, clipped at 0 (the float64 path's
    formula; the dot product by BLAS ddot: 1.4x faster than a 4-accumulator loop)."""
    d = base + sq - 2.0 * np.dot(x[i], anchors[j])
    return d if d > 0.0 else 0.0


@njit(**JIT)
def pkn_rows_mixed_into(
    gram: np.ndarray,
    x: np.ndarray,
    anchors: np.ndarray,
    row_sq: np.ndarray,
    anchor_sq: np.ndarray,
    anchor_norm: np.ndarray,
    rel: float,
    norm: float,
    tiny: float,
    k: int,
    out_idx: np.ndarray,
    out_w: np.ndarray,
) -> int:
    """PKN rows of a float64 block ``x`` (b x d, dense, C order) from its float32 products
    ``gram`` (b x m) with the anchors: screened in float32, the candidates' distances
    recomputed in float64 from ``x`` and ``anchors`` (m x d, float64, C order; norms
    ``anchor_sq`` and ``anchor_norm`` = their square roots; ``row_sq``: the block's float64
    squared norms). ``rel``, ``norm``, ``tiny``: :func:`screen_bounds` of d. Writes the
    (b x k) views ``out_idx``/``out_w``; returns the float64 distances computed."""
    b, m = gram.shape
    cap = min(m, k + 1 + SCREEN_PAD)
    near_d = np.empty(cap, dtype=np.float64)
    near_j = np.empty(cap, dtype=np.int64)
    dist = np.empty(k + 1, dtype=np.float64)
    idx = np.empty(k + 1, dtype=np.int64)
    scratch = np.empty(scratch_size(m), dtype=np.float64)
    un_max = np.sqrt(anchor_sq.max())
    done = 0
    for i in range(b):
        base = row_sq[i]
        xn = np.sqrt(base)
        # the float32-nearest, and an upper bound of the (k+1)-th smallest float64 distance
        pkn_select(gram, i, base, anchor_sq, near_d, near_j, scratch)
        top = -np.inf
        for h in range(k + 1):
            j = near_j[h]
            e = rel * xn * anchor_norm[j] + norm * (base + anchor_sq[j])
            e += tiny * (1.0 + xn + anchor_norm[j])
            if not near_d[h] + e <= top:  # NaN: top becomes NaN and screens nothing out
                top = near_d[h] + e
        size = 0
        e_max = rel * xn * un_max + norm * (base + un_max * un_max) + tiny * (1.0 + xn + un_max)
        if cap == m or near_d[cap - 1] - e_max > top:
            # every anchor outside the list lies beyond its last entry: out
            for h in range(cap):
                j = near_j[h]
                e = rel * xn * anchor_norm[j] + norm * (base + anchor_sq[j])
                e += tiny * (1.0 + xn + anchor_norm[j])
                if near_d[h] - e > top:
                    continue
                d = _exact(x, i, anchors, j, base, anchor_sq[j])
                size = _insert_smallest(dist, idx, size, d, j)
                done += 1
        else:  # near ties beyond the list: screen every anchor
            for j in range(m):
                d = scratch[j]  # the clipped float32 distance, from the selection
                e = rel * xn * anchor_norm[j] + norm * (base + anchor_sq[j])
                e += tiny * (1.0 + xn + anchor_norm[j])
                if d - e > top:
                    continue
                size = _insert_smallest(
                    dist, idx, size, _exact(x, i, anchors, j, base, anchor_sq[j]), j
                )
                done += 1
        _pkn_weights(dist, idx, i, out_idx, out_w)
    return done
