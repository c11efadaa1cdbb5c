"""Anchor selection: k-means++ seeding, BKHK balanced hierarchical 2-means, random samples.

BKHK works on several views at once without concatenating them (which would double the
memory): every per-row dot product and group mean is gathered per view by a kernel.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from core.data.dataset import View
from core.numerics.graphs import block_rows, row_sq_norms
from core.numerics.jit.graph import (
    balanced_split_level,
    gather_csr_dot,
    gather_csr_mean,
    gather_dense_dot,
    gather_dense_mean,
    seed_gaps,
)
from core.numerics.threads import blas_single, blas_threads

__all__ = [
    "bkhk_steps",
    "effective_anchor_count",
    "group_means",
    "kmeanspp_seeds",
    "pca_sketch",
    "two_seeds",
]


def effective_anchor_count(requested: int | None, n: int, c: int = 2) -> int:
    """m = 2^p: the requested count snapped to the nearest power of 2, at most n/2.

    None: the paper's rule (128 below 5000 samples, else 1024) raised to 8 anchors per
    cluster, so that many small clusters still own several anchors each (docs/defaults.md).
    """
    m = max(128 if n < 5000 else 1024, 8 * c) if requested is None else requested
    p = int(np.clip(round(np.log2(max(m, 2))), 1, np.floor(np.log2(max(n // 2, 2)))))
    return 2**p


def _dot(x: View, rows: np.ndarray, w: np.ndarray) -> np.ndarray:
    if sp.issparse(x):
        return gather_csr_dot(x.indptr, x.indices, x.data, rows, w)
    return gather_dense_dot(x, rows, w)


def _mean(x: View, rows: np.ndarray) -> np.ndarray:
    if sp.issparse(x):
        return gather_csr_mean(x.indptr, x.indices, x.data, x.shape[1], rows)
    return gather_dense_mean(x, rows)


def _row(x: View, i: int) -> np.ndarray:
    return x[i].toarray().ravel() if sp.issparse(x) else np.asarray(x[i], dtype=np.float64)


def kmeanspp_seeds(
    views: Sequence[View],
    rows: np.ndarray,
    k: int,
    rng: np.random.Generator,
    sq: Sequence[np.ndarray] | None = None,
) -> np.ndarray:
    """k-means++ seeding on the concatenated views restricted to ``rows``; returns row ids."""
    sq = sq or [row_sq_norms(x) for x in views]
    first = int(rows[rng.integers(rows.size)])
    chosen = [first]
    closest = np.full(rows.size, np.inf)
    for _ in range(1, k):
        c = chosen[-1]
        d = np.zeros(rows.size)
        for x, s in zip(views, sq, strict=True):
            cx = _row(x, c)
            d += s[rows] + s[c] - 2 * _dot(x, rows, cx)
        closest = np.minimum(closest, np.maximum(d, 0))
        total = closest.sum()
        pick = rng.integers(rows.size) if total <= 0 else rng.choice(rows.size, p=closest / total)
        chosen.append(int(rows[pick]))
    return np.asarray(chosen)


def two_seeds(
    x: np.ndarray, rows: np.ndarray, rng: np.random.Generator, sq: np.ndarray
) -> np.ndarray:
    """``kmeanspp_seeds([x], rows, 2, rng, [sq])`` for one dense matrix, draw for draw, with the
    distances in one kernel call: BKHK seeds 1023 splits for 1024 anchors, and the general
    function's per-call overhead was 0.15 s of CPU at n = 10k (0.3x the fit's BLAS floor)."""
    first = int(rows[rng.integers(rows.size)])
    closest = seed_gaps(x, rows, first, sq)
    total = closest.sum()
    pick = rng.integers(rows.size) if total <= 0 else rng.choice(rows.size, p=closest / total)
    return np.array([first, int(rows[pick])])


def _balanced_2means(
    views: Sequence[View],
    rows: np.ndarray,
    rng: np.random.Generator,
    sq: Sequence[np.ndarray],
    max_iter: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Split rows into two halves (sizes floor(n/2), ceil(n/2)) by balanced 2-means."""
    seeds = kmeanspp_seeds(views, rows, 2, rng, sq)
    centers = [[_row(x, s) for x in views] for s in seeds]
    half = rows.size // 2
    order = None
    for _ in range(max_iter):
        q = np.zeros(rows.size)
        for v, x in enumerate(views):
            c0, c1 = centers[0][v], centers[1][v]
            q += 2 * _dot(x, rows, c1 - c0) + c0 @ c0 - c1 @ c1
        new = np.argsort(q, kind="stable")
        if order is not None and np.array_equal(np.sort(new[:half]), np.sort(order[:half])):
            break
        order = new
        g0, g1 = rows[order[:half]], rows[order[half:]]
        centers = [[_mean(x, g0) for x in views], [_mean(x, g1) for x in views]]
    assert order is not None
    return rows[order[:half]], rows[order[half:]]


