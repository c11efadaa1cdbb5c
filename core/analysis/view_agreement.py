"""How much each view says: a clustering of every view alone, against the run's result.

Each view is clustered on its own by the single-view anchor spectral baseline
(``anchor-sc``: BKHK anchors, the PKN anchor graph, its spectral embedding, k-means; linear
in n), over the samples that have the view (above :data:`FIT_ROWS` of them: on a seeded
subsample, the others assigned by that clustering's own prediction).
Per view: the ARI and NMI of that clustering against the result (over those samples), and
the run's learned weight when the method has one. Per sample: the share of its views whose
own clustering puts it in its result cluster, the view's clusters matched to the result's by
the Hungarian assignment (:func:`core.experiments.compare.contingency`); a view cluster left
without a partner never agrees.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.analysis.progress import AnalysisProgress
from core.data.atomic import atomic_write
from core.data.blocks import is_source
from core.data.dataset import DataError, View
from core.experiments.compare import contingency
from core.methods.baselines import AnchorSpectralSingleView
from core.numerics.metrics import adjusted_rand, nmi
from core.numerics.steps import drain
from core.numerics.threads import blas_single

__all__ = [
    "ViewAgreement",
    "view_agreement",
    "view_agreement_steps",
    "write_view_agreement_csv",
]

#: k-means restarts of each view's own clustering (the spectral embedding does the work)
N_INIT = 3
#: a view with more observed rows is clustered on a seeded subsample of this many, the others
#: assigned by that clustering's prediction block by block: at 100,000 x 5,000 sparse the
#: whole fit took 91 s (its anchors most of it), the subsample's a fraction; a view read in
#: row blocks is never held whole
FIT_ROWS = 20_000
#: rows assigned at a time (in-memory views)
ASSIGN_ROWS = 16_384
#: anchors of each view's own clustering above SMALL_VIEW fitted rows (anchor-sc's own rule
#: takes 1024 there: 4x the cost of its graph and of assigning the other rows, for a score)
VIEW_ANCHORS = 256
SMALL_VIEW = 5000


@dataclass
class ViewAgreement:
    """Per view (``ari``, ``nmi``: its own clustering against the result; ``weights``: the
    run's, None when it learns none; ``n_observed``: samples that have it) and per sample
    (``per_sample``: share of its views that agree, NaN for a sample in no view;
    ``view_labels``: (V, n) each view's own clusters, -1 where the sample misses the view;
    ``agree``: (V, n) whether that view agrees with the result)."""

    view_names: list[str]
    ari: np.ndarray
    nmi: np.ndarray
    weights: np.ndarray | None
    per_sample: np.ndarray
    n_observed: np.ndarray
    view_labels: np.ndarray
    agree: np.ndarray


def _row_blocks(x: View) -> Iterator[tuple[int, int, View]]:
    """(start, stop, rows) of a view: a row-block view's own blocks, else slices of
    :data:`ASSIGN_ROWS` rows."""
    if is_source(x):
        for start, stop, block in x.blocks():
            yield start, stop, block.toarray() if hasattr(block, "toarray") else np.asarray(block)
        return
    n = x.shape[0]
    for start in range(0, n, ASSIGN_ROWS):
        stop = min(n, start + ASSIGN_ROWS)
        yield start, stop, x[start:stop]


def _gather(x: View, rows: np.ndarray) -> View:
    """The rows (a bool mask) of a view the clustering reads; of a row-block view only those
    rows are kept, block by block."""
    if not is_source(x):
        return x if rows.all() else x[np.flatnonzero(rows)]
    parts = []
    for start, stop, block in x.blocks():
        block = block.toarray() if hasattr(block, "toarray") else np.asarray(block)
        parts.append(block[rows[start:stop]])
    return np.vstack(parts)


def _matched(result: np.ndarray, own: np.ndarray) -> np.ndarray:
    """``own`` relabelled to the result's clusters (Hungarian); an unmatched cluster -> -1."""
    table = contingency(result, own)
    mapping = {int(table.col_labels[j]): int(table.row_labels[j]) for j in range(table.n_matched)}
    lookup = np.full(int(own.max()) + 1, -1, dtype=np.int64)
    for k, v in mapping.items():
        lookup[k] = v
    return lookup[own]


def view_agreement_steps(
    views: Sequence[View],
    labels: np.ndarray,
    n_clusters: int,
    *,
    weights: Sequence[float] | np.ndarray | None = None,
    observed: np.ndarray | None = None,
    seed: int = 0,
    view_names: Sequence[str] | None = None,
) -> Generator[AnalysisProgress, None, ViewAgreement]:
    """Cluster every view (the solver's input: preprocessed) alone into ``n_clusters`` and
    compare with the result ``labels``; yields the progress of each view's clustering."""
    labels = np.asarray(labels, dtype=np.int64)
    n, n_views = labels.size, len(views)
    names = list(view_names) if view_names else [f"view {v + 1}" for v in range(n_views)]
    if observed is not None:
        observed = np.asarray(observed, dtype=bool)
        if observed.shape != (n, n_views):
            raise DataError(f"observed is {observed.shape}; expected ({n}, {n_views})")
    if weights is not None:
        weights = np.asarray(weights, dtype=np.float64).ravel()
        if weights.size != n_views:
            weights = None  # a weight per fused view only: not this set of views
    own = np.full((n_views, n), -1, dtype=np.int64)
    agree = np.zeros((n_views, n), dtype=bool)
    ari, nmi_ = np.full(n_views, np.nan), np.full(n_views, np.nan)
    counts = np.zeros(n_views, dtype=np.int64)
    for v, x in enumerate(views):
        if x.shape[0] != n:
            raise DataError(f"view {v + 1} has {x.shape[0]} samples; the labels {n}")
        seen = np.ones(n, dtype=bool) if observed is None else observed[:, v]
        counts[v] = int(seen.sum())
        k = min(int(n_clusters), int(counts[v]))
        if k < 2:
            continue
        message = f"clustering {names[v]} alone"
        fit = seen
        if counts[v] > FIT_ROWS:  # a seeded subsample, then the others assigned by it
            pick = np.random.default_rng(seed).choice(np.flatnonzero(seen), FIT_ROWS,
                                                      replace=False)  # fmt: skip
            fit = np.zeros(n, dtype=bool)
            fit[pick] = True
        anchors = VIEW_ANCHORS if fit.sum() > SMALL_VIEW else None  # None: the method's rule
        solver = AnchorSpectralSingleView(k, n_anchors=anchors, n_init=N_INIT, random_state=seed)
        # one BLAS thread: on a busy 2-core machine a threaded LAPACK call (the embedding's
        # small eigh) held the GIL for up to 1 s, stalling a window that runs this in a worker
        with blas_single():
            for state in solver.iterate([_gather(x, fit)]):
                yield AnalysisProgress((v + 0.9 * state.progress) / n_views, message)
        if fit is seen:
            mine = solver.labels_
        else:
            mine = np.full(n, -1, dtype=np.int64)
            for start, stop, block in _row_blocks(x):
                sel = seen[start:stop]
                if sel.any():
                    rows = np.flatnonzero(sel)
                    mine[start + rows] = solver.predict([block[rows]])
                yield AnalysisProgress((v + 0.9 + 0.1 * stop / n) / n_views, message)
            mine = mine[seen]
        result = labels[seen]
        own[v, seen] = mine
        agree[v, seen] = _matched(result, mine) == result
        ari[v], nmi_[v] = adjusted_rand(result, mine), nmi(result, mine)
    present = np.ones((n, n_views), dtype=bool) if observed is None else observed
    with np.errstate(invalid="ignore", divide="ignore"):
        per_sample = agree.sum(axis=0) / present.sum(axis=1)
    out = ViewAgreement(names, ari, nmi_, weights, per_sample, counts, own, agree)
    yield AnalysisProgress(1.0, "done", out)
    return out


def view_agreement(
    views: Sequence[View],
    labels: np.ndarray,
    n_clusters: int,
    *,
    weights: Sequence[float] | np.ndarray | None = None,
    observed: np.ndarray | None = None,
    seed: int = 0,
    view_names: Sequence[str] | None = None,
) -> ViewAgreement:
    """:func:`view_agreement_steps` run to its end."""
    steps = view_agreement_steps(
        views, labels, n_clusters, weights=weights, observed=observed, seed=seed,
        view_names=view_names,
    )  # fmt: skip
    return drain(steps)


def view_agreement_csv_text(va: ViewAgreement) -> str:
    """One row per view: ari, nmi, weight (empty when the run learns none), the samples that
    have the view and the share of them whose view-alone cluster matches the result."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(("view", "ari", "nmi", "weight", "n_observed", "agreeing_share"))
    for v, name in enumerate(va.view_names):
        weight = "" if va.weights is None else f"{va.weights[v]:.6g}"
        share = va.agree[v].sum() / va.n_observed[v] if va.n_observed[v] else float("nan")
        w.writerow([name, f"{va.ari[v]:.6g}", f"{va.nmi[v]:.6g}", weight, int(va.n_observed[v]),
                    f"{share:.6g}"])  # fmt: skip
    return buf.getvalue()


def write_view_agreement_csv(path: str | os.PathLike[str], va: ViewAgreement) -> Path:
    """:func:`view_agreement_csv_text` written atomically."""
    return atomic_write(path, view_agreement_csv_text(va))
