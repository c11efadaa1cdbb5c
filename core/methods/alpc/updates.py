"""ALPC update steps (spec ``alpc.md`` §7), written for the library's n x d_v views.

Paper/code notation (d_v x n data) -> code names here (samples in rows):

* ``X_v`` (d_v x n)      -> ``x`` (n x d_v, dense or CSR; never densified)
* ``Z``   (M x n)        -> ``zt = Zᵀ`` (n x M), M = m·c anchors
* ``R``   (c x n)        -> ``rt = Rᵀ`` (n x c)
* ``A_v`` (d_v x M), ``U_v`` (d_v x c), ``P`` (c x M): unchanged.

Every product touching the data is ``x @ A`` or ``xᵀ @ zt`` (O(nnz·M)), in float64 even for
float32 views (``exact=True``: float32 products moved ALPC's result on MSRC-v1, ACC 0.776 ->
0.810, where rounding the input alone did not); every other
matrix is M x M, c x c or n x M, so time and memory are linear in n.
"""

from __future__ import annotations

import logging
from collections.abc import Generator, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from core.data.dataset import View
from core.numerics.linalg import polar, project_simplex_rows
from core.numerics.threads import blas_full, blas_single, blas_threads
from core.numerics.view_products import data_dot, xt_dot

__all__ = [
    "ALPCState",
    "GramState",
    "a_step",
    "block_indicator",
    "gram_steps",
    "init_state",
    "objective_terms",
    "p_step",
    "r_step",
    "spd_solve",
    "u_step",
    "use_gram",
    "z_step",
]

log = logging.getLogger(__name__)


class ALPCState:
    """The iterate: ``a`` (list of d_v x M), ``u`` (list of d_v x c), ``p`` (c x M),
    ``rt`` (n x c), ``zt`` (n x M) and the per-view ``xz = X_v Zᵀ`` of the last A-step."""

    def __init__(self, a, u, p, rt, zt) -> None:
        self.a: list[np.ndarray] = a
        self.u: list[np.ndarray] = u
        self.p: np.ndarray = p
        self.rt: np.ndarray = rt
        self.zt: np.ndarray = zt
        self.xz: list[np.ndarray] = []

    # Access to Z and R through the products the steps need (GramState overrides them).
    def xz_all(self, views: Sequence[View]) -> list[np.ndarray]:
        return [xt_dot(x, self.zt, exact=True) for x in views]

    def zz(self) -> np.ndarray:
        return self.zt.T @ self.zt

    def rr(self) -> np.ndarray:
        return self.rt.T @ self.rt

    def rz(self) -> np.ndarray:
        return self.rt.T @ self.zt

    def solve_z(self, views: Sequence[View], h: np.ndarray, lam2: float) -> None:
        g = lam2 * (self.rt @ self.p)
        for x, a in zip(views, self.a, strict=True):
            g += data_dot(x, a, exact=True)
        self.zt = np.ascontiguousarray(_right_spd_solve(h, g))

    def update_r(self) -> None:
        self.rt = np.ascontiguousarray(_right_spd_solve(self.p @ self.p.T, self.zt @ self.p.T))

    def materialise(self, views: Sequence[View]) -> tuple[np.ndarray, np.ndarray]:
        """Zᵀ (n x M) and Rᵀ (n x c)."""
        return self.zt, self.rt


