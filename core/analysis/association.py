"""The clusters against the samples' metadata: one association per column, and survival.

* A categorical column (text, or few integral values: :func:`core.data.dataset.column_kind`,
  the rule the colouring by metadata uses): the chi-square test of the clusters x categories
  table, with Cramér's V = sqrt(chi² / (N (min(r, c) - 1))) as the effect size.
* A numeric column: the Kruskal-Wallis test of the values across clusters (tie-corrected),
  with epsilon² = H / (N - 1) as the effect size (0: no difference, 1: the clusters separate
  the values completely).

Samples with no value in a column (NaN, empty text) are dropped for that column only, and
so are samples in no cluster (label < 0). The p-value is the asymptotic chi-square one,
except when it is not to be trusted: an expected count below 5 in any cell, or a cluster
with fewer than 5 values; then it comes from :data:`PERMUTATIONS` permutations of the
labels (seeded, vectorised), ``(1 + #{as extreme}) / (1 + P)``. A permutation of the labels
only matters to the chi-square test through the table it makes, so those tables are drawn
directly, cell by cell from the hypergeometric distribution given the margins (the same
distribution; the cost does not grow with n). Kruskal-Wallis permutes the ranks, in batches;
above :data:`PERMUTATION_WORK` values in all, fewer permutations (at least 500) keep it
within seconds at 100,000 samples.

Survival: Kaplan-Meier curves per cluster and the multivariate log-rank test, from
lifelines (imported when first used: it takes a second to load).
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.stats import chi2 as chi2_dist
from scipy.stats import rankdata

from core.analysis.groups import missing_values
from core.analysis.progress import AnalysisProgress
from core.data.atomic import atomic_write
from core.data.dataset import DataError, column_kind, encode_labels
from core.numerics.steps import drain

__all__ = [
    "PERMUTATIONS",
    "Association",
    "SurvivalResult",
    "associate",
    "associate_steps",
    "contingency",
    "survival",
    "values_by_cluster",
    "write_association_csv",
    "write_survival_csv",
]

#: permutations behind a permutation p-value (its smallest value is 1 / (1 + PERMUTATIONS))
PERMUTATIONS = 4000
#: below this expected count in a cell (chi-square) or this many values in a cluster
#: (Kruskal-Wallis), the asymptotic p-value is not trusted
SMALL = 5
#: label permutations handled at once (bounds the batch to ~64 MB of int64 at n = 100,000)
BATCH_VALUES = 8_000_000
#: Kruskal-Wallis: permuted values in all at most (fewer permutations for large n) ...
PERMUTATION_WORK = 50_000_000
#: ... but never fewer permutations than this
MIN_PERMUTATIONS = 500
#: a categorical column with more distinct values than this share of its samples names
#: samples (an id column): it is reported, not tested
ID_LIKE_SHARE = 0.5

CSV_COLUMNS = ("column", "kind", "test", "statistic", "effect", "effect_name", "p", "p_method",
               "n", "note")  # fmt: skip


@dataclass(frozen=True)
class Association:
    """One metadata column against the clusters. ``p_method``: "asymptotic",
    "permutation", or "none" when the column cannot be tested (``note`` says why; the
    statistic, effect and p are NaN then). ``n``: samples with a value and a cluster."""

    column: str
    kind: str  # "categorical" or "numeric" ("survival" for a log-rank row)
    test: str  # "chi-square", "Kruskal-Wallis" or "log-rank"
    statistic: float
    effect: float
    effect_name: str  # "Cramér's V" or "epsilon²"
    p: float
    p_method: str
    n: int
    note: str = ""

    @property
    def strength(self) -> tuple[float, float]:
        """Sort key, strongest first: the smaller p, then the larger effect (untested last)."""
        p = self.p if np.isfinite(self.p) else np.inf
        e = self.effect if np.isfinite(self.effect) else -np.inf
        return (p, -e)


def _present(labels: np.ndarray, values: np.ndarray) -> np.ndarray:
    """(n,) bool: a cluster (label >= 0) and a value."""
    labels = np.asarray(labels)
    values = np.asarray(values)
    if values.shape[0] != labels.shape[0]:
        raise DataError(f"a column of {values.shape[0]} values for {labels.shape[0]} labels")
    return (labels >= 0) & ~missing_values(values)


def contingency(labels: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, list[str], np.ndarray]:
    """(clusters, categories, counts[cluster, category]) over the samples with a value and
    a cluster; categories named as the legend names them (1.0 reads "1")."""
    labels = np.asarray(labels, dtype=np.int64)
    keep = _present(labels, values)
    clusters, rows = np.unique(labels[keep], return_inverse=True)
    cols, categories = encode_labels(np.asarray(values)[keep])
    counts = np.zeros((clusters.size, len(categories)), dtype=np.int64)
    np.add.at(counts, (rows, cols), 1)
    return clusters, categories, counts


def values_by_cluster(labels: np.ndarray, values: np.ndarray) -> dict[int, np.ndarray]:
    """The numeric values of each cluster (samples with no value dropped): a box plot's."""
    labels = np.asarray(labels, dtype=np.int64)
    keep = _present(labels, values)
    vals = np.asarray(values, dtype=np.float64)[keep]
    lab = labels[keep]
    return {int(k): vals[lab == k] for k in np.unique(lab)}


