"""Explaining a group at scale: 100,000 samples x 5,000 features (issue 26).

Times what the Analysis workbench and ``mvc explain`` compute for a selection, each step
printed with its target:

* the selection's composition (by cluster and by 5 metadata columns), target <= 1 s;
* the first comparison table (``compare_steps``' first yield: means and Cohen's d of every
  feature), target <= 1 s;
* the full statistics (AUC, Mann-Whitney p, BH q of every feature), target <= 10 s;
* the association table (the clusters against 3 categorical and 2 numeric columns, one
  categorical column with a rare value so its p-value comes from permutations, one numeric
  column with missing values), target <= 10 s; and the worst case of a numeric column: a
  cluster of 3 samples, whose Kruskal-Wallis p-value comes from permuting all the ranks;
* view agreement: each view clustered alone (no target in the issue; ``mvc explain`` runs it).

The data: two sparse count views (4,000 + 1,000 features, 1 % density: 5,000,000 stored
values, as benchmarks/profiles.py; a dense float32 100,000 x 5,000 view would hold 2 GB and
its ranks take minutes: such a wide view is a text/count view in practice), 10 clusters, a
selection of 20,000 samples with 20 features planted higher and 20 lower in it, and 5 % of
the samples missing the second view. Printed: each time, the largest gap between two
progress yields (what a worker thread hands the window), the longest pause of this thread
while the comparison runs in another one (its hold on the GIL, plus the machine's load: the
same ticker beside a worker that only sleeps gives the load's share), and the peak memory
(ru_maxrss).

With ``--dense`` the views are dense float32 (2 GB at full size: a gene-expression table),
the features planted the same way; the rank statistics then use a seeded row subsample
(core.numerics.profiles.DENSE_RANK_VALUES), the means every row.

    python benchmarks/explain_scale.py [--n 100000] [--d 5000] [--clusters 10] [--dense]
"""

from __future__ import annotations

import argparse
import resource
import threading
import time

import numpy as np
import scipy.sparse as sp

from core.analysis.association import associate_steps
from core.analysis.compare import compare_steps
from core.analysis.groups import composition
from core.analysis.view_agreement import view_agreement_steps
from core.numerics.steps import drain


