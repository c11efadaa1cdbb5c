"""Rows of samples missing from a view (``MultiViewDataset.observed`` False) set to zeros.
(Preprocessing on the observed samples only: ``core.data.preprocessing.transform_views``.)"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from core.data.dataset import View

__all__ = ["zero_missing_rows"]


def zero_missing_rows(views: Sequence[View], observed: np.ndarray) -> list[View]:
    """Copies of the views with the rows of missing samples set to zero (sparse stays sparse).

    Methods that handle incomplete views call it first, so whatever the placeholder rows
    held is never read. The inputs are never modified.
    """
    out: list[View] = []
    for v, x in enumerate(views):
        keep = np.asarray(observed[:, v], dtype=bool)
        if sp.issparse(x):
            out.append(sp.csr_matrix(sp.diags(keep.astype(np.float64)) @ x))
        else:
            out.append(np.where(keep[:, None], x, 0.0))
    return out
