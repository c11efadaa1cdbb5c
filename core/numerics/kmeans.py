"""k-means on the rows of an embedding: seeded restarts, a subsample above 20k rows.

One implementation for every method (common spec §7). Each restart is a single seeded
k-means run on one thread (many small runs on a 2-core machine were 50x slower with
scikit-learn's default threads: 50 starts on 2000 x 10, 5.1 s against 0.10 s) and the
lowest inertia wins. Every run uses Elkan's algorithm: Lloyd's iterations and fixed
point, skipping distances the triangle inequality rules out (ALPC's Zᵀ, 20k x 100: the same
iterations and inertia, 1.6x faster; 100k x 100: 1.3x). Above ``subsample`` rows the
restarts run on a random subsample of that size and the best centres are refined by one
run on all rows, with all threads: the cost stays linear in n with one full run instead of
``n_init`` (restarts on poorly separated embeddings need 100+ iterations each: ALPC's
k-means was 53 s of 68 s at n = 100k). ``restart_rows`` shrinks the restarts' subsample
further for callers with many restarts (:func:`restart_size`): the restarts only choose the
basin, and the full run moves the centres to the fixed point on all rows.
"""

from __future__ import annotations

from collections.abc import Generator
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from sklearn.cluster import KMeans

from core.numerics.linalg import row_normalize
from core.numerics.steps import drain
from core.numerics.threads import blas_threads, single_threaded

__all__ = ["kmeans_labels", "kmeans_steps", "restart_size"]

#: rows per cluster in the restarts' subsample of :func:`restart_size`
RESTART_ROWS_PER_CLUSTER = 500


def restart_size(n_clusters: int) -> int:
    """Rows for the restarts above ``subsample`` rows: 500 per cluster, at least 5000.

    ALPC's Zᵀ at n = 100k (20 restarts, 2 seeds, CPU time): restarts on 5000 rows, the best
    refined on 20k rows, then on all rows took 1.4-1.6 s against 3.9 s (λ1 = 100) and
    0.7-0.9 s against 2.2 s (automatic λ1), with the same inertia within 2e-4 and ACC
    (0.608-0.613 against 0.607-0.614; 0.915 both)."""
    return max(5000, RESTART_ROWS_PER_CLUSTER * int(n_clusters))


def kmeans_steps(
    x: np.ndarray,
    n_clusters: int,
    rng: np.random.Generator,
    *,
    n_init: int = 10,
    init: str = "k-means++",
    max_iter: int = 100,
    subsample: int = 20_000,
    restart_rows: int | None = None,
    threads: int | None = None,
) -> Generator[float, None, tuple[np.ndarray, float]]:
    """``n_init`` seeded k-means runs on the rows of ``x`` (lowest inertia wins), yielding the
    fraction done between runs so a consumer can cancel; returns ``(labels, inertia)``.

    Above ``subsample`` rows the restarts run on ``subsample`` random rows, or on
    ``restart_rows`` of them when that is smaller (then the best is refined on the
    ``subsample`` rows), and the best centres are refined on all rows.

    ``threads``: restarts run at a time (same runs, same winner); None: the BLAS threads'
    count with ``restart_rows`` above ``subsample`` rows, else one (FMDC asks for all threads
    at every size: its 10 starts are a fixed cost that does not shrink with n).

    ``init="random"`` starts from c random samples, as the authors' litekmeans (used by the
    paper-protocol benchmarks; BBCSport with ALPC: ACC 0.927 ± 0.021 over 10 seeds against
    0.936 ± 0.004 with k-means++)."""
    n = x.shape[0]
    big = n > subsample
    sample = x
    stages: list[np.ndarray] = []  # the row sets the best restart is refined on, then all rows
    if big:
        pick = rng.choice(n, subsample, replace=False)
        sample = x[np.sort(pick)]
        if restart_rows is not None and restart_rows < subsample:
            # the restarts on fewer rows; their best refined on ``subsample`` rows first: on
            # poorly separated data that run converges at a fifth of the full run's cost and
            # leaves the full run a few iterations (ALPC's Zᵀ, 100k: 41 instead of 90)
            stages.append(sample)
            sample = x[np.sort(pick[:restart_rows])]
    seeds = [int(rng.integers(2**31 - 1)) for _ in range(n_init)]  # the serial loop's draws

    def restart(seed: int) -> KMeans:
        km = KMeans(
            n_clusters, init=init, n_init=1, max_iter=max_iter, random_state=seed, algorithm="elkan"
        )
        with single_threaded():  # in each thread: OpenMP's thread count is per thread
            return km.fit(sample)

    # with ``restart_rows`` (above 20k rows) the restarts run in parallel batches, one per
    # BLAS thread, each single-threaded as before: same runs, same winner, half the wall time
    # on 2 cores (they were the serial part of ALPC's postprocess at 100k)
    width = blas_threads() if big and restart_rows is not None else 1
    width = width if threads is None else max(1, threads)
    best: KMeans | None = None
    for first in range(0, n_init, width):
        batch = seeds[first : first + width]
        with single_threaded():  # entered between yields only
            if len(batch) == 1:
                runs = [restart(batch[0])]
            else:
                with ThreadPoolExecutor(len(batch)) as pool:
                    runs = list(pool.map(restart, batch))
        for km in runs:
            if best is None or km.inertia_ < best.inertia_ * (1 - 1e-12):
                best = km
        yield (first + len(batch)) / (n_init + big)
    assert best is not None
    if not big:
        return np.asarray(best.labels_, dtype=np.int64), float(best.inertia_)
    centres = best.cluster_centers_
    for rows in stages:
        with single_threaded():
            centres = _refined(rows, centres, max_iter).cluster_centers_
    full = _refined(x, centres, max_iter)
    yield 1.0
    return np.asarray(full.labels_, dtype=np.int64), float(full.inertia_)


def _refined(x: np.ndarray, centres: np.ndarray, max_iter: int) -> KMeans:
    """One k-means run on ``x`` from ``centres``."""
    return KMeans(
        centres.shape[0], init=centres, n_init=1, max_iter=max_iter, algorithm="elkan"
    ).fit(x)


def kmeans_labels(
    f: np.ndarray,
    n_clusters: int,
    rng: np.random.Generator,
    *,
    n_init: int = 10,
    normalize: bool = True,
    max_iter: int = 100,
    subsample: int = 20_000,
    threads: int | None = None,
) -> np.ndarray:
    """Labels of :func:`kmeans_steps` on the rows of ``f``, row-normalised first by default."""
    steps = kmeans_steps(
        row_normalize(f) if normalize else f,
        n_clusters,
        rng,
        n_init=n_init,
        max_iter=max_iter,
        subsample=subsample,
        threads=threads,
    )
    return drain(steps)[0]
