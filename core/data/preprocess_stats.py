"""Preprocessing of new samples with the statistics of the fitted data.

``preprocess`` learns per-view statistics from the data it transforms (z-score means and
standard deviations, min-max ranges, the largest value, tf-idf's document frequencies).
New samples assigned to a fitted run must be transformed with the *fitted* statistics, not
their own: :func:`fit_stats` records them from the raw fitted views and the names
``preprocess`` returned, :func:`apply_stats` applies them. Row-wise steps (``l2``) need
nothing. Inputs are never modified.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from core.data.dataset import DataError, View
from core.data.preprocessing import _column_std, _l2_rows, _scale_columns, shift_scale

__all__ = ["apply_stats", "base_kind", "fit_stats"]


def base_kind(chosen: str) -> str:
    """``zscore`` from ``auto: zscore (unit variance, not centred: sparse view)``."""
    return chosen.removeprefix("auto: ").split(" ")[0]


def fit_stats(raw: View, chosen: str) -> dict[str, np.ndarray]:
    """The statistics ``chosen`` (a name ``preprocess`` returned) learned from ``raw``."""
    kind = base_kind(chosen)
    if callable(getattr(raw, "blocks", None)):  # read in row blocks: from one pass
        from core.data.column_stats import source_fit_stats

        return source_fit_stats(raw, chosen)
    out: dict[str, np.ndarray] = {"kind": np.str_(kind)}
    if kind == "zscore":
        out["scale"] = _column_std(raw)
        out["shift"] = np.zeros(raw.shape[1]) if sp.issparse(raw) else np.asarray(raw.mean(axis=0))
    elif kind == "minmax":
        if sp.issparse(raw):
            lo = np.minimum(raw.min(axis=0).toarray().ravel(), 0.0)
            top = abs(raw) if np.any(lo < 0) else raw
            out["scale"] = top.max(axis=0).toarray().ravel()
            out["shift"] = np.zeros(raw.shape[1])
        else:
            out["shift"] = raw.min(axis=0)
            out["scale"] = raw.max(axis=0) - out["shift"]
    elif kind == "maxscale":
        data = raw.data if sp.issparse(raw) else raw
        top = float(data.max()) if data.size else 0.0
        if top <= 0:
            top = float(np.abs(data).max()) if data.size else 0.0
        out["top"] = np.float64(top or 1.0)
    elif kind == "tfidf":
        df = (
            np.bincount(raw.indices, minlength=raw.shape[1])
            if sp.issparse(raw)
            else np.count_nonzero(raw, axis=0)
        )
        out["idf"] = np.log(raw.shape[0] / np.maximum(df, 1))
    elif kind not in ("none", "l2"):
        raise DataError(f"no fitted statistics for preprocessing {chosen!r}")
    return out


def apply_stats(x: View, stats: dict[str, np.ndarray]) -> View:
    """Transform new samples ``x`` like the fitted ones."""
    kind = str(stats["kind"])
    if kind == "none":
        return x
    if kind == "l2":
        return _l2_rows(x)
    if kind in ("zscore", "minmax"):
        shift = np.asarray(stats["shift"])
        if sp.issparse(x) or not shift.any():
            return _scale_columns(x, np.asarray(stats["scale"]))
        return shift_scale(np.asarray(x), shift, np.asarray(stats["scale"]))
    if kind == "maxscale":
        return x / float(stats["top"])
    tf = x.copy() if sp.issparse(x) else np.log1p(x)
    if sp.issparse(tf):
        tf.data = np.log1p(tf.data)
        return _l2_rows(sp.csr_matrix(tf @ sp.diags(stats["idf"])))
    return _l2_rows(tf * stats["idf"])


def fit_all(raw: Sequence[View], chosen: Sequence[str]) -> list[dict[str, np.ndarray]]:
    return [fit_stats(x, c) for x, c in zip(raw, chosen, strict=True)]
