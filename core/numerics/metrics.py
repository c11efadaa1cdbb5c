"""Clustering quality metrics with the exact definitions of the common spec §8.

All take labels of any type; the number of predicted clusters may differ from the number of
classes. Everything is computed from the contingency matrix, never by looping over pairs.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

__all__ = [
    "accuracy",
    "adjusted_rand",
    "all_metrics",
    "confusion_matrix",
    "f_score",
    "nmi",
    "purity",
]


def confusion_matrix(y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
    """Contingency matrix N (classes x clusters), N[a, b] = #{i: y_i = a, yhat_i = b}."""
    y_true = np.asarray(y_true).ravel()
    y_pred = np.asarray(y_pred).ravel()
    if y_true.shape != y_pred.shape:
        raise ValueError(f"{y_true.size} true labels but {y_pred.size} predicted labels")
    a, n_a = _ranks(y_true)
    b, n_b = _ranks(y_pred)
    return np.bincount(a * n_b + b, minlength=n_a * n_b).reshape(n_a, n_b)


def _ranks(y: np.ndarray) -> tuple[np.ndarray, int]:
    """Each label's rank among the distinct labels (np.unique's inverse) and their count;
    small non-negative integers (cluster numbers) in O(n) by counting instead of sorting
    (1M labels: ~10 ms instead of ~70 ms)."""
    if y.dtype.kind in "iub" and y.size:
        lo, hi = int(y.min()), int(y.max())
        if lo >= 0 and hi <= 2 * y.size + 1024:
            yi = y.astype(np.intp, copy=False)
            present = np.bincount(yi, minlength=hi + 1) > 0
            rank = np.cumsum(present) - 1
            return rank[yi], int(present.sum())
    _, inv = np.unique(y, return_inverse=True)
    return inv.ravel(), int(inv.max(initial=-1)) + 1


def _pairs(x: np.ndarray) -> float:
    x = np.asarray(x, dtype=np.float64)
    return float((x * (x - 1) / 2).sum())


def accuracy(y_true: np.ndarray, y_pred: np.ndarray, cm: np.ndarray | None = None) -> float:
    """Best one-to-one matching of clusters to classes (Hungarian), as a fraction."""
    cm = confusion_matrix(y_true, y_pred) if cm is None else cm
    r, c = linear_sum_assignment(-cm)
    return float(cm[r, c].sum() / cm.sum())


def _entropies(cm: np.ndarray) -> tuple[float, float, float]:
    n = cm.sum()
    pa, pb = cm.sum(1) / n, cm.sum(0) / n
    nz = cm > 0
    pab = cm[nz] / n
    outer = np.outer(pa, pb)[nz]
    mi = float((pab * np.log(pab / outer)).sum())
    ha = float(-(pa[pa > 0] * np.log(pa[pa > 0])).sum())
    hb = float(-(pb[pb > 0] * np.log(pb[pb > 0])).sum())
    return max(mi, 0.0), ha, hb


def nmi(
    y_true: np.ndarray,
    y_pred: np.ndarray,
    average: str = "arithmetic",
    cm: np.ndarray | None = None,
) -> float:
    """Normalised mutual information; ``average`` is "arithmetic" (sklearn default, ALPC,
    MVSC-HFD) or "max" (Deng Cai's MutualInfo.m, RG-MVC, FMDC, DTLL)."""
    mi, ha, hb = _entropies(confusion_matrix(y_true, y_pred) if cm is None else cm)
    if ha == 0 and hb == 0:
        return 1.0
    if ha == 0 or hb == 0:
        return 0.0
    if average == "arithmetic":
        return float(min(1.0, 2 * mi / (ha + hb)))
    if average == "max":
        return float(min(1.0, mi / max(ha, hb)))
    raise ValueError(f"average must be 'arithmetic' or 'max', got {average!r}")


def purity(y_true: np.ndarray, y_pred: np.ndarray, cm: np.ndarray | None = None) -> float:
    cm = confusion_matrix(y_true, y_pred) if cm is None else cm
    return float(cm.max(axis=0).sum() / cm.sum())


def adjusted_rand(y_true: np.ndarray, y_pred: np.ndarray, cm: np.ndarray | None = None) -> float:
    """Hubert-Arabie adjusted Rand index (0 when the denominator vanishes)."""
    cm = confusion_matrix(y_true, y_pred) if cm is None else cm
    n = cm.sum()
    s, a, b = _pairs(cm), _pairs(cm.sum(1)), _pairs(cm.sum(0))
    total = n * (n - 1) / 2
    expected = a * b / total if total else 0.0
    denom = (a + b) / 2 - expected
    if denom == 0:
        return 1.0 if s == a == b else 0.0
    return float((s - expected) / denom)


def f_score(y_true: np.ndarray, y_pred: np.ndarray, cm: np.ndarray | None = None) -> float:
    """Pairwise F-score over unordered sample pairs (compute_f.m)."""
    cm = confusion_matrix(y_true, y_pred) if cm is None else cm
    tp, pp, tt = _pairs(cm), _pairs(cm.sum(0)), _pairs(cm.sum(1))
    precision = tp / pp if pp else 1.0
    recall = tp / tt if tt else 1.0
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def all_metrics(y_true: np.ndarray, y_pred: np.ndarray) -> dict[str, float]:
    """ACC, NMI (arithmetic), NMI_max, purity, ARI and F-score in one dict (from one
    contingency matrix: at 1M samples the run's end no longer recounts it six times)."""
    cm = confusion_matrix(y_true, y_pred)
    return {
        "acc": accuracy(y_true, y_pred, cm),
        "nmi": nmi(y_true, y_pred, cm=cm),
        "nmi_max": nmi(y_true, y_pred, average="max", cm=cm),
        "purity": purity(y_true, y_pred, cm),
        "ari": adjusted_rand(y_true, y_pred, cm),
        "f_score": f_score(y_true, y_pred, cm),
    }
