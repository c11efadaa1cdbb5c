"""Products with a data view (n x d, dense or CSR; never densified), with the BLAS thread
policy of ``threads``: all threads only when a product is large enough to pay for them."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from core.data.dataset import View
from core.numerics.threads import blas_full

__all__ = ["data_dot", "sq_norm", "xt_dot"]


def _flops(x: View, k: int) -> float:
    return 2.0 * k * (x.nnz if sp.issparse(x) else x.size)


def data_dot(x: View, a: np.ndarray) -> np.ndarray:
    """x @ a (n x k)."""
    with blas_full(_flops(x, a.shape[1])):
        return np.asarray(x @ a)


def xt_dot(x: View, zt: np.ndarray) -> np.ndarray:
    """xᵀ @ zt (d x k, dense): X Zᵀ in the papers' d x n orientation."""
    with blas_full(_flops(x, zt.shape[1])):
        out = x.T @ zt
    return np.asarray(out.toarray() if sp.issparse(out) else out)


def sq_norm(x: View) -> float:
    """‖x‖²_F."""
    data = x.data if sp.issparse(x) else x
    return float(np.vdot(data, data))
