"""Why one sample sits in its cluster: what each of its views votes for, and its neighbours.

A run keeps reference points with a cluster each (``core.numerics.assign.AnchorAssigner``:
the method's anchors or a stratified set of fitted samples, stored beside the run record for
``mvc predict``). The sample is preprocessed with the run's fitted transforms and tied to
its nearest reference points of every view by the PKN weights the prediction uses: each
view's vote shares over the clusters are those weights summed per cluster, and the run's
prediction is the weighted sum of the views' votes (the view weights when the run learned
them). A view the sample does not have casts no vote (its row of ``votes`` is NaN).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from core.data.blocks import is_source
from core.data.dataset import DataError, View
from core.records.prediction_file import PredictionModel
from core.records.runs import RunResult

__all__ = ["NEIGHBOURS", "SampleExplanation", "explain_sample"]

#: nearest reference points listed per view
NEIGHBOURS = 10


@dataclass
class SampleExplanation:
    """``votes[v]``: view v's share of its vote per cluster (NaN when the sample misses the
    view); ``weights``: each view's share in the prediction; ``predicted``: the cluster the
    votes give; ``cluster``: the run's cluster for the sample (the prediction when only a
    prediction model is given); ``neighbours[v]``: indices into view v's reference points,
    nearest first, with their clusters and Euclidean distances; ``reference``: what the
    reference points are, in words."""

    index: int
    cluster: int
    predicted: int
    votes: np.ndarray
    weights: np.ndarray
    view_names: list[str]
    neighbours: list[np.ndarray]
    neighbour_clusters: list[np.ndarray]
    distances: list[np.ndarray]
    reference: str = ""


def _row(x: View, i: int) -> View:
    """Row ``i`` of a view as a 1-row matrix (read from the blocks of a row-block view)."""
    if is_source(x):
        for start, stop, block in x.blocks():
            if start <= i < stop:
                return block[i - start : i - start + 1]
        raise DataError(f"sample {i + 1} is beyond the view's {x.shape[0]} rows")
    return x[i : i + 1]


def explain_sample(
    result: RunResult | PredictionModel,
    views: list[View],
    index: int,
    *,
    observed: np.ndarray | None = None,
    view_names: list[str] | None = None,
) -> SampleExplanation:
    """Explain sample ``index`` of the data the run was fitted on. ``views``: the data's
    views as loaded (all of them: the run's prediction model picks and preprocesses those it
    used); ``observed``: the data's (n, V) mask of which sample has which view."""
    model = result.prediction if isinstance(result, RunResult) else result
    if model is None:
        raise DataError("this run keeps no reference points: nothing to explain a sample by")
    n = int(views[0].shape[0])
    if not 0 <= index < n:
        raise DataError(f"no sample {index + 1}: the data has {n}")
    idx = model.view_indices
    if max(idx) >= len(views):
        raise DataError(f"the run used {max(idx) + 1} views; the data has {len(views)}")
    rows, seen = [], []
    for v, (i, transform) in enumerate(zip(idx, model.transforms, strict=True)):
        x = views[i]
        if x.shape[1] != model.dims[v]:
            raise DataError(
                f"view {i + 1} has {x.shape[1]} features; the run was fitted on {model.dims[v]}"
            )
        has = True if observed is None else bool(np.asarray(observed)[index, i])
        seen.append(has)
        rows.append(transform.apply(_row(x, index)) if has else None)
    assigner = model.assigner
    names = view_names
    if isinstance(result, RunResult) and result.view_names:
        names = names or list(result.view_names)
    names = list(names) if names else [f"view {i + 1}" for i in idx]
    c = assigner.n_clusters
    votes = np.full((len(assigner.anchors), c), np.nan)
    neighbours, clusters, distances, weights = [], [], [], []
    parts = zip(assigner.anchors, assigner.anchor_labels, assigner.views, assigner.weights,
                strict=True)  # fmt: skip
    for r, (ref, lab, v, w) in enumerate(parts):
        weights.append(float(w) if seen[v] else 0.0)
        if not seen[v]:
            neighbours.append(np.empty(0, dtype=np.int64))
            clusters.append(np.empty(0, dtype=np.int64))
            distances.append(np.empty(0))
            continue
        one = replace(assigner, anchors=[ref], anchor_labels=[lab], views=[v],
                      weights=np.ones(1))  # fmt: skip
        new_views = [rows[v]] * len(rows)  # scores reads position v only
        score = one.scores(new_views)[0]
        total = score.sum()
        votes[r] = score / total if total > 0 else 0.0
        point = rows[v].toarray() if sp.issparse(rows[v]) else np.asarray(rows[v])
        dense_ref = ref.toarray() if sp.issparse(ref) else np.asarray(ref)
        dist = np.sqrt(np.maximum(((dense_ref - point) ** 2).sum(axis=1), 0.0))
        usable = np.flatnonzero(np.asarray(lab) >= 0)
        order = usable[np.argsort(dist[usable], kind="stable")[:NEIGHBOURS]]
        neighbours.append(order)
        clusters.append(np.asarray(lab)[order])
        distances.append(dist[order])
    share = np.asarray(weights)
    share = share / share.sum() if share.sum() > 0 else share
    combined = np.nansum(votes * share[:, None], axis=0)
    predicted = int(np.argmax(combined))
    cluster = predicted
    if isinstance(result, RunResult):
        cluster = int(result.labels[index])
    view_of = [names[v] if v < len(names) else f"view {v + 1}" for v in assigner.views]
    return SampleExplanation(index, cluster, predicted, votes, share, view_of, neighbours,
                             clusters, distances, assigner.source)  # fmt: skip
