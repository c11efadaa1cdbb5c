"""No empty clusters: a method asked for k clusters returns k, whatever its own updates did.

Most methods keep every cluster by construction (k-means restarts, DTLL's per-iteration
repair, FMDC's balancing), but a discrete update can still end with a cluster nobody
chose (a 40-sample, 5-group table once gave DTLL sizes 25, 13, 1, 1 and an empty fifth).
The base solver calls :func:`fill_empty_clusters` on every final labelling: each empty
cluster takes the smaller half of a 2-means split of the currently largest cluster, in the
views themselves (each view scaled to unit RMS over the cluster, so no view dominates by
its units; at most ``PROJECTED_DIMS`` random projections of each, so the cost stays
O(members x d)). Only labelings with an empty cluster change, so every reproduction of an
authors' code is untouched.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from core.data.blocks import is_source

__all__ = ["fill_empty_clusters"]

#: columns kept per view for the split (a seeded Gaussian projection of wider views)
PROJECTED_DIMS = 32
#: at most this many members (a seeded subset) are read for a split
SPLIT_ROWS = 20_000


def _view_rows(x: object, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray | None:
    """The rows of one view, projected to at most PROJECTED_DIMS columns and scaled to unit
    RMS; None for a view read in row blocks (not read again for a repair)."""
    if is_source(x):
        return None
    block = x[rows]
    d = block.shape[1]
    if d > PROJECTED_DIMS:
        proj = rng.standard_normal((d, PROJECTED_DIMS)) / np.sqrt(PROJECTED_DIMS)
        block = block @ proj
    block = block.toarray() if sp.issparse(block) else np.asarray(block, dtype=np.float64)
    block = block - block.mean(axis=0)
    rms = np.sqrt(np.mean(block * block))
    return block / rms if rms > 0 else block


def _split(
    views: Sequence[object], members: np.ndarray, observed: np.ndarray | None, seed: int
) -> np.ndarray:
    """The members that form the new cluster: the smaller side of a 2-means split."""
    from core.numerics.kmeans import kmeans_labels  # scikit-learn: only when a repair is due

    rng = np.random.default_rng(seed)
    keep = [v for v in range(len(views)) if observed is None or observed[members, v].all()]
    parts = [_view_rows(views[v], members, rng) for v in keep]
    parts = [p for p in parts if p is not None]
    if not parts:  # nothing readable in memory: the last member alone
        return members[-1:]
    feats = np.hstack(parts)
    if not np.any(feats):  # identical rows (centred to 0): split by position
        return members[members.size // 2 :]
    halves = kmeans_labels(feats, 2, rng, n_init=4, normalize=False)
    if np.unique(halves).size < 2:
        return members[members.size // 2 :]
    small = int(np.argmin(np.bincount(halves, minlength=2)))
    return members[halves == small]


def fill_empty_clusters(
    labels: np.ndarray,
    n_clusters: int,
    views: Sequence[object],
    observed: np.ndarray | None = None,
    seed: int | None = 0,
) -> tuple[np.ndarray, list[str]]:
    """``labels`` with every cluster 0..n_clusters-1 non-empty, and one note per repair.

    ``views`` are the solver's input (rows = samples); ``observed`` (n x V) marks which
    sample has which view: a split uses only the views every member of the cluster has.
    Labels are returned unchanged (the same array) when no cluster is empty or there are
    fewer samples than clusters."""
    labels = np.asarray(labels)
    n = labels.size
    counts = np.bincount(labels, minlength=n_clusters)
    if n < n_clusters or counts[:n_clusters].all():
        return labels, []
    out = labels.astype(np.int64, copy=True)
    notes = []
    base = 0 if seed is None else int(seed)
    for empty in np.flatnonzero(counts[:n_clusters] == 0):
        donor = int(np.argmax(counts))
        members = np.flatnonzero(out == donor)
        if members.size < 2:
            break
        if members.size > SPLIT_ROWS:  # read a seeded subset; the split keeps its share
            pick = np.random.default_rng(base + int(empty)).choice(members, SPLIT_ROWS, False)
            moved = np.sort(_split(views, np.sort(pick), observed, base + int(empty)))
        else:
            moved = _split(views, members, observed, base + int(empty))
        out[moved] = empty
        counts[donor] -= moved.size
        counts[empty] += moved.size
        notes.append(
            f"cluster {int(empty) + 1} was empty: it took {moved.size} of the "
            f"{members.size} samples of cluster {donor + 1} (a 2-means split)"
        )
    return out, notes