SKETCH_DIM = 64  # 128 cost 2x the BKHK time at n = 100k for the same ACC (docs/methods/fmdc.md)
SKETCH_ABOVE = 50_000_000  # stored entries up to which full-space BKHK concatenates views


def sketch_views(views: Sequence[View], dim: int, rng: np.random.Generator) -> np.ndarray:
    """Gaussian random projection of the concatenated views to ``dim`` columns (n x dim).

    Squared distances are preserved to about ±sqrt(8/dim) (Johnson-Lindenstrauss), computed
    view by view so the concatenation is never formed.
    """
    total = sum(x.shape[1] for x in views)
    out = np.zeros((views[0].shape[0], dim), dtype=views[0].dtype)
    for x in views:
        r = rng.standard_normal((x.shape[1], dim)) / np.sqrt(dim)
        out += np.asarray(x @ r.astype(x.dtype))
    assert out.shape[1] == dim and total > 0
    return out


def _times(views: Sequence[View], factors: Sequence[np.ndarray]) -> np.ndarray:
    """Σ_v X_v F_v: the concatenated views times a stacked factor, never concatenated."""
    pairs = zip(views, factors, strict=True)
    return sum(np.asarray(x @ f.astype(x.dtype, copy=False)) for x, f in pairs)


PROJECT_BLOCK_ROWS = 4096  # rows per thread's block in :func:`_times_threaded`


def _times_threaded(views: Sequence[View], factors: Sequence[np.ndarray]) -> np.ndarray:
    """:func:`_times` over row blocks, each block on one thread with one-thread BLAS.

    A multi-threaded BLAS call leaves OpenBLAS's workers spinning for ~0.1 s after it returns
    (measured: 20-50 ms of CPU in an idle 50 ms window), which took a core from the parallel
    tree kernel that follows; explicit threads with one-thread BLAS leave nothing spinning.
    """
    n = views[0].shape[0]
    out = np.empty((n, factors[0].shape[1]), dtype=np.result_type(views[0].dtype, np.float32))

    def block(start: int) -> None:
        part = [x[start : start + PROJECT_BLOCK_ROWS] for x in views]
        out[start : start + PROJECT_BLOCK_ROWS] = _times(part, factors)

    threads = blas_threads()
    with blas_single(), ThreadPoolExecutor(threads) as pool:
        list(pool.map(block, range(0, n, PROJECT_BLOCK_ROWS)))
    return out


