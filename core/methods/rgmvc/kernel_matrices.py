"""RG-MVC base kernels (spec rgmvc.md §3): the builders and the authors' normalisation chain.

Per view, ``K0`` is a Gaussian kernel ``exp(−‖x_i − x_j‖² / (2σ²))`` with
``σ = bandwidth · mean_{i≠j} ‖x_i − x_j‖``, or a cosine kernel ``x̂_i · x̂_j`` (rows
L2-normalised). The chain of ``Demo.m`` (§3.3) then gives the kernel ``K`` used by the model:

1. ``K1 = clip(K0, μ − 4s, μ + 4s)`` (μ, s: mean and std, ddof=1, of all n² entries);
2. ``K2_ij = K1_ij / sqrt(K1_ii K1_jj)``; rows/columns with ``K1_ii <= 0`` become 0, ``K2_ii = 1``;
3. ``K3 = K2 − (r_i + r_j) + t + 1e-12 I`` with ``r`` the row means and ``t`` the mean of K2;
4. ``K = K3 / std(K3)``.

Everything after ``K0`` is a function of the entry and of a few per-view constants
(:class:`KernelChain`). The dense path computes the n x n matrices; the sparse path obtains
the same constants from one or two blockwise passes (plus a third in rare cases), keeping
only each sample's L nearest neighbours, so memory stays O(n·L).
"""

from __future__ import annotations

import logging
from collections.abc import Generator
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from core.data.dataset import View
from core.methods.rgmvc.jit_passes import (
    accumulate_cols,
    final_rows,
    gauss_rows_block,
    normalized_row_sums,
    scan_block,
    select_block,
    tri_dist_block,
)
from core.numerics.graphs import block_rows, row_sq_norms

__all__ = [
    "KernelChain",
    "dense_kernel",
    "gram_rows",
    "kernel_passes",
    "prepare_view",
    "resolve_kinds",
    "select_candidates",
]

log = logging.getLogger(__name__)

KINDS = ("gaussian", "cosine")
_EPS_DIAG = 1e-12  # kcenter's "+ 1e-12 I"
_TRI_BLOCK = 2048  # side of the square blocks of the triangle passes (32 MB each)


def resolve_kinds(views: list[View], kernel: str) -> list[str]:
    """The kernel of each view: ``auto`` is cosine for sparse views, Gaussian otherwise."""
    if kernel == "auto":
        return ["cosine" if sp.issparse(x) else "gaussian" for x in views]
    return [kernel] * len(views)


def prepare_view(x: View, kind: str) -> View:
    """Rows L2-normalised for the cosine kernel (zero rows stay zero); else unchanged."""
    if kind != "cosine":
        return x
    norms = np.sqrt(row_sq_norms(x))
    inv = np.where(norms > 0, 1.0 / np.maximum(norms, 1e-300), 0.0)
    if sp.issparse(x):
        return sp.csr_matrix(sp.diags(inv) @ x)
    return np.ascontiguousarray(x * inv[:, None])


def gram_rows(x: View, start: int, stop: int) -> np.ndarray:
    """x[start:stop] @ x.T as a dense C-contiguous block."""
    g = x[start:stop] @ x.T
    return np.ascontiguousarray(g.toarray() if sp.issparse(g) else g, dtype=np.float64)


def _tri_blocks(n: int, size: int) -> list[tuple[int, int, int, int]]:
    """(r0, r1, c0, c1) of the square blocks on and above the diagonal, row by row."""
    size = max(1, size)
    return [
        (r0, min(n, r0 + size), c0, min(n, c0 + size))
        for r0 in range(0, n, size)
        for c0 in range(r0, n, size)
    ]


