"""ALPC on incomplete views: each view reconstructs only the samples it has.

With ``G_v`` the 0/1 indicator of the samples observed in view v (the missing-sample
indicators of IMVC-CBG, Wang et al. CVPR 2022), the objective becomes

``J = Σ_v ‖(X_v − A_vZ) G_v‖² + λ1 Σ_v ‖A_v − U_vP‖² + λ2 ‖Z − PᵀR‖²``.

Missing rows of ``X_v`` are set to zero (never read), so ``X_vZᵀ`` only sums observed
samples, and the exact block minimisers become:

* Z-step, per sample over the views it has: ``z_i = (λ2 I + Σ_{v∋i} A_vᵀA_v)⁻¹ (λ2 Pᵀr_i +
  Σ_{v∋i} A_vᵀx_iv)``, one M x M solve per missing-view pattern (at most 2^V − 1);
* A-step per view with the observed samples' ``Z G_v Zᵀ``: ``A_v = (X_vZᵀ + λ1U_vP)(Z G_v Zᵀ
  + λ1 I)⁻¹``;
* U-, P- and R-steps unchanged (they do not touch the data).

Only the unconstrained Z of the code formulations (``code``, ``code_exactP``) is supported;
the samples' Gram shortcut of the complete path does not apply (Z is no longer in the
column space of the stacked views), so an iteration costs O(nnz·M + n·M²).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core.data.dataset import View
from core.methods.alpc.updates import ALPCState, spd_solve
from core.numerics.view_products import data_dot, xt_dot

__all__ = ["masked_a_step", "masked_recon", "masked_z_step", "patterns"]


def patterns(observed: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """(views, rows) for every distinct missing-view pattern."""
    keys, inverse = np.unique(observed, axis=0, return_inverse=True)
    return [(np.flatnonzero(k), np.flatnonzero(inverse.ravel() == i)) for i, k in enumerate(keys)]


def masked_z_step(
    views: Sequence[View], st: ALPCState, lam2: float, groups: list[tuple[np.ndarray, np.ndarray]]
) -> None:
    """The Z-step over each sample's observed views (missing rows of the views are zero)."""
    mm = st.p.shape[1]
    g = lam2 * (st.rt @ st.p)
    for x, a in zip(views, st.a, strict=True):
        g += data_dot(x, a)
    gram = [a.T @ a for a in st.a]
    zt = np.empty_like(g)
    for seen, rows in groups:
        h = lam2 * np.eye(mm) + sum(gram[v] for v in seen)
        zt[rows] = spd_solve(h, g[rows].T).T
    st.zt = np.ascontiguousarray(zt)


def masked_a_step(views: Sequence[View], st: ALPCState, lam1: float, observed: np.ndarray) -> None:
    """A_v = (X_vZᵀ + λ1U_vP)(Z G_v Zᵀ + λ1 I)⁻¹; sets ``st.xz``."""
    mm = st.p.shape[1]
    st.xz = [xt_dot(x, st.zt) for x in views]
    for v, (xz, u) in enumerate(zip(st.xz, st.u, strict=True)):
        z_obs = st.zt[observed[:, v]]
        k = z_obs.T @ z_obs + lam1 * np.eye(mm)
        st.a[v] = np.ascontiguousarray(spd_solve(k, (xz + lam1 * (u @ st.p)).T).T)


def masked_recon(sq_norms: Sequence[float], st: ALPCState, observed: np.ndarray) -> np.ndarray:
    """‖(X_v − A_vZ) G_v‖² per view by the trace identity (observed samples only)."""
    out = []
    for v, (s, a, xz) in enumerate(zip(sq_norms, st.a, st.xz, strict=True)):
        z_obs = st.zt[observed[:, v]]
        out.append(max(s - 2 * np.vdot(a, xz) + np.vdot(a.T @ a, z_obs.T @ z_obs), 0.0))
    return np.array(out)