def pca_sketch(
    views: Sequence[View],
    dim: int,
    rng: np.random.Generator,
    oversample: int = 16,
    power_iter: int = 1,
    sample: int = 4096,
) -> np.ndarray:
    """Coordinates of the rows on the top ``dim`` (uncentred) principal directions of the
    concatenated views (n x dim). The directions come from a randomized range finder with
    one power iteration (Halko, Martinsson, Tropp 2011, Alg. 4.4) on at most ``sample``
    random rows; then one BLAS pass projects every row (the range finder on all rows of
    n = 100k cost as much as the BLAS floor of FMDC's graph stage; on 20k rows it was still
    about 0.8 s of FMDC's 2.2 s CPU time at n = 10k. FMDC on Hdigit, seeds 0-4: ACC 0.9898
    with 20k rows, 0.9896 with 4096, 0.9894 with 2048).

    Unlike a Gaussian projection, which distorts every distance by about ±sqrt(8/dim), it
    keeps the directions that carry the clusters: FMDC with m = 1024, 4 seeds, Hdigit ACC
    0.9891 (full space 0.9899, Gaussian 64 dims 0.9872), Handwritten 0.9705 (0.9683, 0.9657).
    sklearn's ``randomized_svd`` needs the concatenated matrix, which would double memory.
    """
    n = views[0].shape[0]
    rows = np.sort(rng.choice(n, sample, replace=False)) if n > sample else slice(None)
    part = [x[rows] for x in views]
    k = min(dim + oversample, min(part[0].shape[0], sum(x.shape[1] for x in views)))

    def transposed(q: np.ndarray) -> list[np.ndarray]:  # Xᵀ Q, view by view (d_v x k each)
        return [np.asarray(x.T @ q.astype(x.dtype, copy=False)) for x in part]

    def orthonormal(y: np.ndarray) -> np.ndarray:
        return scipy.linalg.qr(y, mode="economic", check_finite=False)[0]

    # one thread: multi-threaded QR of an n x 80 block (and SVD of 80 x d) was 10x slower on a
    # busy 2-core machine (30k rows: 2.2 s against 0.2 s), and multi-threaded products leave
    # OpenBLAS's workers spinning (see _times_threaded)
    with blas_single():
        q = orthonormal(_times(part, [rng.standard_normal((x.shape[1], k)) for x in views]))
        for _ in range(power_iter):  # each squares the singular values: sharper directions
            q = orthonormal(_times(part, transposed(q)))
        b = np.vstack(transposed(q))  # Bᵀ = Xᵀ Q, d x k
        _, _, vt = scipy.linalg.svd(b.T, full_matrices=False, check_finite=False)
    directions = np.split(vt[:dim].T, np.cumsum([x.shape[1] for x in views])[:-1])
    return _times_threaded(views, directions)


PCA_ABOVE = 5_000_000  # stored entries above which "auto" partitions the PCA sketch


def use_sketch(views: Sequence[View], mode: str) -> str | None:
    """Which sketch BKHK partitions: None (the full features), "sketch" (Gaussian) or "pca".

    "auto": the PCA sketch above PCA_ABOVE stored values when the views have more than
    2 x SKETCH_DIM columns (full-space splits cost ~20 passes over the data per tree level:
    6.4x the BLAS floor of FMDC at n = 30k); below that, the full features.
    """
    if mode == "auto":
        stored = sum(x.nnz if sp.issparse(x) else x.size for x in views)
        wide = sum(x.shape[1] for x in views) > 2 * SKETCH_DIM
        return "pca" if stored > PCA_ABOVE and wide else None
    return mode if mode in ("sketch", "pca") else None


def exact_partition_space(views: Sequence[View]) -> list[View]:
    """Where BKHK partitions without approximation: the concatenated views when they are dense
    and hold at most SKETCH_ABOVE values, so that a whole tree level is one parallel kernel
    call (per-group Python gathers cost 3.2 s of FMDC's 4.1 s at n = 10k); else the views
    themselves (per-view gathers, no copy). The geometry is the same (distances up to rounding).

    An n x n sample-space embedding (E Eᵀ = Σ X_v X_vᵀ) for wide data was tried: forming the
    Gram matrix costs n²·d, more than all of BKHK (about 35 n·d) in the concatenated space.
    """
    dense = not any(sp.issparse(x) for x in views)
    stored = sum(x.shape[0] * x.shape[1] for x in views)
    if dense and len(views) > 1 and stored <= SKETCH_ABOVE:
        return [np.hstack(views)]  # a temporary copy of at most SKETCH_ABOVE values
    return list(views)


def _split_level(
    x: np.ndarray,
    groups: list[np.ndarray],
    rng: np.random.Generator,
    sq: Sequence[np.ndarray],
    max_iter: int,
) -> list[np.ndarray]:
    """Split every group of one level in halves with one call of the level kernel."""
    seeds = np.array([two_seeds(x, g, rng, sq[0]) for g in groups])
    rows = np.concatenate(groups)
    offsets = np.concatenate([[0], np.cumsum([g.size for g in groups])])
    order = balanced_split_level(x, rows, offsets, seeds[:, 0], seeds[:, 1], max_iter)
    out = []
    for g, lo in zip(groups, offsets[:-1], strict=True):
        local = order[lo : lo + g.size]
        half = g.size // 2
        out += [g[local[:half]], g[local[half:]]]
    return out


