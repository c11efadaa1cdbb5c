"""Rows of samples missing from a view (``MultiViewDataset.observed`` False): zeros, and
preprocessing on the observed samples only."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from core.data.dataset import DataError, View
from core.data.preprocessing import preprocess, preprocess_view

__all__ = ["preprocess_observed", "zero_missing_rows"]


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


def preprocess_observed(
    views: Sequence[View],
    methods: str | Sequence[str],
    auto_rule: str = "general",
    observed: np.ndarray | None = None,
) -> tuple[list[View], list[str]]:
    """:func:`core.data.preprocessing.preprocess` on incomplete views: each view is
    preprocessed on the samples that have it (its means, deviations, ranges, idf and the
    ``auto`` choice follow those samples only), the rows of the others are zero.

    Filling missing rows first would not do: a mean fill keeps the z-score means but shrinks
    every deviation by sqrt(n_v / n), i.e. scales a view up the more samples miss it, which
    unbalances the methods that add the views' reconstruction errors (ALPC on BDGP_fea: ACC
    0.28 against 0.38), and it makes sparse rows dense (tf-idf counts them as documents).
    """
    if observed is None:
        return preprocess(views, methods, auto_rule)
    if isinstance(methods, str):
        methods = [methods] * len(views)
    if len(methods) != len(views):
        raise DataError(f"{len(methods)} preprocessing choices for {len(views)} views")
    n = views[0].shape[0]
    out: list[View] = []
    chosen: list[str] = []
    for v, (x, method) in enumerate(zip(views, methods, strict=True)):
        rows = np.flatnonzero(observed[:, v])
        y, how = preprocess_view(x[rows], method, auto_rule)
        if sp.issparse(y):
            ones = np.ones(rows.size)
            place = sp.csr_matrix((ones, (rows, np.arange(rows.size))), shape=(n, rows.size))
            out.append(sp.csr_matrix(place @ y).astype(y.dtype, copy=False))
        else:
            full = np.zeros((n, y.shape[1]), dtype=y.dtype)
            full[rows] = y
            out.append(full)
        chosen.append(how)
    return out, chosen
