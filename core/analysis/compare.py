"""What sets a group of samples apart: group A against the rest, or against group B, per view.

For every feature of every view: the means in A and in B, Cohen's d (pooled standard
deviation), the AUC of the Mann-Whitney U test (P(a value of A > one of B), ties 1/2), its
two-sided p-value (normal approximation with tie correction) and Benjamini-Hochberg q over the
features of the view. The statistics are the cluster profiles' (``core.numerics.profiles``):
A and B are profiled as two clusters, every other sample left out. Each view counts only the
samples that HAVE it (``observed``): a sample of A missing a view counts in neither ``n_a``
nor the mean of A in that view.

:func:`compare_steps` yields the tables with the means and effect sizes first (one sparse
product per view: well under a second at 100,000 x 5,000), then the progress of the rank
statistics, and returns the complete tables.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Generator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from core.analysis.groups import as_indices
from core.analysis.progress import AnalysisProgress
from core.data.atomic import atomic_write
from core.data.blocks import is_source
from core.data.dataset import DataError, View
from core.numerics.profiles import ViewProfile, profile_steps
from core.numerics.steps import drain
from core.records.profiles_table import directions

__all__ = [
    "COLUMNS",
    "FeatureTable",
    "compare_groups",
    "compare_steps",
    "feature_values",
    "write_compare_csv",
]

COLUMNS = ("view", "feature", "name", "mean_a", "mean_b", "effect_d", "auc", "p", "q",
           "direction", "n_a", "n_b", "rank_samples")  # fmt: skip
#: share of the progress the effect sizes take (the rank statistics take the rest)
EFFECT_SHARE = 0.05
#: values ranked between two progress yields: a twentieth of the profiles' blocks, so that
#: no single NumPy call of a worker thread holds the GIL long (the window's thread paused
#: 13-36 ms at most at 100,000 x 5,000: benchmarks/explain_scale.py); the same numbers
PROGRESS_ENTRIES = 1_000_000


@dataclass
class FeatureTable:
    """One view's features compared between group A and group B (or the rest).

    ``features`` are 0-based column numbers; ``auc``, ``p`` and ``q`` are NaN until the rank
    statistics are computed (the first, fast table); ``n_a``/``n_b`` count the samples of each
    group that have the view; ``rank_samples``: the samples the AUC, p and q used (fewer than
    n_a + n_b only for a large view read in row blocks, see ``core.numerics.profiles``)."""

    view: int
    view_name: str
    features: np.ndarray
    names: list[str]
    mean_a: np.ndarray
    mean_b: np.ndarray
    effect_d: np.ndarray
    auc: np.ndarray
    p: np.ndarray
    q: np.ndarray
    n_a: int
    n_b: int
    rank_samples: int | None = None

    @property
    def complete(self) -> bool:
        """Whether the AUC, p and q are computed."""
        return self.rank_samples is not None

    @property
    def direction(self) -> np.ndarray:
        """Per feature "higher" or "lower" in A than in B."""
        return directions(self.effect_d, self.auc)

    def significant(self, alpha: float = 0.05) -> np.ndarray:
        """Bool mask of the features with q < alpha (none before the rank statistics)."""
        with np.errstate(invalid="ignore"):
            return np.asarray(self.q < alpha)

    def ranked(self, k: int | None = None) -> np.ndarray:
        """Row indices of the table by |effect_d|, largest first (ties in feature order)."""
        order = np.argsort(-np.abs(self.effect_d), kind="stable")
        return order if k is None else order[:k]


def _table(v: int, name: str, names: list[str], prof: ViewProfile) -> FeatureTable:
    """Row 0 of a two-cluster profile (A = cluster 0; B = cluster 1) as a table."""
    d = prof.effect.shape[1]
    return FeatureTable(v, name, np.arange(d), names, prof.mean_in[0], prof.mean_out[0],
                        prof.effect[0], prof.auc[0], prof.p[0], prof.q[0], int(prof.n_in[0]),
                        int(prof.n_out[0]), prof.rank_samples)  # fmt: skip


def _n_samples(views: Sequence[View]) -> int:
    if not views:
        raise DataError("no views to compare")
    return int(views[0].shape[0])


def _observed_column(observed: np.ndarray | None, v: int, n: int) -> np.ndarray | None:
    if observed is None:
        return None
    obs = np.asarray(observed, dtype=bool)
    if obs.ndim == 1:
        obs = obs[:, None]
    if obs.shape[0] != n:
        raise DataError(f"observed has {obs.shape[0]} rows for {n} samples")
    return obs[:, v] if obs.shape[1] > 1 else obs[:, 0]


def _two_groups(
    n: int, a: np.ndarray, b: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray | None]:
    """(labels: 0 in A, 1 elsewhere; the samples in A or B, None when that is all of them)."""
    ia = as_indices(a, n)
    if ia.size == 0:
        raise DataError("group A is empty: select some samples first")
    labels = np.ones(n, dtype=np.int64)
    labels[ia] = 0
    if b is None:
        if ia.size == n:
            raise DataError("group A holds every sample: there is no rest to compare with")
        return labels, None
    ib = as_indices(b, n)
    if ib.size == 0:
        raise DataError("group B is empty")
    shared = np.intersect1d(ia, ib, assume_unique=True)
    if shared.size:
        raise DataError(
            f"groups A and B share {shared.size} sample(s): compare groups that do not overlap"
        )
    included = labels == 0
    included[ib] = True
    return labels, None if included.all() else included


def compare_steps(
    views: Sequence[View],
    a: np.ndarray,
    b: np.ndarray | None = None,
    *,
    observed: np.ndarray | None = None,
    feature_names: Sequence[Sequence[str]] | None = None,
    view_names: Sequence[str] | None = None,
) -> Generator[AnalysisProgress, None, list[FeatureTable]]:
    """Compare the samples ``a`` (indices or a mask) with ``b`` (None: every other sample)
    in every view. The first yield carries the tables with means and effect sizes only
    (``partial``); then the rank statistics' progress; returns the complete tables.
    ``observed``: (n, V) bool, which sample has which view (None: all)."""
    n = _n_samples(views)
    labels, included = _two_groups(n, a, b)
    names_v = list(view_names) if view_names else [f"view {v + 1}" for v in range(len(views))]
    gens, tables = [], []
    for v, x in enumerate(views):
        seen = _observed_column(observed, v, n)
        if included is not None:
            seen = included if seen is None else seen & included
        gen = profile_steps(x, labels, 2, seen, block_entries=PROGRESS_ENTRIES)
        partial = None
        while partial is None:  # the moments (one pass for a row-block view)
            _, partial = next(gen)
        d = x.shape[1]
        names = [str(s) for s in feature_names[v]] if feature_names else []
        if len(names) != d:
            names = [f"f{j + 1}" for j in range(d)]
        gens.append(gen)
        tables.append(_table(v, names_v[v], names, partial))
    yield AnalysisProgress(EFFECT_SHARE, "effect sizes", [replace(t) for t in tables])
    widths = np.array([max(x.shape[1], 1) for x in views], dtype=np.float64)
    before = np.concatenate(([0.0], np.cumsum(widths)[:-1])) / widths.sum()
    share = widths / widths.sum()
    for v, gen in enumerate(gens):
        message = f"ranks of {names_v[v]}"
        while True:
            try:
                frac, _ = next(gen)
            except StopIteration as stop:
                prof = stop.value
                break
            done = before[v] + share[v] * frac
            yield AnalysisProgress(EFFECT_SHARE + (1 - EFFECT_SHARE) * done, message)
        tables[v] = _table(v, names_v[v], tables[v].names, prof)
    yield AnalysisProgress(1.0, "done", tables)
    return tables


def compare_groups(
    views: Sequence[View],
    a: np.ndarray,
    b: np.ndarray | None = None,
    *,
    observed: np.ndarray | None = None,
    feature_names: Sequence[Sequence[str]] | None = None,
    view_names: Sequence[str] | None = None,
) -> list[FeatureTable]:
    """:func:`compare_steps` run to its end."""
    return drain(
        compare_steps(
            views, a, b, observed=observed, feature_names=feature_names, view_names=view_names
        )
    )


def _column(x: View, j: int) -> np.ndarray:
    """Feature ``j`` of a view (dense, CSR or a row-block source) as a float64 array."""
    if is_source(x):
        parts = [_column(block, j) for _, _, block in x.blocks()]
        return np.concatenate(parts) if parts else np.empty(0)
    if sp.issparse(x):
        return np.asarray(x[:, [j]].toarray()).ravel().astype(np.float64)
    return np.asarray(x[:, j], dtype=np.float64).ravel()


def feature_values(
    views: Sequence[View],
    view: int,
    feature: int,
    groups: Sequence[np.ndarray],
    observed: np.ndarray | None = None,
) -> list[np.ndarray]:
    """The values of one feature (0-based) of one view in each group, over the samples of
    the group that have the view: what a distribution plot by group shows."""
    n = _n_samples(views)
    x = views[view]
    if not 0 <= feature < x.shape[1]:
        raise DataError(f"view {view + 1} has no feature {feature + 1} (it has {x.shape[1]})")
    column = _column(x, feature)
    seen = _observed_column(observed, view, n)
    out = []
    for g in groups:
        idx = as_indices(g, n)
        if seen is not None:
            idx = idx[seen[idx]]
        out.append(column[idx])
    return out


def compare_csv_text(
    tables: Sequence[FeatureTable],
    alpha: float | None = None,
    group: str | None = None,
    header: bool = True,
) -> str:
    """The tables as CSV: per view, features by |effect_d| (largest first); only those with
    q < alpha when ``alpha`` is given. Feature numbers are 1-based, as in the profiles CSV.
    ``group``: a first column naming the comparison (several comparisons in one file)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    lead = [] if group is None else [group]
    if header:
        w.writerow([*(["group"] if group is not None else []), *COLUMNS])
    for t in tables:
        order = t.ranked()
        if alpha is not None:
            order = order[t.significant(alpha)[order]]
        direction = t.direction
        rank_samples = "" if t.rank_samples is None else t.rank_samples
        for j in order.tolist():
            floats = (t.mean_a[j], t.mean_b[j], t.effect_d[j], t.auc[j], t.p[j], t.q[j])
            w.writerow([*lead, t.view_name, int(t.features[j]) + 1, t.names[j],
                        *(f"{float(f):.6g}" for f in floats), direction[j], t.n_a, t.n_b,
                        rank_samples])  # fmt: skip
    return buf.getvalue()


def write_compare_csv(
    path: str | os.PathLike[str],
    tables: Sequence[FeatureTable],
    alpha: float | None = None,
    group: str | None = None,
) -> Path:
    """:func:`compare_csv_text` written atomically."""
    return atomic_write(path, compare_csv_text(tables, alpha, group))