def bkhk_steps(
    views: Sequence[View],
    n_anchors: int,
    rng: np.random.Generator,
    max_iter: int = 100,
    space: str = "full",
    sample: int | None = None,
    level_groups: list[list[np.ndarray]] | None = None,
) -> Generator[float, None, tuple[list[np.ndarray], list[np.ndarray]]]:
    """BKHK (FMDC spec §4.1): ``n_anchors`` = 2^p balanced groups; yields fraction done.

    ``sample``: build the tree on that many random rows (all rows when None or >= n); the
    anchors are then the group means of those rows, and the groups hold only them.

    ``space="sketch"`` forms the groups on a 64-dim random projection of the concatenated
    views (one pass over the data instead of ~20 per level), ``space="pca"`` on their top 64
    principal directions (four passes, see :func:`pca_sketch`), "auto" as
    :func:`use_sketch` says; the anchors are always the group means in the original
    feature space. Returns (anchors per view, each m x d_v;
    the groups as row-index arrays).

    ``level_groups``: when a list, each tree level's groups are appended to it (2, 4, ...,
    ``n_anchors`` groups): the 2^L-anchor tree is the first L levels of any deeper one grown
    from the same generator, so one tree gives every coarser anchor set. Not with ``sample``.
    """
    n = views[0].shape[0]
    levels = int(np.log2(n_anchors) + 0.5)
    if 2**levels != n_anchors or n_anchors > n:
        raise ValueError(f"n_anchors must be a power of 2 and <= n, got {n_anchors} (n={n})")
    if sample is not None and n_anchors <= sample < n:
        if level_groups is not None:
            raise ValueError("level_groups is not kept for a tree grown on a row sample")
        rows = np.sort(rng.choice(n, sample, replace=False))
        part = [x[rows] for x in views]  # a copy of sample rows: bounded whatever n is
        anchors, groups = yield from bkhk_steps(part, n_anchors, rng, max_iter, space)
        return anchors, [rows[g] for g in groups]
    original = views
    sketch = use_sketch(views, space)
    if sketch is not None:
        project = pca_sketch if sketch == "pca" else sketch_views
        views = [project(views, SKETCH_DIM, rng)]
        yield 0.05
    else:
        views = exact_partition_space(views)
    sq = [row_sq_norms(x) for x in views]
    groups = [np.arange(n)]
    if len(views) == 1 and not sp.issparse(views[0]):
        # one dense matrix (a sketch, or a single view): a whole tree level per kernel call,
        # parallel over its groups (n = 100k sketch: 5.7 s of Python-driven splits before)
        for level in range(levels):
            groups = _split_level(views[0], groups, rng, sq, max_iter)
            if level_groups is not None:
                level_groups.append(groups)
            yield (level + 1) / levels
        return group_means(original, groups), groups
    done, total = 0, max(n_anchors - 1, 1)
    for _ in range(levels):
        new: list[np.ndarray] = []
        for g in groups:
            if g.size < 2:
                new += [g, g]
            else:
                new += list(_balanced_2means(views, g, rng, sq, max_iter))
            done += 1
            yield done / total
        groups = new
        if level_groups is not None:
            level_groups.append(groups)
    return group_means(original, groups), groups


def group_means(views: Sequence[View], groups: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Per-view means of the rows in each group (m x d_v each), one sparse product per view."""
    n = views[0].shape[0]
    rows = np.concatenate(groups)
    cols = np.repeat(np.arange(len(groups)), [g.size for g in groups])
    weights = np.repeat([1.0 / max(g.size, 1) for g in groups], [g.size for g in groups])
    avg = sp.csr_matrix((weights, (cols, rows)), shape=(len(groups), n))
    return [_average(avg, x) for x in views]


def _average(avg: sp.csr_matrix, x: View) -> np.ndarray:
    """avg @ x in float64. scipy casts a float32 dense operand to float64 whole (a 4.8 GB
    copy of a 1M x 600 view), so such views go in row blocks."""
    if sp.issparse(x):
        return np.asarray((avg @ x).toarray())
    if x.dtype == np.float64:
        return np.asarray(avg @ x)
    cols = avg.tocsc()
    out = np.zeros((avg.shape[0], x.shape[1]))
    step = block_rows(x.shape[0], x.shape[1])
    for start in range(0, x.shape[0], step):
        out += cols[:, start : start + step] @ x[start : start + step]
    return out