def _data(n: int, d: int, clusters: int, seed: int = 0, dense: bool = False):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, clusters, n)
    selection = np.sort(rng.choice(n, n // 5, replace=False))
    widths = (d * 4 // 5, d - d * 4 // 5)
    views = []
    for w in widths if not dense else ():
        x = sp.random(n, w, density=0.01, format="csr", random_state=rng,
                      data_rvs=lambda k: rng.poisson(2.0, k) + 1.0)  # fmt: skip
        views.append(x)
    if dense:
        views = [rng.standard_normal((n, w), dtype=np.float32) for w in widths]
        views[0][selection, :20] += 0.5  # higher in the selection
        views[0][:, 20:40] += 0.5
        views[0][selection, 20:40] -= 0.5  # lower in the selection
        return views, labels, selection, _observed(rng, n), _columns(rng, n, labels)
    planted = sp.lil_matrix((n, widths[0]))
    planted[selection[:, None], np.arange(20)] = 3.0  # higher in the selection
    views[0] = (views[0] + planted.tocsr()).tocsr()
    lower = np.arange(20, 40)
    dense_low = views[0][:, lower].toarray()
    dense_low[np.setdiff1d(np.arange(n), selection)] += 3.0  # lower in the selection
    views[0] = sp.hstack([views[0][:, :20], sp.csr_matrix(dense_low), views[0][:, 40:]]).tocsr()
    return views, labels, selection, _observed(rng, n), _columns(rng, n, labels)


def _observed(rng: np.random.Generator, n: int) -> np.ndarray:
    observed = np.ones((n, 2), dtype=bool)
    observed[rng.choice(n, n // 20, replace=False), 1] = False
    return observed


def _columns(rng: np.random.Generator, n: int, labels: np.ndarray) -> dict:
    return {
        "batch": rng.choice(np.array(["b1", "b2", "b3", "b4"]), n),
        "tissue": np.array(["liver", "gut", "skin"])[labels % 3],
        "rare": np.where(rng.random(n) < 2e-4, "rare", "common"),
        "age": rng.normal(50, 10, n) + labels,
        "score": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n)),
    }


def _timed(steps):
    """(seconds to the first yield, seconds to the end, largest gap between yields, result)."""
    t0 = last = time.perf_counter()
    first, gap = None, 0.0
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            end = time.perf_counter()
            return first, end - t0, max(gap, end - last), stop.value
        now = time.perf_counter()
        first = now - t0 if first is None else first
        gap, last = max(gap, now - last), now


def _main_thread_gap(work) -> float:
    """Seconds of the longest pause of a 2 ms ticker in this thread while ``work`` runs in
    another one (what a window's event loop would feel: the worker's hold on the GIL, and
    the machine's load)."""
    done = threading.Event()
    worker = threading.Thread(target=lambda: (work(), done.set()))
    worker.start()
    worst, last = 0.0, time.perf_counter()
    while not done.is_set():
        time.sleep(0.002)
        now = time.perf_counter()
        worst, last = max(worst, now - last), now
    worker.join()
    return worst


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--d", type=int, default=5_000)
    ap.add_argument("--clusters", type=int, default=10)
    ap.add_argument("--dense", action="store_true", help="dense float32 views (2 GB)")
    a = ap.parse_args()
    t = time.perf_counter()
    views, labels, selection, observed, columns = _data(a.n, a.d, a.clusters, dense=a.dense)
    kind = "dense float32" if a.dense else f"sparse (nnz {sum(x.nnz for x in views):,})"
    print(f"data: {a.n:,} samples, views {[x.shape[1] for x in views]} {kind}, "
          f"{a.clusters} clusters, selection {selection.size:,}; made in "
          f"{time.perf_counter() - t:.1f} s")  # fmt: skip

    t = time.perf_counter()
    comp = composition(selection, labels, columns)
    comp_s = time.perf_counter() - t
    print(f"composition: {comp_s:.3f} s (target 1 s): {len(comp.by_cluster)} clusters, "
          f"{len(comp.by_column)} columns")  # fmt: skip

    steps = compare_steps(views, selection, observed=observed)
    first, full, gap, tables = _timed(steps)
    sig = [int(tb.significant().sum()) for tb in tables]
    print(f"first comparison table (effect sizes): {first:.3f} s (target 1 s)")
    print(f"full statistics (AUC, p, q): {full:.3f} s (target 10 s); largest gap between "
          f"progress yields {gap:.3f} s; q < 0.05 per view {sig}, rank rows "
          f"{[tb.rank_samples for tb in tables]} "
          "(40 planted in view 1)")  # fmt: skip

    first, full, gap, rows = _timed(associate_steps(labels, columns))
    print(f"association table ({len(rows)} columns): {full:.3f} s (target 10 s); largest gap "
          f"{gap:.3f} s")  # fmt: skip
    for r in rows:
        print(f"  {r.column}: {r.test}, {r.effect_name} {r.effect:.3g}, p {r.p:.3g} ({r.p_method})")
    gap = _main_thread_gap(lambda: drain(compare_steps(views, selection, observed=observed)))
    idle = _main_thread_gap(lambda: time.sleep(3.0))
    print(f"comparison in a worker thread: the main thread's longest pause {gap * 1e3:.0f} ms "
          f"(beside a worker that only sleeps 3 s: {idle * 1e3:.0f} ms)")  # fmt: skip
    full, gap = _timed(view_agreement_steps(views, labels, a.clusters, observed=observed))[1:3]
    print(f"view agreement (each view clustered alone, {a.clusters} clusters): {full:.3f} s; "
          f"largest gap {gap:.3f} s")  # fmt: skip
    tiny = labels.copy()
    tiny[:3] = a.clusters  # a cluster of 3 samples: Kruskal-Wallis p from permutations
    t = time.perf_counter()
    worst = associate_steps(tiny, {"age": columns["age"]})
    _, full, gap, rows = _timed(worst)
    print(f"worst case, a cluster of 3 samples (Kruskal-Wallis by permutation of all "
          f"{a.n:,} ranks): {full:.3f} s; p {rows[0].p:.3g} ({rows[0].p_method})")  # fmt: skip
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"peak memory (ru_maxrss): {peak:.2f} GB")


if __name__ == "__main__":
    main()
