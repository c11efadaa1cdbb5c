"""MVSC-HFD on incomplete views: each view is rebuilt only on the samples it has.

The objective becomes ``Σ_v α_v² ‖(X_v − P_v A Z) G_v‖²_F`` with ``G_v`` the diagonal 0/1
indicator of the samples observed in view v, the missing-sample indicators of IMVC-CBG
(Wang et al., "Highly-efficient incomplete large-scale multi-view clustering with
consensus bipartite graph", CVPR 2022) and SIMVC-SA (Wen et al., ACM MM 2023) applied to
MVSC-HFD's consensus anchor graph ``Z``. Missing rows of ``X_v`` are set to zero (their
placeholder values are never read), so that:

* the W- and A-steps are unchanged: they use ``X_v Zᵀ``, where zero rows contribute nothing;
* the Z-step is per sample, over the views it has: ``z_i = proj_simplex(Σ_{v∋i} α_v²
  (P_vA)ᵀ x_iv / Σ_{v∋i} α_v²)`` (exact, since P_vA has orthonormal columns);
* the residual of view v counts its observed samples only: ``‖X_v‖² − 2⟨P_vA, X_vZᵀ⟩ +
  ‖G_v Zᵀ‖²``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core.data.dataset import View
from core.methods.mvsc_hfd.updates import HFDState
from core.numerics.linalg import project_simplex_rows
from core.numerics.view_products import data_dot

__all__ = ["masked_residual_norms", "masked_z_step"]


def masked_z_step(views: Sequence[View], st: HFDState, observed: np.ndarray) -> np.ndarray:
    """The Z-step over each sample's observed views (module docstring)."""
    w2 = st.alpha**2
    t = np.zeros_like(st.zt)
    for wv, x, pa in zip(w2, views, st.pa, strict=True):
        t += wv * data_dot(x, pa[: x.shape[1]])  # missing rows of x are zero
    t /= np.maximum(observed @ w2, 1e-300)[:, None]
    return project_simplex_rows(t)


def masked_residual_norms(
    sq_norms: Sequence[float], st: HFDState, observed: np.ndarray
) -> np.ndarray:
    """f_v = ‖(X_v − P_vAZ) G_v‖_F by the trace identity, observed samples only."""
    zz = observed.T.astype(np.float64) @ np.einsum("ij,ij->i", st.zt, st.zt)
    f2 = [
        s - 2 * np.vdot(pa, xz) + z for s, pa, xz, z in zip(sq_norms, st.pa, st.xz, zz, strict=True)
    ]
    return np.sqrt(np.maximum(np.array(f2), 0.0))
