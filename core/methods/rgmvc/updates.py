"""RG-MVC optimisation steps (spec rgmvc.md §4-§8).

* :class:`DenseProblem` / :class:`SparseProblem`: ``F(γ) = max_G tr(GᵀA_γ) − ‖G‖²_F`` and its
  gradient ``∂F/∂γ_p = 2γ_p tr(K_pᵀ G)`` for full kernels, or for candidate sets with an
  exactness certificate (rows that cannot be certified get larger candidate sets and are
  solved again, so both give the same G).
* :func:`reduced_gradient_step`: SimpleMKL's reduced gradient with boundary chasing and a
  golden-section line search; F never increases.
"""

from __future__ import annotations

from collections.abc import Callable, Generator

import numpy as np
import scipy.sparse as sp

from core.data.dataset import View
from core.methods.rgmvc.jit_graph import dense_graph_solve, sparse_graph_solve
from core.methods.rgmvc.kernel_matrices import KernelChain, select_candidates
from core.numerics.graphs import row_sq_norms
from core.numerics.steps import drain

__all__ = [
    "DenseProblem",
    "SparseProblem",
    "reduced_gradient_step",
]


class _CachedSolves:
    """F(γ) and the traces are memoised by the exact bytes of γ²: the golden-section search
    revisits points (its left point becomes the next right point) and the accepted γ was
    evaluated by the line search, so repeats cost nothing and change nothing."""

    def _init_cache(self) -> None:
        self.n_solves = 0
        self.n_cache_hits = 0
        self._cache: dict[bytes, tuple[float, np.ndarray]] = {}
        self._last: bytes | None = None

    def solve(self, gamma: np.ndarray) -> tuple[float, np.ndarray]:
        """Return F(γ) and the traces tr(K_pᵀ G(γ))."""
        g2 = np.ascontiguousarray(np.asarray(gamma, float) ** 2)
        key = g2.tobytes()
        if key not in self._cache:
            f, tr = self._solve(g2)
            self.n_solves += 1
            self._cache[key] = (f, tr)
            self._last = key
        else:
            self.n_cache_hits += 1
        f, tr = self._cache[key]
        return f, tr.copy()

    def graph(self, gamma: np.ndarray) -> sp.csr_matrix:
        """W = (G + Gᵀ)/2 at γ, as CSR (solves again unless γ was the last solve)."""
        g2 = np.ascontiguousarray(np.asarray(gamma, float) ** 2)
        if self._last != g2.tobytes():
            self._solve(g2)
            self._last = g2.tobytes()
        return self._graph()


class DenseProblem(_CachedSolves):
    """G solves on full kernels ks (V x n x n); G is kept in one reused n x n buffer."""

    def __init__(self, ks: np.ndarray) -> None:
        self.ks = ks
        self.g = np.zeros(ks.shape[1:])
        self._init_cache()

    def _solve(self, g2: np.ndarray) -> tuple[float, np.ndarray]:
        row_f, row_tr = dense_graph_solve(self.ks, g2, self.g)
        return float(row_f.sum()), row_tr.sum(axis=0)

    def _graph(self) -> sp.csr_matrix:
        g = sp.csr_matrix(self.g)
        return sp.csr_matrix((g + g.T) / 2)


