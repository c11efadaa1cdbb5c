"""Cluster profiles: per cluster and view, the features that set it apart.

For every feature and cluster k (against all other samples): the means inside and outside,
a standardised mean difference (Cohen's d, pooled standard deviation), the Mann-Whitney U
test as the area under the curve AUC = U / (n_k n_rest) with a two-sided p-value from the
normal approximation with tie correction, and Benjamini-Hochberg q-values over the features
of one view and cluster. :meth:`ViewProfile.top` ranks the features with q < alpha by
|d|, largest first, in both directions: a feature much lower in the cluster is as telling as
one much higher (the sign of d says which).

Ranks are computed once per feature for all clusters at once, from the stored entries only:
a sparse column's implicit zeros form one tie group, so a text view is never densified.
Columns are processed in blocks (bounded memory); the sort is one ``lexsort`` per block.

Samples missing a view (``observed``, the view's column of ``MultiViewDataset.observed``):
every statistic of the view is over the samples that HAVE it, inside and outside the
cluster; the zero rows stored for the others never count. A cluster none of whose samples
has the view gets no features (``top`` is empty, its ``mean_in`` is NaN).

Row-block views (streamed, :class:`core.data.blocks.RowBlockSource`): the per-cluster sums
and sums of squares are accumulated block by block in one pass, so the means, Cohen's d and
the standardised means are over all observed rows, as in memory (equal up to the order of
summation). The rank statistics need all values of a feature at once: they are computed per
group of columns, one pass over the row blocks per group keeping only that group's columns
(at most :data:`RANK_PASS_ENTRIES` values held; the first group is gathered during the
moments pass). With at most :data:`STREAM_RANK_ROWS` observed rows this is exact (the same
AUC, p and q as in memory); with more, the AUC, p and q come from a fixed random subsample of
:data:`STREAM_RANK_ROWS` observed rows (seed 0, the same rows for every feature and cluster),
which bounds the number of passes. A dense view in memory sorts at most
:data:`DENSE_RANK_VALUES` values (rows x features) for its ranks: above, the AUC, p and q
come from a seeded subsample of rows (4,000 rows of a 100,000 x 5,000 view; two groups are
sampled each within itself). The means, Cohen's d and standardised means always use every
observed row. ``ViewProfile.rank_samples`` says how many rows the ranks used.

:func:`profile_steps` yields the means and effect sizes first (one product: fast), then the
progress of the rank statistics; :func:`profile_view` runs it to its end. Any two groups of
samples (a selection against the rest, or group A against group B: ``core.analysis.compare``)
are profiled as two clusters, the samples in neither left out through ``observed``.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import ndtr

from core.data.blocks import is_source
from core.data.dataset import View
from core.numerics.jit.moments import group_moments
from core.numerics.steps import drain

__all__ = [
    "DENSE_RANK_VALUES",
    "RANK_PASS_ENTRIES",
    "STREAM_RANK_ROWS",
    "ProfileStep",
    "ViewProfile",
    "bh_qvalues",
    "profile_steps",
    "profile_view",
    "rank_sum_steps",
    "rank_sums",
]

#: stored entries handled per block of columns (bounds the temporary arrays to ~1 GB)
BLOCK_ENTRIES = 20_000_000
#: row-block views: rows the rank statistics (AUC, p, q) use at most (a seeded subsample above)
STREAM_RANK_ROWS = 100_000
#: row-block views: values (dense) or stored entries (sparse) gathered per pass for the ranks
RANK_PASS_ENTRIES = 40_000_000
#: dense views in memory: values (rows x features) the rank statistics sort at most; above,
#: a seeded subsample of rows (100,000 x 5,000 float32: 4,000 rows, ~3 s instead of ~40 s)
DENSE_RANK_VALUES = 20_000_000


def bh_qvalues(p: np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values along the last axis."""
    p = np.asarray(p, dtype=np.float64)
    m = p.shape[-1]
    order = np.argsort(p, axis=-1)
    ranked = np.take_along_axis(p, order, axis=-1) * m / np.arange(1, m + 1)
    q = np.minimum.accumulate(ranked[..., ::-1], axis=-1)[..., ::-1]
    out = np.empty_like(q)
    np.put_along_axis(out, order, np.minimum(q, 1.0), axis=-1)
    return out