class GramState(ALPCState):
    """Unconstrained Z kept implicitly as Zᵀ = X K, X = [X_1 … X_V] (n x D), D = Σ d_v.

    From Z = R = 0 every code-mode update keeps Zᵀ and Rᵀ in the column space of X
    (Zᵀ = (Σ_u X_uA_u + λ2 RᵀP) H⁻¹, Rᵀ = Zᵀ Pᵀ(PPᵀ)⁻¹), so with the Gram matrix XᵀX
    (D x D, computed once in O(n D²)) an iteration costs O(D² M), independent of n.
    ``k`` is D x M, ``kr`` is D x c (Rᵀ = X kr).
    """

    def __init__(self, base: ALPCState, gram: np.ndarray, dims: Sequence[int]) -> None:
        super().__init__(base.a, base.u, base.p, base.rt, base.zt)
        self.gram = gram
        self.offsets = np.concatenate([[0], np.cumsum(dims)])
        mm, c = base.p.shape[1], base.p.shape[0]
        self.k, self.kr = np.zeros((gram.shape[0], mm)), np.zeros((gram.shape[0], c))
        self.gk, self.gkr = self.k.copy(), self.kr.copy()
        self.zt = self.rt = None  # type: ignore[assignment]

    def xz_all(self, views: Sequence[View]) -> list[np.ndarray]:
        o = self.offsets
        return [np.ascontiguousarray(self.gk[o[i] : o[i + 1]]) for i in range(len(o) - 1)]

    def zz(self) -> np.ndarray:
        return self.k.T @ self.gk

    def rr(self) -> np.ndarray:
        return self.kr.T @ self.gkr

    def rz(self) -> np.ndarray:
        return self.kr.T @ self.gk

    def solve_z(self, views: Sequence[View], h: np.ndarray, lam2: float) -> None:
        b = np.vstack(self.a) + lam2 * (self.kr @ self.p)
        self.k = np.ascontiguousarray(_right_spd_solve(h, b))
        self.gk = self.gram @ self.k

    def update_r(self) -> None:
        self.kr = np.ascontiguousarray(_right_spd_solve(self.p @ self.p.T, self.k @ self.p.T))
        self.gkr = self.gram @ self.kr

    def materialise(self, views: Sequence[View]) -> tuple[np.ndarray, np.ndarray]:
        # in row blocks written straight into Zᵀ and Rᵀ: summing whole per-view products
        # held three n x (M + c) float64 arrays at once (2.6 GB next to the data at 1M); the
        # blocks run on the BLAS threads' count of Python threads, each product on one BLAS
        # thread (the solver holds blas_single): a float32 view's float64 copy of a block was
        # made on one core (100k x 1000: 0.6 s, a third of the floor); same values per block
        o, n, mm = self.offsets, views[0].shape[0], self.k.shape[1]
        both = np.hstack([self.k, self.kr])
        zt, rt = np.empty((n, mm)), np.empty((n, both.shape[1] - mm))
        step = max(1, MATERIALISE_BYTES // (8 * int(o[-1])))
        dense = not any(sp.issparse(x) for x in views)
        parts = [both[o[i] : o[i + 1]] for i in range(len(views))]

        def block(start: int) -> None:
            rows = slice(start, min(start + step, n))
            out = sum(
                np.asarray(x[rows], dtype=np.float64) @ f if dense else data_dot(x[rows], f, True)
                for x, f in zip(views, parts, strict=True)
            )
            zt[rows], rt[rows] = out[:, :mm], out[:, mm:]

        # sparse views: data_dot sets the BLAS threads itself, so one block at a time
        with ThreadPoolExecutor(blas_threads() if dense else 1) as pool:
            list(pool.map(block, range(0, n, step)))
        return zt, rt


#: row block of :meth:`GramState.materialise`: at most this many bytes of float64 features
MATERIALISE_BYTES = 64 << 20


# The Gram path pays off when D is small against n; D x D must also stay small in memory.
GRAM_MAX_DIM = 4096
#: Gram columns per task when the rows are one block (fixed, whatever the thread count)
GRAM_PANEL = 256


def use_gram(n: int, dims: Sequence[int]) -> bool:
    """Whether the n-independent Gram iteration applies (unconstrained Z only)."""
    d = int(sum(dims))
    return d <= GRAM_MAX_DIM and 2 * d <= n


def gram_steps(views: Sequence[View], rows: int = 8192) -> Generator[float, None, np.ndarray]:
    """XᵀX for X = [X_1 … X_V] (D x D, dense) in row blocks, yielding the fraction done.

    float64 even for float32 data: every iteration solves with this Gram matrix, and a float32
    one moved ALPC's fixed point (objective 5e-4 off on a 600-sample case). Dense views: the
    blocks' products run in parallel on the BLAS threads' count of Python threads (one BLAS
    thread each), so the float64 copy of a float32 block is no longer made on one core, and
    are added in block order; a single block is split into panels of GRAM_PANEL columns.
    Every product has the same shape whatever the thread count, so the same bits.
    """
    n = views[0].shape[0]
    d = sum(x.shape[1] for x in views)
    gram = np.zeros((d, d))
    if any(sp.issparse(x) for x in views):
        for start in range(0, n, rows):
            block = sp.hstack([x[start : start + rows] for x in views]).tocsr()
            g = block.astype(np.float64, copy=False)
            with blas_full(2.0 * g.nnz * d):
                gram += (g.T @ g).toarray()
            yield min(start + rows, n) / n
        return (gram + gram.T) / 2

    def block(start: int) -> np.ndarray:
        b = np.concatenate([x[start : start + rows] for x in views], axis=1, dtype=np.float64)
        return b.T @ b

    def panels(b: np.ndarray, pool: ThreadPoolExecutor) -> np.ndarray:
        cols = range(0, d, GRAM_PANEL)
        return np.hstack(list(pool.map(lambda j: b.T @ b[:, j : j + GRAM_PANEL], cols)))

    starts = list(range(0, n, rows))
    width = blas_threads()
    for first in range(0, len(starts), width):  # limits are entered between yields only
        batch = starts[first : first + width]
        # every product on one BLAS thread, the threads' work split by fixed blocks: a
        # threaded product's rounding follows the thread count (Handwritten, one block:
        # ALPC's labels at ARI 0.966 between 1 and 2 threads, docs/benchmarks/determinism.md)
        with blas_single(), ThreadPoolExecutor(width) as pool:
            if len(starts) > 1:
                for g in pool.map(block, batch):
                    gram += g
            else:  # one block of rows: its Gram matrix by fixed panels of columns
                b = np.concatenate([x[:rows] for x in views], axis=1, dtype=np.float64)
                gram += panels(b, pool)
        yield min(batch[-1] + rows, n) / n
    return (gram + gram.T) / 2


def block_indicator(c: int, m: int) -> np.ndarray:
    """P₀ = I_c ⊗ 1_mᵀ (c x mc): anchor columns l·m … l·m+m−1 belong to cluster l."""
    return np.kron(np.eye(c), np.ones((1, m)))


def init_state(dims: Sequence[int], n: int, c: int, m: int) -> ALPCState:
    """The code's start (spec §6): A = 0, R = 0, P = block indicator, U = polar(0) = I_{d×c}."""
    mm = m * c
    a = [np.zeros((d, mm)) for d in dims]
    u = [polar(np.zeros((d, c))) for d in dims]
    return ALPCState(a, u, block_indicator(c, m), np.zeros((n, c)), np.zeros((n, mm)))


def spd_solve(h: np.ndarray, b: np.ndarray) -> np.ndarray:
    """h⁻¹ b for a symmetric positive (semi)definite h, with a jitter if Cholesky fails."""
    h = (h + h.T) / 2
    try:
        return sla.cho_solve(sla.cho_factor(h, check_finite=False), b, check_finite=False)
    except np.linalg.LinAlgError:
        jitter = 1e-10 * max(np.trace(h) / h.shape[0], 1e-300)
        log.info("Cholesky failed; adding jitter %.3g", jitter)
        return sla.solve(h + jitter * np.eye(h.shape[0]), b, assume_a="sym")


def _right_spd_solve(h: np.ndarray, g: np.ndarray) -> np.ndarray:
    """g h⁻¹ for a tall g (n x M) without copying g: solves h Y = gᵀ on the F-ordered view."""
    return spd_solve(h, g.T).T


def z_step(
    views: Sequence[View],
    st: ALPCState,
    lam2: float,
    constraint: str,
    inner_iter: int = 100,
) -> None:
    """Z = H⁻¹G with H = Σ A_vᵀA_v + λ2 I, G = Σ A_vᵀX_v + λ2 PᵀR (spec §7.1).

    ``constraint="simplex"`` puts every column of Z (row of zt) on the simplex: exact
    projection when H is a multiple of I, else FISTA warm-started at the previous Z.
    """
    mm = st.p.shape[1]
    h = lam2 * np.eye(mm) + sum(a.T @ a for a in st.a)
    if constraint == "none":
        st.solve_z(views, h, lam2)
        return
    g = lam2 * (st.rt @ st.p)
    for x, a in zip(views, st.a, strict=True):
        g += data_dot(x, a, exact=True)
    scale = np.trace(h) / mm
    if np.linalg.norm(h - scale * np.eye(mm)) <= 1e-12 * np.linalg.norm(h):
        st.zt = project_simplex_rows(np.ascontiguousarray(g / scale))
    else:
        st.zt = _simplex_fista(h, g, st.zt, inner_iter)


def _simplex_fista(h: np.ndarray, g: np.ndarray, z0: np.ndarray, n_iter: int) -> np.ndarray:
    """min tr(Z H Zᵀ) − 2 tr(Zᵀ G) with rows of Z on the simplex (batched FISTA)."""
    lip = 2 * max(np.linalg.eigvalsh(h)[-1], 1e-300)
    z = z0 if np.all(np.abs(z0.sum(axis=1) - 1) < 1e-9) else np.full_like(g, 1.0 / g.shape[1])
    y, t = z.copy(), 1.0
    for _ in range(n_iter):
        z_new = project_simplex_rows(np.ascontiguousarray(y - (2 / lip) * (y @ h - g)))
        t_new = (1 + np.sqrt(1 + 4 * t * t)) / 2
        y = z_new + ((t - 1) / t_new) * (z_new - z)
        done = np.linalg.norm(z_new - z) <= 1e-8 * max(np.linalg.norm(z), 1e-300)
        z, t = z_new, t_new
        if done:
            break
    return z


def a_step(views: Sequence[View], st: ALPCState, lam1: float, orthonormal: bool) -> list[bool]:
    """A_v = (X_vZᵀ + λ1U_vP)(ZZᵀ + λ1I)⁻¹ (Eq. 7), or polar(X_vZᵀ + λ1U_vP) when
    ``orthonormal`` (paper mode, needs d_v ≥ M; other views fall back). Sets ``st.xz``.

    Returns, per view, whether A_v has orthonormal columns.
    """
    mm = st.p.shape[1]
    k = st.zz() + lam1 * np.eye(mm)
    st.xz = st.xz_all(views)
    flags = []
    for i, (xz, u) in enumerate(zip(st.xz, st.u, strict=True)):
        b = xz + lam1 * (u @ st.p)
        if orthonormal and b.shape[0] >= mm:
            st.a[i] = polar(b)
            flags.append(True)
        else:
            if orthonormal:
                log.info("view %d has %d < %d features: ridge A-step", i + 1, b.shape[0], mm)
            st.a[i] = np.ascontiguousarray(spd_solve(k, b.T).T)
            flags.append(False)
    return flags


def u_step(st: ALPCState) -> None:
    """U_v = polar(A_v Pᵀ) (Eq. 15)."""
    st.u = [polar(a @ st.p.T) for a in st.a]


def p_step(st: ALPCState, lam1: float, lam2: float, exact: bool) -> None:
    """P-step (spec §7.4). ``exact=False`` is the authors' code,
    P = (λ1I + λ2RRᵀ)⁻¹(Σ U_vᵀA_v + λ2RZᵀ); ``exact=True`` the minimiser
    P = (λ1 Σ U_vᵀU_v + λ2RRᵀ)⁻¹(λ1 Σ U_vᵀA_v + λ2RZᵀ) (= λ1·V·I when UᵀU = I)."""
    c = st.p.shape[0]
    ua = sum(u.T @ a for u, a in zip(st.u, st.a, strict=True))
    rr, rz = st.rr(), st.rz()
    if exact:
        uu = sum(u.T @ u for u in st.u)
        st.p = spd_solve(lam1 * uu + lam2 * rr, lam1 * ua + lam2 * rz)
    else:
        st.p = spd_solve(lam1 * np.eye(c) + lam2 * rr, ua + lam2 * rz)


def r_step(st: ALPCState) -> None:
    """R = (PPᵀ)⁻¹PZ (Eq. 13), i.e. rt = zt Pᵀ (PPᵀ)⁻¹."""
    st.update_r()


def objective_terms(
    sq_norms: Sequence[float], st: ALPCState, lam1: float, lam2: float
) -> tuple[np.ndarray, float, float]:
    """Per-view ‖X_v − A_vZ‖², λ1Σ‖A_v − U_vP‖², λ2‖Z − PᵀR‖² (spec §5), by the trace
    identity (common §2): uses ``st.xz``, which must hold X_vZᵀ for the current Z."""
    zz = st.zz()
    recon = np.array(
        [
            max(s - 2 * np.vdot(a, xz) + np.vdot(a.T @ a, zz), 0.0)
            for s, a, xz in zip(sq_norms, st.a, st.xz, strict=True)
        ]
    )
    anchor = lam1 * sum(float(np.sum((a - u @ st.p) ** 2)) for a, u in zip(st.a, st.u, strict=True))
    coef = np.trace(zz) - 2 * np.vdot(st.rz(), st.p) + np.vdot(st.rr(), st.p @ st.p.T)
    return recon, float(anchor), float(lam2 * max(coef, 0.0))