class SparseProblem(_CachedSolves):
    """G solves restricted to per-row candidate sets.

    Row i's candidates are ``indices[starts[i]:ends[i]]`` (ascending j) in a pool with
    ``vals[t, p] = K_p[i, j_t]``; ``bview``, ``bref``, ``bdir`` (at reference weights
    ``wref``) certify the left-out entries (:func:`core.methods.rgmvc.jit_graph.left_out_bound`).
    Candidates are each view's top-K plus the top-K at the reference weights, so solves at
    the vertices of the simplex and near the reference certify. A row whose certificate
    fails is re-selected from its full kernel rows (O(n·Σd)) with the current γ² as
    reference; a row failing at its own reference weights doubles its K. Re-selected rows
    are appended to the pool (compacted when it is full), so a round costs O(rows), not
    O(nnz). ``fail_log`` records, per solve, the rows that failed in each round.
    """

    def __init__(self, xs: list[View], chains: list[KernelChain], n_cand: int) -> None:
        self.xs, self.chains = xs, chains
        self.n = xs[0].shape[0]
        self.n_cand = min(n_cand, self.n - 1)
        self.n_reselected = 0
        self.fail_log: list[list[int]] = []
        self.sqs = [row_sq_norms(x) for x in xs]
        self._init_cache()

    def select_steps(self, gamma: np.ndarray) -> Generator[float, None, None]:
        """The initial candidate pass at reference weights γ² (yields the fraction done)."""
        w = _reference(np.asarray(gamma, float) ** 2)
        counts, idx, vals, bview, bref, bdir = yield from select_candidates(
            self.xs, self.chains, w, self.n_cand, sqs=self.sqs
        )
        self.ends = np.cumsum(counts).astype(np.int64)
        self.starts = self.ends - counts
        self.used = int(idx.size)
        self.indices, self.vals = idx, vals
        self.bview, self.bref, self.bdir = bview, bref, bdir
        self.wref = np.tile(w, (self.n, 1))
        self.k = np.full(self.n, self.n_cand, dtype=np.int64)
        self.g = np.zeros(self.indices.size)

    @property
    def nnz(self) -> int:
        return int((self.ends - self.starts).sum())

    def _solve(self, g2: np.ndarray) -> tuple[float, np.ndarray]:
        """F(γ) and tr(K_pᵀ G(γ)); every row certified exact (re-selected if needed)."""
        fails: list[int] = []
        while True:
            row_f, row_tr, fail = sparse_graph_solve(
                self.starts,
                self.ends,
                self.vals,
                self.bview,
                self.bref,
                self.bdir,
                self.wref,
                g2,
                self.g,
            )
            fails.append(int(fail.sum()))
            if not fail.any():
                break
            self._reselect(np.flatnonzero(fail), g2)
        self.fail_log.append(fails)
        return float(row_f.sum()), row_tr.sum(axis=0)

    def _reselect(self, rows: np.ndarray, g2: np.ndarray) -> None:
        w = _reference(g2)
        self.n_reselected += int(rows.size)
        # failing at its own reference weights means the support outgrew the lists
        grow = rows[np.all(self.wref[rows] == w, axis=1)]
        self.k[grow] = np.minimum(self.n - 1, 2 * self.k[grow])
        for size in np.unique(self.k[rows]):
            sel = rows[self.k[rows] == size]
            counts, idx, v, bview, bref, bdir = drain(
                select_candidates(self.xs, self.chains, w, int(size), sel, sqs=self.sqs)
            )
            self.starts[sel] = 0  # not live while the pool may be compacted
            self.ends[sel] = 0
            at = self._reserve(idx.size)
            self.indices[at : at + idx.size] = idx
            self.vals[at : at + idx.size] = v
            self.ends[sel] = at + np.cumsum(counts)
            self.starts[sel] = self.ends[sel] - counts
            self.bview[sel], self.bref[sel], self.bdir[sel] = bview, bref, bdir
            self.wref[sel] = w

    def _reserve(self, size: int) -> int:
        """Room for ``size`` more pool entries (compacting the live rows if needed)."""
        if self.used + size > self.indices.size:
            counts = self.ends - self.starts
            live = _ranges(self.starts, counts)
            cap = max(2 * (live.size + size), self.indices.size)
            indices = np.empty(cap, dtype=np.int64)
            vals = np.empty((cap, self.vals.shape[1]))
            indices[: live.size] = self.indices[live]
            vals[: live.size] = self.vals[live]
            self.ends = np.cumsum(counts).astype(np.int64)
            self.starts = self.ends - counts
            self.indices, self.vals, self.g = indices, vals, np.zeros(cap)
            self.used = int(live.size)
        at = self.used
        self.used += size
        return at

    def _graph(self) -> sp.csr_matrix:
        counts = self.ends - self.starts
        live = _ranges(self.starts, counts)
        indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        g = sp.csr_matrix((self.g[live], self.indices[live], indptr), shape=(self.n, self.n))
        g.eliminate_zeros()
        return sp.csr_matrix((g + g.T) / 2)


def _ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(s, s + c)`` for every (s, c), in row order."""
    offsets = np.cumsum(counts) - counts
    return np.repeat(starts - offsets, counts) + np.arange(int(counts.sum()))


def _reference(g2: np.ndarray) -> np.ndarray:
    """Reference weights for candidate selection: γ², floored so every ratio is finite."""
    return np.maximum(g2, 1e-3 * float(g2.max()))


def reduced_gradient_step(
    gamma: np.ndarray,
    grad: np.ndarray,
    f_old: float,
    cost: Callable[[np.ndarray], float],
    *,
    max_step: float = 0.1,
    golden_precision: float = 0.1,
    zero: float = 1e-16,
) -> tuple[np.ndarray, float]:
    """One SimpleMKL reduced-gradient step on the simplex (spec §6); returns (γ, F(γ)).

    Every accepted γ has a cost below or equal to ``f_old``: F never increases.
    """
    gamma = np.array(gamma, dtype=np.float64)
    total = float(np.abs(grad).sum())
    if not total > 0:
        return gamma, f_old
    g = grad / total
    u = int(np.argmax(gamma))
    g = g - g[u]
    d = np.where((gamma > 0) | (g < 0), -g, 0.0)
    d[u] = -(d.sum() - d[u])
    neg = d < 0
    if not neg.any():
        return gamma, f_old
    step_max = float(np.min(-gamma[neg] / d[neg]))
    if step_max == 0:
        return gamma, f_old
    delt_max = step_max
    step_max = min(step_max, max_step)
    cost_min, cost_max = f_old, -np.inf
    while cost_max < cost_min:
        new = gamma + step_max * d
        cost_max = cost(new)
        if cost_max < cost_min:
            cost_min = cost_max
            gamma = new
            gamma[gamma <= zero] = 0.0
            d[(gamma <= zero) & (d <= 0)] = 0.0
            d[u] = -(d.sum() - d[u])
            neg = d < 0
            if neg.any():
                step_max = delt_max = float(np.min(-gamma[neg] / d[neg]))
                cost_max = -np.inf
            else:
                step_max = delt_max = 0.0
    phi = (1 + np.sqrt(5)) / 2
    step_min = 0.0
    steps = [step_min, step_max]
    costs = [cost_min, cost_max]
    while step_max - step_min > golden_precision * abs(delt_max) and step_max > np.finfo(float).eps:
        r = step_min + (step_max - step_min) / phi
        left = step_min + (r - step_min) / phi
        cost_r, cost_l = cost(gamma + r * d), cost(gamma + left * d)
        steps = [step_min, left, r, step_max]
        costs = [cost_min, cost_l, cost_r, cost_max]
        best = int(np.argmin(costs))
        if best == 0:
            step_max, cost_max = left, cost_l
        elif best == 1:
            step_max, cost_max = r, cost_r
        elif best == 2:
            step_min, cost_min = left, cost_l
        else:
            step_min, cost_min = r, cost_r
    best = int(np.argmin(costs))
    if costs[best] <= min(cost_min, f_old) and steps[best] > 0:
        out = gamma + steps[best] * d
        out[out <= zero] = 0.0
        return out, float(costs[best])
    return gamma, float(cost_min)