def _gram_block(x: View, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
    """x[r0:r1] @ x[c0:c1].T as a dense C-contiguous block."""
    g = x[r0:r1] @ x[c0:c1].T
    return np.ascontiguousarray(g.toarray() if sp.issparse(g) else g, dtype=np.float64)


@dataclass
class KernelChain:
    """Constants of the §3.3 chain for one view, so any entry K[i, j] can be evaluated.

    inv2s2 : 1/(2σ²) (Gaussian only); lo, hi : the clip range μ ∓ 4s;
    diag : K1_ii; bad : K1_ii <= 0 (knorm guard); r : row means of K2; t : mean of K2;
    scale : std of K3.
    """

    kind: str
    inv2s2: float
    lo: float
    hi: float
    diag: np.ndarray
    bad: np.ndarray
    r: np.ndarray
    t: float
    scale: float

    def base(self, dots: np.ndarray, sq_i: np.ndarray, sq_j: np.ndarray, same) -> np.ndarray:
        """K0 from dot products (and squared norms for the Gaussian kernel)."""
        if self.kind == "cosine":
            return dots
        d2 = np.maximum(sq_i + sq_j - 2.0 * dots, 0.0)
        d2 = np.where(same, 0.0, d2)
        return np.exp(-d2 * self.inv2s2)

    def normalized(self, k0: np.ndarray, i, j) -> np.ndarray:
        """K2 = knorm(clip(K0)) at index arrays i, j (broadcastable)."""
        dsafe = np.where(self.bad, 1.0, self.diag)
        k2 = np.clip(k0, self.lo, self.hi) / np.sqrt(dsafe[i] * dsafe[j])
        badpair = self.bad[i] | self.bad[j]
        if np.any(badpair):
            k2 = np.where(badpair, np.where(i == j, 1.0, 0.0), k2)
        return k2

    def final(self, k0: np.ndarray, i, j) -> np.ndarray:
        """The model's K[i, j] (symmetric bit for bit: r_i + r_j commutes)."""
        k3 = self.normalized(k0, i, j) - (self.r[i] + self.r[j]) + self.t
        k3 = k3 + np.where(i == j, _EPS_DIAG, 0.0)
        return k3 / self.scale


def _clip_range(s1: float, s2: float, n_entries: int) -> tuple[float, float, float]:
    mu = s1 / n_entries
    var = (s2 - s1 * s1 / n_entries) / (n_entries - 1)
    s = float(np.sqrt(max(var, 0.0)))
    return mu - 4 * s, mu + 4 * s, s


def _centre_scale(rs2: np.ndarray, ss2: np.ndarray, k2_diag: np.ndarray) -> tuple:
    """r, t and std(K3) from the row sums / sums of squares of K2 (n² entries)."""
    n = rs2.size
    r = rs2 / n
    t = float(r.sum() / n)
    n2 = float(n) * n
    sum3 = n * _EPS_DIAG
    sumsq3 = (
        ss2.sum()
        - 2.0 * n * float(r @ r)
        + n2 * t * t
        + 2.0 * _EPS_DIAG * float((k2_diag - 2 * r + t).sum())
        + n * _EPS_DIAG**2
    )
    var = (sumsq3 - sum3 * sum3 / n2) / (n2 - 1)
    return r, t, float(np.sqrt(max(var, 0.0)))


def dense_kernel(x: View, kind: str, bandwidth: float) -> tuple[np.ndarray, KernelChain] | None:
    """The full n x n kernel of one view (dense path); None for a constant kernel."""
    x = prepare_view(x, kind)
    n = x.shape[0]
    g = gram_rows(x, 0, n)
    g = (g + g.T) / 2  # BLAS need not return a bit-symmetric product
    sq = row_sq_norms(x)
    idx = np.arange(n)
    inv2s2 = 0.0
    if kind == "gaussian":
        d2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * g, 0.0)
        np.fill_diagonal(d2, 0.0)
        sigma = bandwidth * float(np.sqrt(d2).sum()) / (n * (n - 1))
        if not sigma > 0:
            return None
        inv2s2 = 1.0 / (2.0 * sigma * sigma)
        k0 = np.exp(-d2 * inv2s2)
        del d2
    else:
        k0 = g
    mu, s = float(k0.mean()), float(k0.std(ddof=1))
    if not s > 0:
        return None
    lo, hi = mu - 4 * s, mu + 4 * s
    diag = np.clip(np.diag(k0).copy(), lo, hi)
    chain = KernelChain(kind, inv2s2, lo, hi, diag, diag <= 0, np.zeros(n), 0.0, 1.0)
    k2 = chain.normalized(k0, idx[:, None], idx[None, :])
    del k0
    chain.r = k2.mean(axis=1)
    chain.t = float(k2.sum() / (float(n) * n))
    k3 = k2 - (chain.r[:, None] + chain.r[None, :]) + chain.t
    del k2
    k3[idx, idx] += _EPS_DIAG
    k3 = (k3 + k3.T) / 2
    chain.scale = float(k3.std(ddof=1))
    if not chain.scale > 0:
        return None
    k3 /= chain.scale
    return k3, chain


