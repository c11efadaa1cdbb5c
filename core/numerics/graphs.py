"""Anchor graphs: blockwise distances, the parameter-free k-NN anchor graph (PKN), Ẑ.

Distances are ``‖x‖² + ‖u‖² − 2 xᵀu`` with the product done by BLAS (sparse × dense for CSR
views) in row blocks, so memory stays O(block · m). Never builds an n × n matrix.
"""

from __future__ import annotations

import logging
from collections.abc import Generator
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp

from core.data.dataset import View
from core.numerics.jit.graph import (
    pkn_rows_into,
    pkn_rows_refined_csr_into,
    pkn_rows_refined_into,
)
from core.numerics.jit.pkn_mixed import pkn_rows_mixed_into, screen_bounds
from core.numerics.steps import drain
from core.numerics.threads import blas_single, blas_threads

__all__ = [
    "block_rows",
    "normalize_anchor_graph",
    "pkn_anchor_graph",
    "pkn_anchor_graph_steps",
    "pkn_refiner",
    "row_sq_norms",
]

log = logging.getLogger(__name__)


def block_rows(n: int, m: int, budget_bytes: int = 64 << 20) -> int:
    """Rows per block so that a (rows x m) float64 block stays within the budget."""
    return int(max(256, min(n, budget_bytes // max(8 * m, 1))))


def row_sq_norms(x: View) -> np.ndarray:
    """Squared row norms, float64 (accumulated in float64 for float32 data)."""
    acc = None if x.dtype == np.float64 else np.float64
    if sp.issparse(x):
        return np.asarray(x.multiply(x).sum(axis=1, dtype=acc)).ravel()
    return np.einsum("ij,ij->i", x, x, dtype=acc)


def _gram(x: View, ut: np.ndarray) -> np.ndarray:
    g = x @ ut
    return np.ascontiguousarray(g.toarray() if sp.issparse(g) else g)


def clip_neighbors(k: int, m: int) -> int:
    """At most m - 1 neighbours among m anchors (the PKN weights need a (k+1)-th), said in
    the log when it clips."""
    k_eff = min(k, m - 1)
    if k_eff < k:
        log.warning("n_neighbors=%d clipped to %d (only %d anchors)", k, k_eff, m)
    return k_eff


PKN_BLOCK_BYTES = 4 << 20  # one thread's distance block: stays in cache for the selection
PKN_SWEEP_BYTES = 256 << 20  # distance blocks computed between two progress reports
#: rows are cut into at least this many blocks (of at least 64 rows), whatever the thread
#: count: the blocks, and so the graph's bits, are the same with 1 or 8 threads
PKN_SPLIT = 8


def pkn_anchor_graph_steps(
    x: View, anchors: np.ndarray, k: int, mixed: bool = False
) -> Generator[float, None, sp.csr_matrix]:
    """PKN anchor graph (common spec §4) computed in row blocks; yields the fraction done.

    Returns the n x m CSR matrix with k non-zeros per row summing to 1. Each thread takes
    small row blocks through its own one-thread BLAS product and the selection kernel, so
    the n x m distances are never in memory together and the selection reads them from cache
    while the other thread multiplies (one multi-threaded product per 8192-row block, then a
    parallel selection over it, cost 1.4x the bare products at n = 30k).

    ``mixed``: for dense data of at least MIXED_MIN_DIM features, float32 products only screen
    the anchors and the graph is that of float64 distances (:func:`mixed_rows`); on float64
    data the products run in float32, on float32 data the k + 1 nearest are then certified
    rather than taken from the float32 products.
    """
    n, m = x.shape[0], anchors.shape[0]
    if m == 1:
        yield 1.0
        return sp.csr_matrix(np.ones((n, 1)))
    k_eff = clip_neighbors(k, m)
    # in the data's precision: float32 data give a float32 product (the graph stays float64)
    anchors_t = np.ascontiguousarray(anchors, dtype=x.dtype).T
    anchor_sq = row_sq_norms(anchors_t.T)
    idx = np.empty((n, k_eff), dtype=np.int64)
    val = np.empty((n, k_eff), dtype=np.float64)
    threads = blas_threads()
    # at most 1/PKN_SPLIT of the rows: a few hundred rows (predict's 500-sample check after
    # every fit) still use every thread. Not a thread's share: a BLAS product's rounding
    # depends on its row count, so blocks sized by the thread count gave other distances
    step = max(64, min(-(-n // PKN_SPLIT), PKN_BLOCK_BYTES // (x.dtype.itemsize * m)))
    per_sweep = max(1, PKN_SWEEP_BYTES // PKN_BLOCK_BYTES)

    refine = pkn_refiner(x.dtype, anchors, anchor_sq, k_eff)
    rows_of = None
    if mixed and use_mixed(x, m, k_eff):
        rows_of = mixed_rows(anchors, k_eff)
        step = max(64, min(-(-n // PKN_SPLIT), PKN_BLOCK_BYTES // (4 * m)))  # float32 blocks

    def block(start: int) -> None:
        stop = min(n, start + step)
        part = x[start:stop]
        if rows_of is not None:
            rows_of(part, idx[start:stop], val[start:stop])
            return
        gram = _gram(part, anchors_t)
        if refine is None:
            rows_sq = row_sq_norms(part)
            pkn_rows_into(gram, rows_sq, anchor_sq, k_eff, idx[start:stop], val[start:stop])
        else:
            refine(part, gram, idx[start:stop], val[start:stop])

    starts = list(range(0, n, step))
    with ThreadPoolExecutor(threads) if threads > 1 else _Inline() as pool:
        for lo in range(0, len(starts), per_sweep):
            with blas_single():  # the threads are the parallelism
                list(pool.map(block, starts[lo : lo + per_sweep]))
            yield min(1.0, (lo + per_sweep) * step / n)
    indptr = np.arange(0, n * k_eff + 1, k_eff, dtype=np.int64)
    z = sp.csr_matrix((val.ravel(), idx.ravel(), indptr), shape=(n, m))
    z.eliminate_zeros()
    return z


def pkn_refiner(dtype: np.dtype, anchors: np.ndarray, anchor_sq: np.ndarray, k: int):
    """For data of ``dtype`` below float64: ``refine(block, gram, idx, val)``, the PKN rows of
    a block whose k + 1 selected distances are recomputed in float64 (None for float64 data,
    whose graph stays bit-identical). ``anchor_sq``: norms of the anchors in the data's precision.

    The selection is cheap to get right in float32, but the weights (d_(k+1) − d_j) /
    Σ_h (d_(k+1) − d_h) divide differences of nearby distances, and float32 products gave
    them ~1e-4 relative errors (DTLL on Handwritten moved 0.003-0.03 ACC between float32 and
    float64). The recomputation costs n·(k+1)·d against the n·m·d product.
    """
    if np.dtype(dtype) == np.float64:
        return None
    exact = np.ascontiguousarray(anchors, dtype=np.float64)
    exact_sq = row_sq_norms(exact)

    def refine(part: View, gram: np.ndarray, idx: np.ndarray, val: np.ndarray) -> None:
        rows_sq = row_sq_norms(part)
        if sp.issparse(part):
            part = sp.csr_matrix(part)
            pkn_rows_refined_csr_into(
                gram, part.indptr, part.indices, part.data, exact, rows_sq, anchor_sq,
                exact_sq, k, idx, val,
            )  # fmt: skip
        else:
            part = np.ascontiguousarray(part)
            pkn_rows_refined_into(gram, part, exact, rows_sq, anchor_sq, exact_sq, k, idx, val)

    return refine


MIXED_MIN_DIM = 200  # fewer features: the selection, not the product, is the cost (100: no gain)
MIXED_MAX_DIM = 1 << 20  # the float32 error bound grows as d·2^-24
#: row norms up to which float32 products can neither overflow nor lose the bound (float32
#: holds 3.4e38; products and partial sums stay below ‖x‖·‖u‖)
MIXED_MAX_NORM = 1e17


def use_mixed(x: View, m: int, k: int) -> bool:
    """Whether the mixed-precision selection applies: dense float64 or float32 data, enough
    features, and more anchors than the k + 1 a row needs."""
    dense = not sp.issparse(x) and x.dtype in (np.float64, np.float32)
    wide_enough = MIXED_MIN_DIM <= x.shape[1] <= MIXED_MAX_DIM
    return dense and wide_enough and m > 2 * (k + 1)


def mixed_rows(anchors: np.ndarray, k: int):
    """``rows(block, idx, val)``: the PKN rows of a dense block from its float32 product with
    the anchors, which only screens them (with a rigorous error bound), and the float64
    distances of the candidates (core.numerics.jit.pkn_mixed): the graph of float64 distances
    (of the stored values, for float32 data). A block whose norms could overflow float32
    gets a float64 product instead."""
    exact = np.ascontiguousarray(anchors, dtype=np.float64)
    exact_sq = row_sq_norms(exact)
    single_t = np.ascontiguousarray(anchors, dtype=np.float32).T
    norms = np.sqrt(exact_sq)
    bounds = screen_bounds(exact.shape[1])
    safe = norms.max(initial=0.0) < MIXED_MAX_NORM

    def rows(part: np.ndarray, idx: np.ndarray, val: np.ndarray) -> None:
        wide = np.ascontiguousarray(part, dtype=np.float64)  # float32 data: exact values
        rows_sq = row_sq_norms(wide)
        if not (safe and rows_sq.max(initial=0.0) < MIXED_MAX_NORM**2):
            pkn_rows_into(wide @ exact.T, rows_sq, exact_sq, k, idx, val)
            return
        gram = np.asarray(part, dtype=np.float32) @ single_t
        pkn_rows_mixed_into(gram, wide, exact, rows_sq, exact_sq, norms, *bounds, k, idx, val)

    return rows


class _Inline:
    """A one-thread stand-in for ThreadPoolExecutor (no thread to start)."""

    def __enter__(self) -> _Inline:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def map(self, fn, items):
        return map(fn, items)


def pkn_anchor_graph(x: View, anchors: np.ndarray, k: int, mixed: bool = False) -> sp.csr_matrix:
    """Non-generator form of :func:`pkn_anchor_graph_steps`."""
    return drain(pkn_anchor_graph_steps(x, anchors, k, mixed))


def normalize_anchor_graph(z: sp.csr_matrix) -> sp.csr_matrix:
    """Ẑ = Z Δ^{-1/2} with Δ = diag(1ᵀZ), pseudo-inverse for anchors nobody uses."""
    col = np.asarray(z.sum(axis=0)).ravel()
    inv = np.zeros_like(col)
    nz = col > 0
    inv[nz] = 1.0 / np.sqrt(col[nz])
    return sp.csr_matrix(z @ sp.diags(inv))