def _entries(x: View, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, columns relative to lo, values) of the stored entries of columns lo..hi-1
    (a CSC matrix is read in place: slicing it was one long call holding the GIL)."""
    if sp.issparse(x) and x.format == "csc":
        a, b = x.indptr[lo], x.indptr[hi]
        cols = np.repeat(np.arange(hi - lo), np.diff(x.indptr[lo : hi + 1]))
        return x.indices[a:b], cols, x.data[a:b].astype(np.float64)
    if sp.issparse(x):
        block = x[:, lo:hi].tocoo()
        return block.row, block.col, block.data.astype(np.float64)
    block = np.asarray(x[:, lo:hi], dtype=np.float64)
    rows, cols = np.indices(block.shape)
    return rows.ravel(), cols.ravel(), block.ravel()


def rank_sums(
    x: View, labels: np.ndarray, n_clusters: int, rows: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(c, d) rank sums of each cluster per feature (average ranks over all n samples) and
    (d,) tie terms sum(t^3 - t) per feature. ``rows``: rank only these rows of ``x`` (the
    samples that have the view; ``labels`` still has one entry per row of ``x``)."""
    return drain(rank_sum_steps(x, labels, n_clusters, rows))


def rank_sum_steps(
    x: View,
    labels: np.ndarray,
    n_clusters: int,
    rows: np.ndarray | None = None,
    block_entries: int = BLOCK_ENTRIES,
) -> Generator[float, None, tuple[np.ndarray, np.ndarray]]:
    """:func:`rank_sums`, yielding the share of the columns done after each block of about
    ``block_entries`` values (smaller blocks: finer progress; the same sums)."""
    labels = np.asarray(labels, dtype=np.int64)
    if not sp.issparse(x):
        return (yield from _dense_rank_sums(np.asarray(x), labels, n_clusters, rows, block_entries))
    if rows is not None:
        x, labels = x[rows], labels[rows]
    n, d = x.shape
    counts = np.bincount(labels, minlength=n_clusters).astype(np.float64)
    sums = np.zeros((n_clusters, d))
    ties = np.zeros(d)
    xc = x.tocsc()
    if np.any(xc.data == 0):  # stored zeros belong to the implicit zeros' tie group
        xc = xc.copy()
        xc.eliminate_zeros()
    lo = 0
    while lo < d:
        # columns up to ``block_entries`` stored entries (dense-ish columns get fewer)
        hi = int(np.searchsorted(xc.indptr, xc.indptr[lo] + block_entries, side="right")) - 1
        hi = min(d, max(hi, lo + 1))
        w = hi - lo
        rows_, cols, vals = _entries(xc, lo, hi)
        order = np.lexsort((vals, cols))
        rows_, cols, vals = rows_[order], cols[order], vals[order]
        nnz = np.bincount(cols, minlength=w)
        zeros = n - nnz  # implicit zeros of each column: one tie group
        start = np.concatenate(([0], np.cumsum(nnz)[:-1]))
        pos = np.arange(vals.size) - start[cols]  # 0-based position among stored entries
        # tie groups of equal (column, value): average of their positions
        new = np.ones(vals.size, dtype=bool)
        new[1:] = (cols[1:] != cols[:-1]) | (vals[1:] != vals[:-1])
        gid = np.cumsum(new) - 1
        gsize = np.bincount(gid)
        gfirst = pos[new]
        avg = gfirst[gid] + (gsize[gid] - 1) / 2.0 + 1.0
        neg = np.bincount(cols, weights=(vals < 0), minlength=w)
        rank = avg + np.where(vals > 0, zeros[cols], 0)  # positives rank after the zeros
        zero_rank = neg + (zeros + 1) / 2.0
        key = labels[rows_] * w + cols
        stored = np.bincount(key, weights=rank, minlength=n_clusters * w).reshape(n_clusters, w)
        in_k = np.bincount(key, minlength=n_clusters * w).reshape(n_clusters, w)
        sums[:, lo:hi] = stored + (counts[:, None] - in_k) * zero_rank[None, :]
        gcol = cols[new]
        t = gsize.astype(np.float64)
        ties[lo:hi] = np.bincount(gcol, weights=t**3 - t, minlength=w) + (zeros**3 - zeros)
        yield hi / d
        lo = hi
    return sums, ties


