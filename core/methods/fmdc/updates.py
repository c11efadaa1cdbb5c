"""FMDC pieces outside the sweep kernel: the V x V Gram matrix, b(Y), the α-step."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp

from core.methods.fmdc.jit import csr_cross_product, place_csr_block
from core.numerics.linalg import project_simplex, simplex_qp
from core.numerics.spectral import top_left_singular_vectors
from core.numerics.threads import blas_single, blas_threads

__all__ = [
    "balance_empty_clusters",
    "cross_gram",
    "fmdc_objective_terms",
    "graph_products",
    "solve_view_weights",
    "spectral_embedding",
    "stack_graphs",
    "tree_rows",
    "view_terms",
]


DENSE_CROSS_MAX = 4096  # anchors up to which Ẑ_uᵀẐ_v is accumulated dense (128 MB)


def cross_gram(zhats: Sequence[sp.csr_matrix]) -> np.ndarray:
    """M_uv = tr(S_u S_v) = ‖Ẑ_uᵀ Ẑ_v‖²_F (V x V, PSD), from m x m products only.

    Up to DENSE_CROSS_MAX anchors each m x m product is accumulated dense by a kernel
    (n = 30k, m = 1024, 3 views: 0.13x the BLAS floor of the fit with scipy's sparse
    products); more anchors use scipy's sparse products.
    """
    v = len(zhats)
    gram = np.zeros((v, v))
    dense = max(z.shape[1] for z in zhats) <= DENSE_CROSS_MAX
    zt = None if dense else [z.T.tocsr() for z in zhats]

    def entry(pair: tuple[int, int]) -> None:
        i, j = pair
        if zt is None:
            a, b = zhats[i], zhats[j]
            prod = csr_cross_product(
                a.indptr, a.indices, a.data, b.indptr, b.indices, b.data, a.shape[1], b.shape[1]
            )
            gram[i, j] = gram[j, i] = float(np.vdot(prod, prod))
        else:
            prod = zt[i] @ zhats[j]
            gram[i, j] = gram[j, i] = float(prod.multiply(prod).sum())

    # the V(V+1)/2 products on all threads (the kernel releases the GIL), the dot products on
    # one-thread BLAS: a threaded one leaves OpenBLAS's workers spinning for ~0.1 s
    pairs = [(i, j) for i in range(v) for j in range(i, v)]
    with blas_single(), ThreadPoolExecutor(min(blas_threads(), len(pairs))) as pool:
        list(pool.map(entry, pairs))
    return gram


def spectral_embedding(stack: sp.csr_matrix, v: int, c: int, rng: np.random.Generator):
    """Top-c left singular vectors of [Ẑ_1, …, Ẑ_V] / √V (spec §6), the spectral start.
    Call under one-thread BLAS: ARPACK's threaded BLAS leaves OpenBLAS's workers spinning."""
    scaled = sp.csr_matrix(
        (stack.data * np.sqrt(1.0 / v), stack.indices, stack.indptr), shape=stack.shape
    )
    return top_left_singular_vectors(scaled, c, rng)


def graph_products(
    zhats: Sequence[sp.csr_matrix],
    graphs: Sequence[sp.csr_matrix],
    c: int,
    rng: np.random.Generator | None,
) -> tuple[np.ndarray, sp.csr_matrix, sp.csr_matrix, np.ndarray | None]:
    """Everything the optimisation starts from: ``(M, the equal-weight consensus graph,
    the stack [Ẑ_1, …, Ẑ_V], the spectral embedding or None when ``rng`` is None)``.

    The stack and ARPACK's embedding (serial: scipy's sparse products) run on a side thread
    while this one computes M on both threads and the consensus: at n = 100k the embedding
    alone kept one core busy for ~0.35 s with the other idle. Same values as in sequence."""

    def side() -> tuple[sp.csr_matrix, np.ndarray | None]:
        stack = stack_graphs(zhats)
        return stack, None if rng is None else spectral_embedding(stack, len(zhats), c, rng)

    # one-thread BLAS for the whole section (the limit is process-wide: the side thread's
    # ARPACK runs under it, and cross_gram's own limit nests inside it)
    with blas_single(), ThreadPoolExecutor(1) as pool:
        job = pool.submit(side)
        gram = cross_gram(zhats)
        # the equal-weight consensus, so the heat map shows (and playback records) the
        # graph while the labels move
        heat = (sum(graphs) / len(graphs)).tocsr()
        stack, embedding = job.result()
    return gram, heat, stack, embedding


def fmdc_objective_terms(zhats: Sequence[sp.csr_matrix], labels: np.ndarray, c: int) -> np.ndarray:
    """b_v(Y) = 2 Σ_l ‖Ẑ_vᵀ y_l‖² / n_l for every view (empty clusters contribute 0)."""
    n = labels.size
    ind = sp.csr_matrix((np.ones(n), (np.arange(n), labels)), shape=(n, c))
    counts = np.bincount(labels, minlength=c).astype(np.float64)
    inv = np.where(counts > 0, 1.0 / np.maximum(counts, 1), 0.0)
    out = np.empty(len(zhats))
    for v, z in enumerate(zhats):
        b = (z.T @ ind).toarray()
        out[v] = 2.0 * float(np.einsum("ij,ij->j", b, b) @ inv)
    return out


TREE_ROWS_PER_ANCHOR = 32  # BKHK's automatic subsample (docs/methods/fmdc.md)


def tree_rows(per_anchor: int | None, n: int, m: int) -> int | None:
    """Rows BKHK's tree is built on (None: all n) for ``bkhk_sample`` = ``per_anchor``.

    A balanced split costs ~10-40 passes over its rows per tree level: on all rows of
    n = 100k the tree alone was about twice the BLAS floor of the whole fit. Automatic: 32 rows
    per anchor, at least 32768 rows; 0: every row (the paper)."""
    if per_anchor == 0:
        return None
    rows = max(TREE_ROWS_PER_ANCHOR * m, 32768) if per_anchor is None else per_anchor * m
    return rows if rows < n else None


def stack_graphs(zs: Sequence[sp.csr_matrix]) -> sp.csr_matrix:
    """[Z_1, …, Z_V] as CSR (the same matrix as ``sp.hstack(zs, format="csr")``, which
    spent 0.7 s per call at n = 100k, 3 x 15 non-zeros per row, under load)."""
    n = zs[0].shape[0]
    lengths = sum(np.diff(z.indptr) for z in zs)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    indices = np.empty(indptr[-1], dtype=np.int64)
    data = np.empty(indptr[-1], dtype=np.float64)
    fill = indptr[:-1].copy()
    offset = 0
    for z in zs:
        place_csr_block(z.indptr, z.indices, z.data, offset, fill, indices, data)
        offset += z.shape[1]
    return sp.csr_matrix((data, indices, indptr), shape=(n, offset))


def view_terms(sums: np.ndarray, widths: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """b(Y) from the stacked sums [Ẑ_1ᵀY; …; Ẑ_VᵀY] (rows widths[v]:widths[v+1] per view):
    the same values as :func:`fmdc_objective_terms`, without another pass over the graphs."""
    inv = np.where(counts > 0, 1.0 / np.maximum(counts, 1), 0.0)
    per_col = [np.einsum("ij,ij->j", blk, blk) for blk in np.split(sums, widths[1:-1])]
    return np.array([2.0 * float(col @ inv) for col in per_col])


def solve_view_weights(gram: np.ndarray, lin: np.ndarray, method: str) -> np.ndarray:
    """α = argmin_{α in simplex} αᵀMα − bᵀα (exact QP, or the paper's ALM, Algorithm 2)."""
    if method == "exact_qp":
        return simplex_qp(gram, lin)
    # The paper gives no μ0 / ρ. A fast-growing μ freezes α = β early at a non-minimiser
    # (ρ = 1.5 from μ0 = 1 stopped 0.02 above the optimum); μ0 = 2 λ_max(M) with ρ = 1.001
    # reached the exact QP's value to 1e-14 on 200 random problems (docs/methods/fmdc.md).
    alpha = np.full(lin.size, 1.0 / lin.size)
    lam = np.zeros_like(alpha)
    mu, rho = 2.0 * max(float(np.linalg.eigvalsh(gram)[-1]), 1e-12), 1.001
    for _ in range(5000):
        beta = alpha + (lam - gram.T @ alpha) / mu
        r = beta - (lam + gram @ beta - lin) / mu
        alpha_new = project_simplex(r)
        lam += mu * (alpha_new - beta)
        mu *= rho
        done = max(np.abs(alpha_new - beta).max(), np.abs(alpha_new - alpha).max()) < 1e-11
        alpha = alpha_new
        if done:
            break
    return alpha


def balance_empty_clusters(labels: np.ndarray, c: int) -> np.ndarray:
    """Give every empty cluster one sample taken from the currently largest cluster."""
    labels = labels.copy()
    counts = np.bincount(labels, minlength=c)
    for empty in np.flatnonzero(counts == 0):
        donor = int(np.argmax(counts))
        idx = np.flatnonzero(labels == donor)[-1]
        labels[idx] = empty
        counts[donor] -= 1
        counts[empty] += 1
    return labels
