"""DTLL's augmented Lagrangian (Algorithm 3.1): the iterate and one step G -> J -> M -> α -> μ
(docs/methods/dtll.md)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from core.methods.dtll.updates import alpha_step, label_step, nuclear_gradient, transmission
from core.numerics.tensor import schatten_p_norm, schatten_prox

__all__ = ["MU0", "AlmParams", "AlmState", "alm_step", "hold_ties"]

MU0, RHO, MU_MAX = 1e-5, 1.1, 1e9  # ALM schedule of the paper's Algorithm 3.1


@dataclass
class AlmState:
    """The ALM iterate: per-view labels, 𝒢, 𝒥, ℳ (N × C × V), α and μ.

    ``grads`` (per view: H and ‖S_vᵀG_v‖_* of the current labels) and ``tensor_term``
    (‖𝒢‖_{S_p}^p, or None) are functions of the labels alone, kept from the α-step and the
    objective for the next step: recomputing them gave the same numbers at a third of an
    iteration's cost (n = 20k: the tensor norm 29 %, the SVDs of SᵀG 7 %).
    """

    rows: list[np.ndarray]
    view_labels: np.ndarray
    big_g: np.ndarray
    big_j: np.ndarray
    big_m: np.ndarray
    alpha: np.ndarray
    mu: float
    #: per view, the rows of samples missing it (incomplete views; dtll/incomplete.py)
    missing: list[np.ndarray] | None = None
    grads: list[tuple[np.ndarray, float]] = field(default_factory=list)
    tensor_term: float | None = None


@dataclass(frozen=True)
class AlmParams:
    """The parameters one ALM step needs."""

    lam: float
    schatten_p: float
    weight_exponent: float
    orientation: str
    repair_empty: bool


def hold_ties(q: np.ndarray, rows: np.ndarray, labels: np.ndarray) -> None:
    """Rows without data in a view: only the tensor term speaks; where it does not yet
    (𝒥 = ℳ = 0 at the start) the current label stays instead of the first cluster."""
    if rows.size:
        q[rows, labels[rows]] += 1e-12 * (1.0 + float(np.abs(q[rows]).max()))


def alm_step(
    graphs: list[sp.csr_matrix], st: AlmState, c: int, params: AlmParams
) -> tuple[float, dict[str, float]]:
    """One iteration of Algorithm 3.1 in the order G → J → M → α → μ (spec §6)."""
    n, nv = graphs[0].shape[0], len(graphs)
    lam, p, r = params.lam, params.schatten_p, params.weight_exponent
    # G-step (Eq. 13-19): linearise ‖S_vᵀG_v‖_* at the current G_v, exact row argmax
    changed = repairs = 0
    weight = np.maximum(st.alpha, 1e-12) ** r
    for v in range(nv):
        h = st.grads[v][0] if st.grads else _gradient(graphs[v], st, v, c)[0]
        q = weight[v] * (graphs[v] @ h) + st.mu * st.big_j[:, :, v] - st.big_m[:, :, v]
        if st.missing is not None:
            hold_ties(q, st.missing[v], st.view_labels[v])
        new, fixed = label_step(q, params.repair_empty)
        changed += int(np.count_nonzero(new != st.view_labels[v]))
        repairs += fixed
        st.view_labels[v] = new
    st.big_g[:] = 0.0
    for v in range(nv):
        st.big_g[np.arange(n), st.view_labels[v], v] = 1.0
    # J-step (Eq. 20-23) and M-step (Eq. 28)
    st.big_j = schatten_prox(st.big_g + st.big_m / st.mu, lam / st.mu, p, params.orientation)
    diff = st.big_g - st.big_j
    residual = float(np.abs(diff).max())
    st.big_m += st.mu * diff
    # α-step (Eq. 26) with the new G, then μ
    st.grads = [_gradient(graphs[v], st, v, c) for v in range(nv)]
    nuc = np.array([g[1] for g in st.grads])
    st.alpha = alpha_step(nuc, r)
    st.mu = min(RHO * st.mu, MU_MAX)
    if changed or st.tensor_term is None:  # 𝒢 is the same one-hot tensor as before
        st.tensor_term = schatten_p_norm(st.big_g, p, params.orientation)
    obj = float(np.sum(st.alpha**r * nuc)) - lam * st.tensor_term
    step = {
        "residual": residual,
        "changed": float(changed),
        "repairs": float(repairs),
        "mu": st.mu,
    }
    return obj, step


def _gradient(graph: sp.csr_matrix, st: AlmState, v: int, c: int) -> tuple[np.ndarray, float]:
    """(H, ‖S_vᵀG_v‖_*) of view v's current labels."""
    return nuclear_gradient(transmission(graph, st.rows[v], st.view_labels[v], c))