def _dense_rank_sums(
    x: np.ndarray,
    labels: np.ndarray,
    c: int,
    rows: np.ndarray | None = None,
    block_entries: int = BLOCK_ENTRIES,
) -> Generator[float, None, tuple[np.ndarray, np.ndarray]]:
    """Dense views: column blocks sorted along the samples (no per-entry keys); ``rows``: only
    these rows (read per block, the view is not copied)."""
    if rows is not None:
        labels = labels[rows]
    n, d = labels.size, x.shape[1]
    sums, ties = np.zeros((c, d)), np.zeros(d)
    if n == 0:
        return sums, ties
    ind = sp.csr_matrix((np.ones(n), (labels, np.arange(n))), shape=(c, n))
    step = max(1, block_entries // 4 // max(n, 1))
    for lo in range(0, d, step):
        part = x[:, lo : lo + step] if rows is None else x[rows, lo : lo + step]
        # one contiguous row per feature: sorting along rows is cache-friendly
        block = np.ascontiguousarray(part.T, dtype=np.float64)
        w = block.shape[0]
        order = np.argsort(block, axis=1)
        srt = np.take_along_axis(block, order, axis=1)
        new = np.ones(srt.shape, dtype=bool)
        new[:, 1:] = srt[:, 1:] != srt[:, :-1]
        flat_new = new.ravel()
        gid = np.cumsum(flat_new) - 1
        gsize = np.bincount(gid)
        starts = np.flatnonzero(flat_new)
        first = starts % n  # 0-based position of each tie group's start
        avg = (first + (gsize - 1) / 2.0 + 1.0)[gid].reshape(w, n)
        ranks = np.empty((w, n))
        np.put_along_axis(ranks, order, avg, axis=1)
        sums[:, lo : lo + w] = np.asarray(ranks @ ind.T).T
        t = gsize.astype(np.float64)
        gcol = starts // n
        ties[lo : lo + w] = np.bincount(gcol, weights=t**3 - t, minlength=w)
        yield (lo + w) / d
    return sums, ties


def rank_subsample(
    labels: np.ndarray, observed: np.ndarray, c: int, limit: int, seed: int
) -> np.ndarray:
    """The observed rows the rank statistics use: all of them up to ``limit``, else a seeded
    subsample of ``limit`` (sorted). Two groups (a selection against the rest) are sampled
    each within itself, the smaller keeping up to half the rows, so a small selection is not
    left with a handful of samples; more groups are sampled uniformly (each cluster's "rest"
    keeps its mixture)."""
    if observed.size <= limit:
        return observed
    rng = np.random.default_rng(seed)
    if c != 2:
        return np.sort(rng.choice(observed, size=limit, replace=False))
    parts = [observed[labels[observed] == g] for g in (0, 1)]
    small = int(np.argmin([p.size for p in parts]))
    take = [0, 0]
    take[small] = min(parts[small].size, limit // 2)
    take[1 - small] = min(parts[1 - small].size, limit - take[small])
    picked = [rng.choice(p, size=t, replace=False) for p, t in zip(parts, take, strict=True)]
    return np.sort(np.concatenate(picked))


def _indicator(labels: np.ndarray, c: int, rows: np.ndarray | None = None) -> sp.csr_matrix:
    """(c, n) 0/1 matrix of the clusters; ``rows``: only these samples have a 1."""
    n = labels.size
    if rows is None:
        return sp.csr_matrix((np.ones(n), (labels, np.arange(n))), (c, n))
    return sp.csr_matrix((np.ones(rows.size), (labels[rows], rows)), (c, n))


def _moments(
    x: View, labels: np.ndarray, c: int, rows: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(c, d) sums and sums of squares per cluster (over ``rows`` only when given)."""
    if not sp.issparse(x):  # one pass in the view's dtype, no upcast copy
        groups = np.asarray(labels, dtype=np.int64)
        if rows is not None:
            groups = np.full(groups.size, -1, dtype=np.int64)
            groups[rows] = np.asarray(labels)[rows]
        s1, s2 = np.zeros((c, x.shape[1])), np.zeros((c, x.shape[1]))
        group_moments(np.asarray(x), groups, s1, s2)
        return s1, s2
    ind = _indicator(labels, c, rows)
    s1 = ind @ x
    s2 = ind @ (x.multiply(x) if sp.issparse(x) else x * x)

    def dense(a):
        return np.asarray(a.todense()) if sp.issparse(a) else np.asarray(a)

    return dense(s1), dense(s2)


@dataclass
class ViewProfile:
    """Per cluster (rows) and feature (columns) of one view."""

    mean_in: np.ndarray  # NaN for a cluster none of whose samples has the view
    mean_out: np.ndarray
    effect: np.ndarray  # Cohen's d: > 0 higher in the cluster, < 0 lower
    auc: np.ndarray  # P(a sample of the cluster > one outside), ties count 1/2
    p: np.ndarray
    q: np.ndarray
    standardized_means: np.ndarray  # (mean_k - overall mean) / overall sd
    n_in: np.ndarray | None = None  # (c,) samples of each cluster that have the view
    n_out: np.ndarray | None = None  # (c,) samples outside each cluster that have the view
    rank_samples: int | None = None  # rows the AUC, p and q used (all observed, or a subsample)

    @property
    def subsampled(self) -> bool:
        """Whether the rank statistics come from a row subsample (a large row-block view)."""
        if self.rank_samples is None or self.n_in is None or self.n_out is None:
            return False
        return self.rank_samples < int(self.n_in[0] + self.n_out[0])

    def top(self, cluster: int, k: int = 10, alpha: float = 0.05) -> np.ndarray:
        """Features that set ``cluster`` apart (q < alpha), largest |effect| first: higher or
        lower in the cluster than outside (the sign of ``effect`` says which). Empty when
        none of the cluster's samples has the view."""
        if self.n_in is not None and self.n_in[cluster] == 0:
            return np.empty(0, dtype=np.intp)
        e = np.where(self.q[cluster] < alpha, np.abs(self.effect[cluster]), -np.inf)
        order = np.argsort(-e, kind="stable")[:k]
        return order[np.isfinite(e[order])]


#: what :func:`profile_steps` yields: the share done, and the profile with its means and
#: effect sizes only (AUC, p and q NaN) once, as soon as they are known, else None
ProfileStep = tuple[float, "ViewProfile | None"]


def profile_view(
    x: View,
    labels: Sequence[int] | np.ndarray,
    n_clusters: int | None = None,
    observed: np.ndarray | None = None,
    *,
    rank_rows: int | None = None,
    seed: int = 0,
) -> ViewProfile:
    """Cluster profiles of one view (n x d: dense, CSR or a row-block source) for ``labels``
    (0..c-1). ``observed``: (n,) bool, the samples that have the view (None: all); every
    statistic is over those only. ``rank_rows``, ``seed``: the row subsample of the rank
    statistics of a row-block view with more observed rows, or of a dense view (default:
    as many rows as :data:`DENSE_RANK_VALUES` allows; see the module docstring)."""
    return drain(profile_steps(x, labels, n_clusters, observed, rank_rows=rank_rows, seed=seed))


def profile_steps(
    x: View,
    labels: Sequence[int] | np.ndarray,
    n_clusters: int | None = None,
    observed: np.ndarray | None = None,
    *,
    rank_rows: int | None = None,
    seed: int = 0,
    block_entries: int = BLOCK_ENTRIES,
) -> Generator[ProfileStep, None, ViewProfile]:
    """:func:`profile_view` step by step: first ``(fraction, profile)`` with the means and
    effect sizes only (one product per view: fast), then ``(fraction, None)`` as the rank
    statistics proceed by blocks of columns (of about ``block_entries`` values in memory:
    smaller blocks give finer progress, the same numbers); returns the whole profile.

    Any two groups of samples are two "clusters": label them 0 and 1 and leave every other
    sample out through ``observed`` (a sample left out counts nowhere)."""
    labels = np.asarray(labels, dtype=np.int64)
    c = int(n_clusters or labels.max() + 1)
    n = labels.size
    if x.shape[0] != n:
        raise ValueError(f"{n} labels for a view of {x.shape[0]} samples")
    rows = None
    if observed is not None:
        obs = np.asarray(observed, dtype=bool).ravel()
        if obs.shape != (n,):
            raise ValueError(f"observed has {obs.size} entries for {n} samples")
        if not obs.all():
            rows = np.flatnonzero(obs)
    if is_source(x):
        limit = STREAM_RANK_ROWS if rank_rows is None else int(rank_rows)
        return (yield from _profile_source(x, labels, c, rows, limit, seed))
    if rows is not None and sp.issparse(x):  # a CSR copy of the observed rows: nnz-bounded
        x, labels, rows = x[rows], labels[rows], None
    s1, s2 = _moments(x, labels, c, rows)
    counts = np.bincount(labels if rows is None else labels[rows], minlength=c)
    counts = counts.astype(np.float64)
    yield 0.0, _statistics(s1, s2, counts)
    rank_counts = counts
    if not sp.issparse(x):  # sorting every value of a large dense view takes minutes
        limit = rank_rows or max(DENSE_RANK_VALUES // max(x.shape[1], 1), 1000)
        observed_rows = np.arange(n) if rows is None else rows
        pick = rank_subsample(labels, observed_rows, c, limit, seed)
        if pick.size < observed_rows.size:
            rows = pick
            rank_counts = np.bincount(labels[pick], minlength=c).astype(np.float64)
    sums, ties = yield from _no_partial(rank_sum_steps(x, labels, c, rows, block_entries))
    return _statistics(s1, s2, counts, sums, ties, rank_counts)


def _no_partial(
    steps: Generator[float, None, object], lo: float = 0.0, hi: float = 1.0
) -> Generator[ProfileStep, None, object]:
    """Re-yield a generator of fractions (mapped into [lo, hi]) as profile steps without a
    partial profile; return what it returns."""
    while True:
        try:
            frac = next(steps)
        except StopIteration as stop:
            return stop.value
        yield lo + (hi - lo) * frac, None


def _statistics(
    s1: np.ndarray,
    s2: np.ndarray,
    counts: np.ndarray,
    sums: np.ndarray | None = None,
    ties: np.ndarray | None = None,
    rank_counts: np.ndarray | None = None,
) -> ViewProfile:
    """The profile from per-cluster sums (``counts`` samples per cluster) and rank sums (over
    ``rank_counts`` samples per cluster: the same, or a row subsample). Without rank sums:
    the means and effect sizes only, AUC, p and q NaN (``rank_samples`` None)."""
    n = int(counts.sum())
    rest = np.maximum(n - counts, 1)[:, None]
    nk = np.maximum(counts, 1)[:, None]
    t1, t2 = s1.sum(axis=0), s2.sum(axis=0)
    mean_in, mean_out = s1 / nk, (t1 - s1) / rest
    var_in = np.maximum(s2 / nk - mean_in**2, 0)
    var_out = np.maximum((t2 - s2) / rest - mean_out**2, 0)
    pooled = np.sqrt((nk * var_in + rest * var_out) / (nk + rest))
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = np.where(pooled > 0, (mean_in - mean_out) / pooled, 0.0)
    mean_all = t1 / max(n, 1)
    sd_all = np.sqrt(np.maximum(t2 / max(n, 1) - mean_all**2, 0))
    with np.errstate(divide="ignore", invalid="ignore"):
        std_means = np.where(sd_all > 0, (mean_in - mean_all) / sd_all, 0.0)
    empty, alone = counts == 0, counts == n  # no sample of the cluster / none outside it
    if empty.any() or alone.any():
        mean_in[empty], mean_out[alone] = np.nan, np.nan
        effect[empty | alone], std_means[empty] = 0.0, 0.0
    n_in = counts.astype(np.int64)
    if sums is None or ties is None or rank_counts is None:
        nan = np.full(s1.shape, np.nan)
        return ViewProfile(mean_in, mean_out, effect, nan, nan.copy(), nan.copy(), std_means,
                           n_in, n - n_in, None)  # fmt: skip
    m = int(rank_counts.sum())
    nr = rank_counts[:, None]
    no = m - nr
    u = sums - nr * (nr + 1) / 2
    mu = nr * no / 2
    var = nr * no / 12 * ((m + 1) - ties[None, :] / max(m * (m - 1), 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(var > 0, (u - mu) / np.sqrt(np.maximum(var, 1e-300)), 0.0)
        auc = np.where(no * nr > 0, u / (nr * no), 0.5)
    p = np.minimum(2 * ndtr(-np.abs(z)), 1.0)
    return ViewProfile(mean_in, mean_out, effect, auc, p, bh_qvalues(p), std_means,
                       n_in, n - n_in, m)  # fmt: skip


# -- row-block views ------------------------------------------------------------------------
def _column_groups(d: int, rows: int, sparse: bool, nnz: np.ndarray) -> list[tuple[int, int]]:
    """Column ranges whose values (dense: rows x width; sparse: stored entries, estimated
    from ``nnz``) fit in :data:`RANK_PASS_ENTRIES`: one pass over the rows each."""
    if not sparse:
        w = max(1, RANK_PASS_ENTRIES // max(rows, 1))
        return [(lo, min(d, lo + w)) for lo in range(0, d, w)]
    cum = np.cumsum(nnz, dtype=np.float64)
    groups, lo = [], 0
    while lo < d:
        base = cum[lo - 1] if lo else 0.0
        hi = int(np.searchsorted(cum, base + RANK_PASS_ENTRIES, side="right"))
        hi = min(d, max(hi, lo + 1))
        groups.append((lo, hi))
        lo = hi
    return groups


def _profile_source(
    src: object, labels: np.ndarray, c: int, rows: np.ndarray | None, rank_rows: int, seed: int
) -> Generator[ProfileStep, None, ViewProfile]:
    """:func:`profile_steps` of a row-block source: one pass for the sums (and the first
    column group of the ranks; the first half of the progress), then one pass per further
    column group."""
    n, d = (int(s) for s in src.shape)
    sparse = bool(getattr(src, "sparse", False))
    keep = None
    if rows is not None:
        keep = np.zeros(n, dtype=bool)
        keep[rows] = True
    observed = np.arange(n) if rows is None else rows
    pick = rank_subsample(labels, observed, c, rank_rows, seed)  # bounds the rank passes
    ranked = None
    if pick.size < n:
        ranked = np.zeros(n, dtype=bool)
        ranked[pick] = True
    rank_labels = labels[pick]
    nnz = np.zeros(d, dtype=np.int64)
    first = None if sparse or d == 0 else _column_groups(d, pick.size, False, nnz)[0]
    s1, s2, gathered = np.zeros((c, d)), np.zeros((c, d)), []
    for start, stop, block in src.blocks():
        lab, blk = labels[start:stop], block
        if keep is not None:
            sel = keep[start:stop]
            lab, blk = lab[sel], blk[sel]
        if lab.size:
            s1, s2 = _accumulate(s1, s2, lab, blk)
            if sparse:
                nnz += np.count_nonzero(blk, axis=0)
        if first is not None:
            gathered.append(_rank_part(block, start, stop, ranked, first, sparse))
        yield 0.5 * stop / max(n, 1), None
    counts = np.bincount(labels[observed], minlength=c).astype(np.float64)
    rank_counts = np.bincount(rank_labels, minlength=c).astype(np.float64)
    yield 0.5, _statistics(s1, s2, counts)
    sums, ties = np.zeros((c, d)), np.zeros(d)
    if pick.size:
        scale = pick.size / max(observed.size, 1)
        groups = _column_groups(d, pick.size, sparse, nnz * scale)
        for g, (lo, hi) in enumerate(groups):
            if g or first is None:
                gathered = [_rank_part(b, s, e, ranked, (lo, hi), sparse)
                            for s, e, b in src.blocks()]  # fmt: skip
            part = sp.vstack(gathered, format="csr") if sparse else np.vstack(gathered)
            sums[:, lo:hi], ties[lo:hi] = rank_sums(part, rank_labels, c)
            gathered = []
            yield 0.5 + 0.5 * hi / d, None
    return _statistics(s1, s2, counts, sums, ties, rank_counts)


def _accumulate(
    s1: np.ndarray, s2: np.ndarray, labels: np.ndarray, block: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The running per-cluster sums continued over one row block, in sample order (the
    order of the in-memory sums: the same floating-point result)."""
    if sp.issparse(block):
        block = block.toarray()
    group_moments(np.asarray(block), np.asarray(labels, dtype=np.int64), s1, s2)
    return s1, s2


def _rank_part(
    block: np.ndarray,
    start: int,
    stop: int,
    ranked: np.ndarray | None,
    cols: tuple[int, int],
    sparse: bool,
) -> np.ndarray | sp.csr_matrix:
    """The ranked rows of one row block, columns ``cols`` only (CSR for a sparse view)."""
    part = block[:, cols[0] : cols[1]]
    if ranked is not None:
        part = part[ranked[start:stop]]
    return sp.csr_matrix(part) if sparse else np.array(part)
