"""Files that store missing views as all-zero rows plus a missing-view indicator.

Incomplete multi-view benchmark files (e.g. ``BDGP_fea.mat`` from the IMVC-CBG code) keep
every view n x d_v with the rows of samples missing from that view set to zero, next to an
n x V 0/1 indicator (``MissingStatus``, ``W``, ``ind_folds``...). Such a file is loaded as
incomplete data: :attr:`MultiViewDataset.observed` marks the missing rows. The indicator
is only trusted when every sample it marks missing has a zero row there (in either
polarity); when it does not (as
in ``BDGP_fea.mat``, whose ``MissingStatus`` is unrelated to its 2150 samples with zero
rows), the all-zero rows are the missing views and the mismatch is reported. Without an
indicator, all-zero rows are data (an empty document, a blank image) and nothing changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from core.data.dataset import MultiViewDataset

__all__ = ["find_indicator", "mark_missing_views", "zero_rows"]


def zero_rows(ds: MultiViewDataset) -> np.ndarray:
    """(n, V) bool: True where a sample's row of a view is all zero."""
    cols = []
    for x in ds.views:
        if callable(getattr(x, "blocks", None)):  # read in row blocks: one pass
            col = np.zeros(x.shape[0], dtype=bool)
            for start, stop, block in x.blocks():
                col[start:stop] = ~block.any(axis=1)
            cols.append(col)
        elif sp.issparse(x):
            cols.append(np.asarray(abs(x).sum(axis=1)).ravel() == 0)
        else:
            cols.append(~x.any(axis=1))
    return np.stack(cols, axis=1)


def find_indicator(
    variables: Mapping[str, object], n: int, n_views: int
) -> tuple[str, np.ndarray] | None:
    """The first n x V (or V x n) 0/1 matrix among the variables, as (name, n x V bool)."""
    for key, value in variables.items():
        if key.startswith("__") or sp.issparse(value):
            continue
        try:
            arr = np.asarray(value)
        except (TypeError, ValueError):
            continue
        if arr.dtype.kind not in "biuf" or arr.ndim != 2 or n_views < 2:
            continue
        if arr.shape == (n_views, n) and n != n_views:
            arr = arr.T
        if arr.shape != (n, n_views) or not np.isin(arr, (0, 1)).all():
            continue
        return key, arr.astype(bool)
    return None


def mark_missing_views(ds: MultiViewDataset, variables: Mapping[str, object]) -> MultiViewDataset:
    """``ds`` with ``observed`` set when the file has a missing-view indicator (module doc)."""
    found = find_indicator(variables, ds.n_samples, ds.n_views)
    if found is None or ds.observed is not None:
        return ds
    key, flag = found
    zero = zero_rows(ds)
    notes = list(ds.warnings)
    for observed in (flag, ~flag):
        if observed.any(axis=1).all() and (observed | zero).all():  # missing rows are zero
            source = f"'{key}'"
            break
    else:
        observed = ~zero
        if observed.all():
            return ds
        if not observed.any(axis=1).all():
            lost = int(np.count_nonzero(~observed.any(axis=1)))
            notes.append(
                f"'{key}' looks like a missing-view indicator but matches neither the data nor "
                f"its all-zero rows ({lost} samples have only zero rows): loaded as complete"
            )
            return replace(ds, warnings=notes)
        differ = int(np.count_nonzero(~flag & ~zero))
        source = "the all-zero rows"
        notes.append(
            f"'{key}' does not match the all-zero rows ({differ} of its marks fall on rows "
            "with data): missing views taken from the all-zero rows instead"
        )
    incomplete = int(np.count_nonzero(~observed.all(axis=1)))
    per_view = ", ".join(
        f"{name}: {int(c)}" for name, c in zip(ds.view_names, observed.sum(axis=0), strict=True)
    )
    notes.append(
        f"incomplete views: {incomplete} of {ds.n_samples} samples miss at least one view "
        f"(from {source}; samples per view {per_view}); methods that handle incomplete views "
        "ignore the missing rows, the others refuse"
    )
    meta = {**ds.meta, "observed_from": source}
    return replace(ds, observed=observed, warnings=notes, meta=meta)