def kernel_passes(
    x: View,
    kind: str,
    bandwidth: float,
    *,
    force_exact: bool = False,
    n_top: int = 32,
    block: int | None = None,
) -> Generator[float, None, KernelChain | None]:
    """Sparse path: the chain constants of one view from blockwise passes.

    Gaussian: pass 1 sums the distances (σ; a mean of distances, not of squared ones, so
    it has no closed form); pass 2 sums K0 and K0² per row and keeps each row's ``n_top``
    largest and smallest K0. Both visit only the blocks on and above the diagonal
    (``block`` rows/columns each) and credit each entry to its row and its column, so they
    cost half a full pass each. Cosine needs one full pass (largest values and the row
    minima). The clip of step 1 touches only entries above μ + 4s or below μ − 4s: in a
    row where all of them are among the kept ones, the row sums of K2 follow exactly from
    the sums and the kept values; the other rows (all rows with force_exact) get theirs from
    their full kernel rows, so the cost grows with the number of such rows only. Yields
    the fraction done; returns the chain, or None for a constant kernel.
    """
    x = prepare_view(x, kind)
    n = x.shape[0]
    big_l = min(n_top, n - 1)
    sq = row_sq_norms(x)
    step = block_rows(n, n, 96 << 20)
    n_passes = 3 if kind == "gaussian" else 2
    top_idx = np.zeros((n, big_l), dtype=np.int64)
    top_val = np.zeros((n, big_l), dtype=np.float64)
    sums = np.empty((n, 2))
    done = 0.0

    def blocks(rows: np.ndarray):
        for s0 in range(0, rows.size, step):
            rws = rows[s0 : s0 + step]
            g = x[rws] @ x.T
            yield (
                s0 + rws.size,
                rws,
                np.ascontiguousarray(g.toarray() if sp.issparse(g) else g, dtype=np.float64),
            )

    inv2s2 = 0.0
    if kind == "gaussian":
        # both Gaussian passes run over the upper-triangle blocks only (K0 is symmetric)
        tri = _tri_blocks(n, block or _TRI_BLOCK)
        sd, maxd2 = 0.0, 0.0
        for k, (r0, r1, c0, c1) in enumerate(tri):
            g = _gram_block(x, r0, r1, c0, c1)
            out = tri_dist_block(g, sq[r0:r1], sq[c0:c1], r0, c0)
            sd += 2.0 * float(out[:, 0].sum())
            maxd2 = max(maxd2, float(out[:, 1].max()))
            yield (done + (k + 1) / len(tri)) / n_passes
        done += 1
        sigma = bandwidth * sd / (n * (n - 1))
        if not sigma > 0:
            return None
        inv2s2 = 1.0 / (2.0 * sigma * sigma)
        sums[:] = 0.0
        top_k0 = np.full((n, big_l), -np.inf)
        neg_bot = np.full((n, big_l), -np.inf)
        for k, (r0, r1, c0, c1) in enumerate(tri):
            g = _gram_block(x, r0, r1, c0, c1)
            gauss_rows_block(g, sq[r0:r1], sq[c0:c1], r0, c0, inv2s2, sums, top_k0, neg_bot)
            if c0 != r0:
                accumulate_cols(g, r0, c0, sums, top_k0, neg_bot)
            yield (done + (k + 1) / len(tri)) / n_passes
        done += 1
        bot_k0 = -neg_bot  # each row's big_l smallest K0 (j != i), ascending
        kmin = np.full(n, np.exp(-maxd2 * inv2s2))
        kmax_off = np.ones(n)
        diag0 = np.ones(n)
    else:
        stats = np.empty((n, 5))
        for stop, rws, k0 in blocks(np.arange(n)):
            stats[rws] = scan_block(k0, int(rws[0]), 1.0, top_idx, top_val)
            yield (done + stop / n) / n_passes
        done += 1
        top_k0, bot_k0 = top_val, None
        sums[:] = stats[:, :2]
        kmin, kmax_off = stats[:, 3], stats[:, 4]
        diag0 = row_sq_norms(x)
    lo, hi, s = _clip_range(float(sums[:, 0].sum()), float(sums[:, 1].sum()), n * n)
    if not s > 0:
        return None
    diag = np.clip(diag0, lo, hi)
    bad = diag <= 0
    chain = KernelChain(kind, inv2s2, lo, hi, diag, bad, np.zeros(n), 0.0, 1.0)
    dsafe = np.where(bad, 1.0, diag)
    k2_diag = np.where(bad, 1.0, diag / np.sqrt(dsafe * dsafe))
    good_d = diag[~bad]
    # rows whose clipped entries may lie beyond the kept values need their exact sums
    if bot_k0 is None:
        row_low_ok = kmin >= lo
    else:  # every entry below lo is among the kept smallest
        row_low_ok = np.full(n, big_l >= n - 1) | (bot_k0[:, -1] >= lo)
    row_ok = row_low_ok & ((big_l >= n - 1) | (top_k0[:, -1] <= hi))
    shortcut = (
        not force_exact
        and good_d.size > 0
        and bool(np.all(good_d == good_d[0]))
        and bool(np.all((kmin[bad] == 0) & (kmax_off[bad] == 0)))
    )
    if shortcut:
        delta = float(good_d[0])
        over = np.maximum(top_k0 - hi, 0.0)
        over_sq = np.where(top_k0 > hi, top_k0**2 - hi**2, 0.0)
        rs1 = sums[:, 0] - over.sum(axis=1) - np.maximum(diag0 - hi, 0.0)
        ss1 = sums[:, 1] - over_sq.sum(axis=1) - np.where(diag0 > hi, diag0**2 - hi**2, 0.0)
        rs1 += np.maximum(lo - diag0, 0.0)
        ss1 += np.where(diag0 < lo, lo**2 - diag0**2, 0.0)
        if bot_k0 is not None:  # entries raised to lo by the clip
            rs1 += np.maximum(lo - bot_k0, 0.0).sum(axis=1)
            ss1 += np.where(bot_k0 < lo, lo**2 - bot_k0**2, 0.0).sum(axis=1)
        rs2 = np.where(bad, 1.0, (rs1 - diag) / np.sqrt(delta * delta) + k2_diag)
        ss2 = np.where(bad, 1.0, (ss1 - diag**2) / (delta * delta) + k2_diag**2)
        exact_rows = np.flatnonzero(~row_ok)
    else:
        rs2, ss2 = np.empty(n), np.empty(n)
        exact_rows = np.arange(n)
    if exact_rows.size:
        log.info("RG-MVC %s kernel: exact clipped sums for %d rows", kind, exact_rows.size)
        kernel_kind = 1 if kind == "gaussian" else 2
        for stop, rws, g in blocks(exact_rows):
            out = normalized_row_sums(g, sq[rws], sq, rws, kernel_kind, inv2s2, lo, hi, diag, bad)
            rs2[rws], ss2[rws] = out[:, 0], out[:, 1]
            yield min(0.99, (done + stop / exact_rows.size) / n_passes)
    chain.r, chain.t, chain.scale = _centre_scale(rs2, ss2, k2_diag)
    if not chain.scale > 0:
        return None
    yield 1.0
    return chain