def _chi2(counts: np.ndarray) -> np.ndarray:
    """Pearson's chi-square of (..., r, c) tables (the last two axes)."""
    n = counts.sum(axis=(-2, -1), keepdims=True)
    expected = counts.sum(axis=-1, keepdims=True) * counts.sum(axis=-2, keepdims=True) / n
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(expected > 0, (counts - expected) ** 2 / expected, 0.0)
    return terms.sum(axis=(-2, -1))


def _permuted_batches(
    values: np.ndarray, rng: np.random.Generator, total: int
) -> Generator[np.ndarray, None, None]:
    """Batches of permuted copies of ``values`` (b, n), ``total`` rows in all."""
    n = values.size
    batch = max(1, min(total, BATCH_VALUES // max(n, 1)))
    done = 0
    while done < total:
        b = min(batch, total - done)
        yield rng.permuted(np.broadcast_to(values, (b, n)), axis=1)
        done += b


def _random_tables(
    row_sums: np.ndarray, col_sums: np.ndarray, rng: np.random.Generator, size: int
) -> np.ndarray:
    """(size, r, c) tables with these margins, each as likely as under a random permutation
    of the labels: row by row, each cell drawn from the hypergeometric distribution of the
    row's remaining samples among the categories still left."""
    r, c = row_sums.size, col_sums.size
    left = np.tile(np.asarray(col_sums, dtype=np.int64), (size, 1))
    out = np.zeros((size, r, c), dtype=np.int64)
    for i in range(r - 1):
        need = np.full(size, int(row_sums[i]), dtype=np.int64)
        pool = left.sum(axis=1)
        for j in range(c - 1):
            others = pool - left[:, j]
            drawn = rng.hypergeometric(left[:, j], others, need)
            out[:, i, j] = drawn
            left[:, j] -= drawn
            need -= drawn
            pool = others
        out[:, i, c - 1] = need
        left[:, c - 1] -= need
    out[:, r - 1, :] = left
    return out


def _chi_square(labels: np.ndarray, values: np.ndarray, name: str, seed: int) -> Association:
    counts = contingency(labels, values)[2]
    n = int(counts.sum())
    r, c = counts.shape
    if r < 2 or c < 2:
        why = "fewer than 2 clusters with a value" if r < 2 else "one value only"
        return _untested(name, "categorical", "chi-square", "Cramér's V", n, why)
    if c > ID_LIKE_SHARE * n:
        why = f"{c:,} distinct values for {n:,} samples: names samples, not groups"
        return _untested(name, "categorical", "chi-square", "Cramér's V", n, why)
    stat = float(_chi2(counts.astype(np.float64)))
    expected = counts.sum(axis=1)[:, None] * counts.sum(axis=0)[None, :] / n
    effect = float(np.sqrt(stat / (n * (min(r, c) - 1))))
    if expected.min() >= SMALL:
        p = float(chi2_dist.sf(stat, (r - 1) * (c - 1)))
        return Association(name, "categorical", "chi-square", stat, effect, "Cramér's V", p,
                           "asymptotic", n)  # fmt: skip
    rng = np.random.default_rng(seed)
    tables = _random_tables(counts.sum(axis=1), counts.sum(axis=0), rng, PERMUTATIONS)
    extreme = int(np.count_nonzero(_chi2(tables.astype(np.float64)) >= stat * (1 - 1e-12)))
    p = (1 + extreme) / (1 + PERMUTATIONS)
    return Association(name, "categorical", "chi-square", stat, effect, "Cramér's V", p,
                       "permutation", n)  # fmt: skip


def _kruskal(labels: np.ndarray, values: np.ndarray, name: str, seed: int) -> Association:
    keep = _present(labels, values)
    lab = np.asarray(labels, dtype=np.int64)[keep]
    vals = np.asarray(values, dtype=np.float64)[keep]
    n = int(vals.size)
    clusters, codes = np.unique(lab, return_inverse=True)
    k = clusters.size
    if k < 2:
        return _untested(name, "numeric", "Kruskal-Wallis", "epsilon²", n,
                         "fewer than 2 clusters with a value")  # fmt: skip
    ranks = rankdata(vals)
    _, ties = np.unique(vals, return_counts=True)
    correction = 1.0 - float((ties.astype(np.float64) ** 3 - ties).sum()) / (n**3 - n)
    if correction <= 0:
        return _untested(name, "numeric", "Kruskal-Wallis", "epsilon²", n, "one value only")
    sizes = np.bincount(codes, minlength=k).astype(np.float64)

    def h_of(rank_sums: np.ndarray) -> np.ndarray:
        h = 12.0 / (n * (n + 1)) * (rank_sums**2 / sizes).sum(axis=-1) - 3.0 * (n + 1)
        return h / correction

    stat = float(h_of(np.bincount(codes, weights=ranks, minlength=k)))
    effect = float(stat / (n - 1))
    if sizes.min() >= SMALL:
        p = float(chi2_dist.sf(stat, k - 1))
        return Association(name, "numeric", "Kruskal-Wallis", stat, effect, "epsilon²", p,
                           "asymptotic", n)  # fmt: skip
    rng = np.random.default_rng(seed)
    extreme = 0
    total = int(np.clip(PERMUTATION_WORK // max(n, 1), MIN_PERMUTATIONS, PERMUTATIONS))
    # a permutation of the labels deals the ranks out at random: permute the ranks and sum
    # them in consecutive runs of the clusters' sizes
    starts = np.concatenate(([0], np.cumsum(sizes.astype(np.int64))[:-1]))
    for perm in _permuted_batches(ranks, rng, total):
        sums = np.add.reduceat(perm, starts, axis=1)
        extreme += int(np.count_nonzero(h_of(sums) >= stat * (1 - 1e-12)))
    p = (1 + extreme) / (1 + total)
    return Association(name, "numeric", "Kruskal-Wallis", stat, effect, "epsilon²", p,
                       "permutation", n)  # fmt: skip


def _untested(name: str, kind: str, test: str, effect_name: str, n: int, why: str):
    nan = float("nan")
    return Association(name, kind, test, nan, nan, effect_name, nan, "none", n, why)


def associate_steps(
    labels: np.ndarray,
    columns: Mapping[str, np.ndarray],
    *,
    seed: int = 0,
    kinds: Mapping[str, str] | None = None,
) -> Generator[AnalysisProgress, None, list[Association]]:
    """Test every metadata column against the clusters (``labels``; < 0: in none), one
    yield per column; returns the associations, strongest first (:attr:`Association.strength`).
    ``kinds``: column -> "categorical"/"numeric" (default: :func:`column_kind`)."""
    labels = np.asarray(labels, dtype=np.int64)
    out = []
    names = list(columns)
    for i, name in enumerate(names):
        yield AnalysisProgress(i / max(len(names), 1), f"testing {name}")
        values = np.asarray(columns[name])
        kind = (kinds or {}).get(name) or column_kind(values)
        if kind == "numeric":
            out.append(_kruskal(labels, values, name, seed))
        else:
            out.append(_chi_square(labels, values, name, seed))
    out.sort(key=lambda a: a.strength)
    yield AnalysisProgress(1.0, "done", out)
    return out


def associate(
    labels: np.ndarray,
    columns: Mapping[str, np.ndarray],
    *,
    seed: int = 0,
    kinds: Mapping[str, str] | None = None,
) -> list[Association]:
    """:func:`associate_steps` run to its end."""
    return drain(associate_steps(labels, columns, seed=seed, kinds=kinds))


def _csv_float(value: float) -> str:
    return "" if not np.isfinite(value) else f"{value:.6g}"


def association_csv_text(rows: Sequence[Association]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for a in rows:
        w.writerow([a.column, a.kind, a.test, _csv_float(a.statistic), _csv_float(a.effect),
                    a.effect_name, _csv_float(a.p), a.p_method, a.n, a.note])  # fmt: skip
    return buf.getvalue()


def write_association_csv(path: str | os.PathLike[str], rows: Sequence[Association]) -> Path:
    """The association table as CSV (empty cells where a column was not tested), atomically."""
    return atomic_write(path, association_csv_text(rows))


# -- survival ------------------------------------------------------------------------------
@dataclass
class SurvivalResult:
    """Kaplan-Meier curves per cluster (``curves[k] = (time, survival)``, a step function
    starting at time 0 with 1.0), the multivariate log-rank test over the clusters, the
    samples used (``n``) and per cluster its samples and events."""

    curves: dict[int, tuple[np.ndarray, np.ndarray]]
    statistic: float
    p: float
    n: int
    sizes: dict[int, int]
    events: dict[int, int]

    def as_association(self, column: str) -> Association:
        """The log-rank test as a row of the association table."""
        return Association(column, "survival", "log-rank", self.statistic, float("nan"), "",
                           self.p, "asymptotic", self.n)  # fmt: skip


def _event_flags(event: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(0/1 flags as float with NaN for no value, missing mask); anything else than 0/1
    raises :class:`DataError`."""
    event = np.asarray(event)
    miss = missing_values(event)
    if event.dtype.kind == "b":
        return event.astype(np.float64), miss
    if event.dtype.kind in "iuf":
        flags = event.astype(np.float64)
    else:
        text = np.char.strip(event.astype(str))
        flags = np.full(text.shape, np.nan)
        try:
            flags[~miss] = text[~miss].astype(np.float64)
        except ValueError:
            bad = next(s for s in text[~miss] if not _is_number(s))
            raise DataError(f"the event column holds {bad!r}: events must be 0 or 1") from None
    bad = ~miss & ~np.isin(flags, (0.0, 1.0))
    if bad.any():
        raise DataError(
            f"the event column holds {flags[bad][0]:g}: events must be 0 (censored) or 1 "
            f"(event) ({int(bad.sum())} other value(s))"
        )
    return flags, miss


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def survival(labels: np.ndarray, time: np.ndarray, event: np.ndarray) -> SurvivalResult:
    """Kaplan-Meier per cluster and the multivariate log-rank test across clusters, over the
    samples with a cluster, a time and an event flag (0: censored, 1: event)."""
    from lifelines import KaplanMeierFitter
    from lifelines.statistics import multivariate_logrank_test

    labels = np.asarray(labels, dtype=np.int64)
    time = np.asarray(time)
    if time.dtype.kind not in "biuf":
        try:
            time = np.where(missing_values(time), np.nan, time).astype(np.float64)
        except ValueError:
            raise DataError("the time column is not numeric") from None
    time = time.astype(np.float64)
    if time.shape[0] != labels.size or np.asarray(event).shape[0] != labels.size:
        raise DataError(f"time and event columns need {labels.size} values, one per sample")
    flags, miss = _event_flags(event)
    keep = (labels >= 0) & np.isfinite(time) & ~miss
    if (time[keep] < 0).any():
        raise DataError("the time column holds negative times")
    lab, t, e = labels[keep], time[keep], flags[keep].astype(np.int64)
    clusters = np.unique(lab)
    if clusters.size < 2:
        raise DataError("survival needs samples with a time and an event in 2 clusters or more")
    curves = {}
    for k in clusters.tolist():
        fit = KaplanMeierFitter().fit(t[lab == k], e[lab == k])
        sf = fit.survival_function_
        curves[int(k)] = (sf.index.to_numpy(dtype=np.float64), sf.iloc[:, 0].to_numpy())
    test = multivariate_logrank_test(t, lab, e)
    sizes = {int(k): int((lab == k).sum()) for k in clusters}
    events = {int(k): int(e[lab == k].sum()) for k in clusters}
    return SurvivalResult(curves, float(test.test_statistic), float(test.p_value),
                          int(lab.size), sizes, events)  # fmt: skip


def write_survival_csv(path: str | os.PathLike[str], result: SurvivalResult) -> Path:
    """The Kaplan-Meier curves as CSV rows (cluster, time, survival), the log-rank test in
    the last columns of every row (one table a script reads)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(("cluster", "time", "survival", "n", "events", "logrank_statistic", "logrank_p"))
    for k, (t, s) in result.curves.items():
        for ti, si in zip(t.tolist(), s.tolist(), strict=True):
            w.writerow([k, f"{ti:.6g}", f"{si:.6g}", result.sizes[k], result.events[k],
                        f"{result.statistic:.6g}", f"{result.p:.6g}"])  # fmt: skip
    return atomic_write(path, buf.getvalue())
