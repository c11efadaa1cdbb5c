"""Amputation: remove views from a growing share of samples (incomplete multi-view data).

The protocol of the incomplete multi-view literature (e.g. IMVC-CBG, Wang et al. CVPR 2022;
FIMVC-VIA, Liu et al. TNNLS 2023): a share ``rate`` of the samples is chosen and each of
them loses a random non-empty, proper subset of its views, so every sample keeps at least
one view. Removed rows become zero placeholders and ``observed`` marks them False; the
methods that handle incomplete views never read them, the others get the data
zero-filled (:func:`fill_missing` ``"zero"``) or mean-imputed (``"mean"``).

For one seed the chosen samples are nested across rates (the samples missing at 10 % are
also missing at 30 %) and the same for every method (common random numbers).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from core.data.dataset import DataError, View
from core.data.missing import zero_missing_rows

__all__ = ["FILLS", "amputate", "amputation_mask", "fill_missing"]

FILLS = ("zero", "mean")


def amputation_mask(n: int, n_views: int, rate: float, seed: int | None = 0) -> np.ndarray:
    """An (n, V) bool mask: ``round(rate * n)`` samples miss 1..V-1 random views each."""
    if not 0.0 <= rate < 1.0 or not np.isfinite(rate):
        raise DataError(f"the missing rate must be in [0, 1), got {rate!r}")
    if n_views < 2 and rate > 0:
        raise DataError("removing views needs at least two views (each sample keeps one)")
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)  # nested across rates: the first round(rate n) samples
    n_lost = rng.integers(1, max(n_views, 2), size=n)  # how many views each would lose
    keys = rng.random((n, n_views))  # which views: the n_lost with the smallest keys
    mask = np.ones((n, n_views), dtype=bool)
    chosen = order[: round(rate * n)]
    ranks = np.argsort(np.argsort(keys[chosen], axis=1), axis=1)
    mask[chosen] = ranks >= n_lost[chosen, None]
    return mask


def amputate(
    views: Sequence[View], rate: float, seed: int | None = 0
) -> tuple[list[View], np.ndarray]:
    """Copies of ``views`` with the removed rows zeroed, and the observed mask.

    The inputs are never modified.
    """
    mask = amputation_mask(views[0].shape[0], len(views), rate, seed)
    return zero_missing_rows(views, mask), mask


def fill_missing(views: Sequence[View], observed: np.ndarray, how: str) -> list[View]:
    """Complete views for methods without incomplete support: ``"zero"`` placeholders, or
    ``"mean"``: each missing row replaced by the view's mean over its observed samples."""
    if how not in FILLS:
        raise DataError(f"fill must be one of {', '.join(FILLS)}, got {how!r}")
    out = []
    for v, x in enumerate(views):
        keep = observed[:, v]
        x = zero_missing_rows([x], keep[:, None])[0]
        if how == "mean" and not keep.all():
            mean = np.asarray(x[keep].mean(axis=0)).ravel()
            x = x.toarray() if sp.issparse(x) else x
            x = np.where(keep[:, None], x, mean[None, :])
            if sp.issparse(views[v]):
                x = sp.csr_matrix(x)
        out.append(x)
    return out
