"""DTLL's ALM step with the tensor kept in the Fourier domain (per-sample orientation).

The same iteration as ``alm.alm_step`` (G → J → M → α → μ, Algorithm 3.1), arranged so that
one step costs one real FFT of the one-hot 𝒢 (none when no label changed) and one inverse
FFT of 𝒥, instead of the FFT of 𝒢 + ℳ/μ, the FFT of 𝒢 for the objective and the inverse:

* ℳ is kept in both domains. By linearity FFT(𝒢 + ℳ/μ) = Ĝ + M̂/μ, and the M-step
  M̂ += μ(Ĝ − Ĵ) is done on the Fourier slices while they are in cache;
* Ĝ serves the J-step and the objective's ‖𝒢‖_{S_p}^p alike;
* slices are shrunk through their q × q Gram matrices (``fourier_jit``), and the G-step
  is one fused pass per view (sparse S H, + μJ − M, argmax).

The iterates equal the reference step's up to rounding (tests/core/methods/test_dtll_fourier.py).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import scipy.fft as sfft
import scipy.sparse as sp

from core.methods.dtll.alm import MU_MAX, RHO, AlmParams, hold_ties
from core.methods.dtll.fourier_batch import shrink, sp_norm
from core.methods.dtll.fourier_jit import (
    PARALLEL_SIZE,
    dual_update,
    label_argmax,
    onehot_update,
)
from core.methods.dtll.updates import alpha_step, label_step, nuclear_gradient, transmission
from core.numerics.threads import blas_threads

__all__ = ["FourierState", "fourier_step"]


@dataclass
class FourierState:
    """The ALM iterate with 𝒥, ℳ as (V, C, N) and Ĝ, M̂ as (V, C, N//2 + 1).

    ``view_labels`` (V × N), ``alpha``, ``mu``, ``missing`` and the kept label terms mean
    what they mean in ``alm.AlmState``.
    """

    rows: list[np.ndarray]
    view_labels: np.ndarray
    alpha: np.ndarray
    mu: float
    n_clusters: int
    missing: list[np.ndarray] | None = None
    grads: list[tuple[np.ndarray, float]] = field(default_factory=list)
    tensor_term: float | None = None
    big_j: np.ndarray = field(init=False)
    big_m: np.ndarray = field(init=False)
    g_hat: np.ndarray | None = field(init=False, default=None)
    m_hat: np.ndarray = field(init=False)
    onehot: np.ndarray = field(init=False)
    onehot_labels: np.ndarray = field(init=False)  # the labels ``onehot`` holds (-1: none)

    def __post_init__(self) -> None:
        nv, n = self.view_labels.shape
        c = self.n_clusters
        self.big_j = np.zeros((nv, c, n))
        self.big_m = np.zeros((nv, c, n))
        self.m_hat = np.zeros((nv, c, n // 2 + 1), dtype=np.complex128)
        self.onehot = np.zeros((nv, c, n))
        self.onehot_labels = np.full((nv, n), -1, dtype=np.int64)

    def tensors(self) -> tuple[np.ndarray, np.ndarray]:
        """(𝒥, ℳ) as N × C × V, the layout of ``AlmState``."""
        return self.big_j.transpose(2, 1, 0), self.big_m.transpose(2, 1, 0)


def _workers(size: int) -> int:
    """Both cores for the FFT of large tensors (its rows are independent transforms, so the
    result is the same; 100k samples: 8.6 -> 5.5 ms per transform on a quiet machine)."""
    return -1 if size >= PARALLEL_SIZE else 1


def _fft_labels(st: FourierState) -> np.ndarray:
    """Ĝ: the real FFT along the samples of the one-hot 𝒢."""
    onehot_update(st.view_labels, st.onehot_labels, st.onehot)
    return sfft.rfft(st.onehot, axis=-1, workers=_workers(st.onehot.size))


def _label_step(
    graph: sp.csr_matrix, st: FourierState, v: int, h: np.ndarray, w: float, repair: bool
) -> tuple[int, int]:
    """G-step of view v (Eq. 13-19): fused kernel; the explicit Q only for the rare
    empty-cluster repair and for rows a view lacks (incomplete views)."""
    old = st.view_labels[v].copy()
    need_q = st.missing is not None and st.missing[v].size > 0
    if not need_q:
        label_argmax(
            graph.indptr,
            graph.indices,
            graph.data,
            h,
            w,
            st.mu,
            st.big_j[v],
            st.big_m[v],
            st.view_labels[v],
        )
        counts = np.bincount(st.view_labels[v], minlength=st.n_clusters)
        need_q = repair and np.any(counts == 0) and old.size >= st.n_clusters
    fixed = 0
    if need_q:
        q = w * (graph @ h) + st.mu * st.big_j[v].T - st.big_m[v].T
        if st.missing is not None:
            hold_ties(q, st.missing[v], old)
        st.view_labels[v], fixed = label_step(q, repair)
    return int(np.count_nonzero(st.view_labels[v] != old)), fixed


def fourier_step(
    graphs: list[sp.csr_matrix], st: FourierState, params: AlmParams
) -> tuple[float, dict[str, float]]:
    """One iteration of Algorithm 3.1 (per-sample orientation), as ``alm.alm_step``."""
    nv = len(graphs)
    lam, p, r = params.lam, params.schatten_p, params.weight_exponent
    changed = repairs = 0
    weight = np.maximum(st.alpha, 1e-12) ** r
    for v in range(nv):
        h = st.grads[v][0] if st.grads else _gradient(graphs[v], st, v)[0]
        moved, fixed = _label_step(graphs[v], st, v, h, float(weight[v]), params.repair_empty)
        changed += moved
        repairs += fixed
    if changed or st.g_hat is None:
        st.g_hat = None  # the old transform is not needed: one complex tensor less at peak
        st.g_hat = _fft_labels(st)
    j_hat = np.empty_like(st.m_hat)
    shrink(st.g_hat, st.m_hat, st.mu, lam / st.mu, p, j_hat)
    del st.big_j  # replaced by the irfft below; freed first to lower the peak
    n = st.view_labels.shape[1]
    st.big_j = sfft.irfft(j_hat, n=n, axis=-1, workers=_workers(st.big_m.size))
    del j_hat
    residual = dual_update(st.view_labels, st.big_j, st.big_m, st.mu)
    st.grads = _gradients(graphs, st)
    nuc = np.array([g[1] for g in st.grads])
    st.alpha = alpha_step(nuc, r)
    st.mu = min(RHO * st.mu, MU_MAX)
    if changed or st.tensor_term is None:
        st.tensor_term = sp_norm(st.g_hat, p, st.view_labels.shape[1])
    obj = float(np.sum(st.alpha**r * nuc)) - lam * st.tensor_term
    step = {"residual": residual, "changed": float(changed), "repairs": float(repairs), "mu": st.mu}
    return obj, step


def _gradient(graph: sp.csr_matrix, st: FourierState, v: int) -> tuple[np.ndarray, float]:
    return nuclear_gradient(transmission(graph, st.rows[v], st.view_labels[v], st.n_clusters))


def _gradients(graphs: list[sp.csr_matrix], st: FourierState) -> list[tuple[np.ndarray, float]]:
    """Every view's (H, ‖S_vᵀG_v‖_*): the views on all cores for large graphs (the SᵀG
    kernel and LAPACK release the GIL; BLAS is held at one thread by the caller). They were
    the largest serial part of a step: 3 x 2 ms at n = 100k."""
    views = range(len(graphs))
    if graphs[0].nnz * st.n_clusters < PARALLEL_SIZE:
        return [_gradient(graphs[v], st, v) for v in views]
    with ThreadPoolExecutor(min(len(graphs), blas_threads())) as pool:
        return list(pool.map(lambda v: _gradient(graphs[v], st, v), views))