def select_candidates(
    xs: list[View],
    chains: list[KernelChain],
    w: np.ndarray,
    n_cand: int,
    rows: np.ndarray | None = None,
    *,
    sqs: list[np.ndarray] | None = None,
) -> Generator[float, None, tuple]:
    """Candidate sets for the sparse G solve (kernels.rgmvc.select_block).

    Per row, the union of the n_cand largest ``K_p[i, j]`` of every view and the n_cand
    largest ``Σ_p w_p K_p[i, j]``. One blockwise pass over the final kernels of all views
    (``xs`` already prepared, e.g. L2-normalised for cosine). Yields the fraction done and
    returns ``(counts (r,), idx (nnz,), vals (nnz x V), bview (r x V), bref (r,),
    bdir (r x V))`` for the given rows (all by default), candidates of a row contiguous and
    in ascending j; ``bview``, ``bref``, ``bdir`` bound the left-out values and certify them.
    """
    n, nv = xs[0].shape[0], len(xs)
    rows = np.arange(n) if rows is None else np.asarray(rows, dtype=np.int64)
    big_l = min(n_cand, n - 1)
    max_c = min(n - 1, (nv + 1) * big_l)
    sqs = sqs if sqs is not None else [row_sq_norms(x) for x in xs]
    counts = np.empty(rows.size, dtype=np.int64)
    bview = np.empty((rows.size, nv))
    bref = np.empty(rows.size)
    bdir = np.empty((rows.size, nv))
    step = int(max(16, min(rows.size, (128 << 20) // (8 * n * nv))))
    kb = np.empty((nv, min(step, rows.size), n))
    bidx = np.empty((min(step, rows.size), max_c), dtype=np.int64)
    bval = np.empty((min(step, rows.size), max_c, nv))
    idx_parts, val_parts = [], []
    for s0 in range(0, rows.size, step):
        rws = rows[s0 : s0 + step]
        b = rws.size
        for p, (x, sq, ch) in enumerate(zip(xs, sqs, chains, strict=True)):
            g = x[rws] @ x.T
            g = np.ascontiguousarray(g.toarray() if sp.issparse(g) else g, dtype=np.float64)
            kind = 1 if ch.kind == "gaussian" else 2
            _rows_kernel(g, sq[rws], sq, rws, kind, ch)
            kb[p, :b] = g
        sl = slice(s0, s0 + b)
        select_block(
            kb[:, :b], w, rws, big_l, bidx[:b], bval[:b], counts[sl], bview[sl], bref[sl], bdir[sl]
        )
        keep = np.arange(max_c)[None, :] < counts[sl, None]
        idx_parts.append(bidx[:b][keep])
        val_parts.append(bval[:b][keep])
        yield (s0 + b) / rows.size
    return counts, np.concatenate(idx_parts), np.concatenate(val_parts), bview, bref, bdir


def _rows_kernel(g, sq_rows, sq, rws, kind: int, ch: KernelChain) -> None:
    """In place: dot products of the given rows with all samples -> final K rows."""
    final_rows(
        g, sq_rows, sq, rws, kind, ch.inv2s2, ch.lo, ch.hi, ch.diag, ch.bad, ch.r, ch.t, ch.scale
    )
