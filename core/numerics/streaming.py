"""Anchor and graph passes over views read in row blocks (out-of-core data).

A view given as a :class:`core.data.blocks.RowBlockSource` is never held whole: each pass
below sweeps its row blocks once. BKHK on such views always partitions the 64-dim sketch
(one pass), so the anchors take two passes (sketch, then group means) and the PKN anchor
graph one pass per view. For in-memory views :func:`anchor_steps` and :func:`graph_steps`
hand over to ``core.numerics.anchors`` / ``core.numerics.graphs`` unchanged, so a solver
calls these two and works on both.

With the same seed the streamed path gives the same anchors and graph as the in-memory
path with ``space="sketch"`` (same random draws, same kernels; only BLAS blocking differs).
"""

from __future__ import annotations

import logging
from collections.abc import Generator, Sequence

import numpy as np
import scipy.sparse as sp

from core.data.blocks import is_source
from core.numerics.anchors import SKETCH_DIM, bkhk_steps
from core.numerics.graphs import (
    clip_neighbors,
    pkn_anchor_graph_steps,
    pkn_refiner,
    row_sq_norms,
)
from core.numerics.jit.graph import pkn_rows

__all__ = [
    "anchor_steps",
    "graph_steps",
    "stream_bkhk_steps",
    "stream_group_means",
    "stream_pkn_graph_steps",
    "stream_sketch",
    "streamed",
]

log = logging.getLogger(__name__)

#: bytes of one sub-block's rows x m anchor products (float32 and float64 copies)
GRAM_BYTES = 16 << 20


def streamed(views: Sequence[object]) -> bool:
    """Whether any view is read in row blocks."""
    return any(is_source(x) for x in views)


def stream_sketch(sources: Sequence, dim: int, rng: np.random.Generator) -> np.ndarray:
    """The n x ``dim`` Gaussian sketch of the concatenated views, one pass per view.

    Draws the same projection matrices, in the same order, as
    ``core.numerics.anchors.sketch_views``.
    """
    out = np.zeros((sources[0].shape[0], dim))
    for x in sources:
        r = rng.standard_normal((x.shape[1], dim)) / np.sqrt(dim)
        r_block = r.astype(x.compute_dtype)
        for start, stop, block in x.blocks():
            out[start:stop] += block @ r_block
    return out


def stream_group_means(sources: Sequence, groups: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Per-view means of the rows of each group (m x d_v each), one pass per view."""
    n, m = sources[0].shape[0], len(groups)
    owner = np.full(n, -1, dtype=np.int64)  # -1: in no group (a tree built on a subsample)
    for j, g in enumerate(groups):
        owner[g] = j
    sizes = np.bincount(owner[owner >= 0], minlength=m).astype(np.float64)
    out = []
    for x in sources:
        acc = np.zeros((m, x.shape[1]))
        for start, stop, block in x.blocks():
            part = owner[start:stop]
            mine = np.flatnonzero(part >= 0)
            avg = sp.csr_matrix((np.ones(mine.size), (part[mine], mine)), shape=(m, stop - start))
            acc += avg @ block
        out.append(acc / np.maximum(sizes, 1)[:, None])
    return out


def stream_bkhk_steps(
    sources: Sequence,
    n_anchors: int,
    rng: np.random.Generator,
    max_iter: int = 100,
    sample: int | None = None,
) -> Generator[float, None, tuple[list[np.ndarray], list[np.ndarray]]]:
    """BKHK on row-block views: groups on the sketch, anchors = group means (3 passes).

    ``sample``: the tree is built on that many random rows of the sketch (see
    :func:`bkhk_steps`; a serial tree on all rows of a 1M sketch took ~100 s)."""
    sketch = stream_sketch(sources, SKETCH_DIM, rng)
    yield 0.05
    gen = bkhk_steps([sketch], n_anchors, rng, max_iter=max_iter, space="full", sample=sample)
    try:
        while True:
            yield 0.05 + 0.85 * next(gen)
    except StopIteration as stop:
        _, groups = stop.value
    del sketch
    anchors = stream_group_means(sources, groups)
    yield 1.0
    return anchors, groups


def stream_pkn_graph_steps(
    source, anchors: np.ndarray, k: int
) -> Generator[float, None, sp.csr_matrix]:
    """The PKN anchor graph of a row-block view (one pass); yields the fraction done."""
    n, m = source.shape[0], anchors.shape[0]
    if m == 1:
        yield 1.0
        return sp.csr_matrix(np.ones((n, 1)))
    k_eff = clip_neighbors(k, m)
    anchors = np.ascontiguousarray(anchors, dtype=np.float64)
    anchor_sq = row_sq_norms(anchors)
    idx = np.empty((n, k_eff), dtype=np.int64)
    val = np.empty((n, k_eff), dtype=np.float64)
    # float32 data: the product in float32 (the floor of the pass), distances in float64
    anchors_t = np.ascontiguousarray(anchors.T, dtype=source.compute_dtype)
    # a read block is large (few reads of HDF5 chunks); its rows x m products are taken a
    # few MB at a time: a whole block's (rows x 1024 float64) product took 0.7 GB at 200k
    sub = max(1, GRAM_BYTES // (12 * m))
    # as in memory: below float64 the k + 1 selected distances are recomputed in float64
    refine = pkn_refiner(source.compute_dtype, anchors, row_sq_norms(anchors_t.T), k_eff)
    for start, stop, block in source.blocks():
        for a in range(0, stop - start, sub):
            part = block[a : a + sub]
            lo, hi = start + a, start + a + part.shape[0]
            if refine is not None:
                refine(part, np.ascontiguousarray(part @ anchors_t), idx[lo:hi], val[lo:hi])
                continue
            gram = np.asarray(part @ anchors_t, dtype=np.float64)
            sq = row_sq_norms(part).astype(np.float64)
            idx[lo:hi], val[lo:hi] = pkn_rows(gram, sq, anchor_sq, k_eff)
        yield stop / n
    indptr = np.arange(0, n * k_eff + 1, k_eff, dtype=np.int64)
    z = sp.csr_matrix((val.ravel(), idx.ravel(), indptr), shape=(n, m))
    z.eliminate_zeros()
    return z


def anchor_steps(
    views: Sequence,
    n_anchors: int,
    rng: np.random.Generator,
    space: str = "auto",
    sample: int | None = None,
) -> Generator[float, None, tuple[list[np.ndarray], list[np.ndarray]]]:
    """BKHK anchors, streamed when any view is a row-block source (always on the sketch).

    ``sample``: rows the tree is built on (see :func:`bkhk_steps`)."""
    if not streamed(views):
        return (yield from bkhk_steps(views, n_anchors, rng, space=space, sample=sample))
    if space == "full":
        log.warning("views read in row blocks: BKHK partitions the sketch, not the full space")
    from core.data.blocks import ArraySource

    sources = [x if is_source(x) else ArraySource(x) for x in views]
    return (yield from stream_bkhk_steps(sources, n_anchors, rng, sample=sample))


def graph_steps(
    x, anchors: np.ndarray, k: int, mixed: bool = False
) -> Generator[float, None, sp.csr_matrix]:
    """The PKN anchor graph of ``x``, streamed when ``x`` is a row-block source. ``mixed``:
    float32 screening of in-memory float64 views (see ``pkn_anchor_graph_steps``)."""
    if is_source(x):
        return (yield from stream_pkn_graph_steps(x, anchors, k))
    return (yield from pkn_anchor_graph_steps(x, anchors, k, mixed))
