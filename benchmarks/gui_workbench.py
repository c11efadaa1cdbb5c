"""The analysis workbench at scale: does the window stay responsive while it compares a group
with the rest and tests every metadata column against the clusters?

The real main window (offscreen) holds 100,000 samples x 5,000 features: two sparse count
views of 4,000 + 1,000 features with 1 % stored values, as ``explain_scale.py`` and
``profiles.py`` (``--dense``: dense float32 views, 2 GB), 8 planted clusters, each higher in 10
features and lower in 10, a tenth of the samples missing the second view, and eight metadata
columns (categorical and numeric, related to the clusters or not). A result with the planted
labels is put on display, a group (two clusters and a slice of a third) is selected, Compare is
pressed, then Associate once the comparison is complete (``--together``: both at once), each
timed from its press. A 5 ms timer in the GUI thread records the longest gap between its ticks
(the stall, ``gui_responsiveness.StallMeter``; an idle process's late wake-ups at the same time
give the machine's floor, ``gui_probes.IdleProbe``), while we wait for: the first comparison
table (effect sizes), the full statistics (AUC, p, q), and the association table. The layout
(t-SNE) is not computed: it would compete for the same cores (its stalls are measured by
``gui_responsiveness.py``).

    nice -n 5 python benchmarks/gui_workbench.py [--n 100000] [--features 4000,1000]
        [--dense] [--together] [--trace]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
import scipy.sparse as sp
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from benchmarks._common import git_rev, machine
from benchmarks.gui_probes import IdleProbe
from benchmarks.gui_responsiveness import StallMeter, StallTracer, wait_until

K = 8  # planted clusters


def _sparse_view(g: np.random.Generator, labels: np.ndarray, d: int, density: float):
    """Counts with ``density`` stored values; each cluster k has 10 features (20k..20k+9)
    stored for all its samples with higher counts, and 10 (20k+10..) left empty for it."""
    n = labels.size
    x = sp.random(n, d, density=density, format="csr", random_state=g, dtype=np.float32,
                  data_rvs=lambda k: g.poisson(2.0, k) + 1.0).tolil()  # fmt: skip
    for k in range(K):
        rows = np.flatnonzero(labels == k)
        up, down = np.arange(20 * k, 20 * k + 10) % d, np.arange(20 * k + 10, 20 * k + 20) % d
        x[np.ix_(rows, down)] = 0.0
        x[np.ix_(rows, up)] = (g.poisson(4.0, (rows.size, up.size)) + 1).astype(np.float32)
    return x.tocsr()


def make_data(n: int, dims: list[int], density: float | None, seed: int = 0):
    """Views (sparse counts with ``density``, or dense float32 when None), observed mask,
    labels and metadata of the benchmark."""
    from core.data.dataset import MultiViewDataset

    g = np.random.default_rng(seed)
    labels = g.integers(0, K, n)
    views = []
    for d in dims:
        if density is not None:
            views.append(_sparse_view(g, labels, d, density))
            continue
        x = g.standard_normal((n, d), dtype=np.float32)
        for k in range(K):  # each cluster 1.5 sd higher in 10 features and lower in 10
            rows = np.flatnonzero(labels == k)
            x[np.ix_(rows, np.arange(20 * k, 20 * k + 10) % d)] += 1.5
            x[np.ix_(rows, np.arange(20 * k + 10, 20 * k + 20) % d)] -= 1.5
        views.append(x)
    observed = np.ones((n, len(dims)), dtype=bool)
    missing = g.choice(n, n // 10, replace=False)
    observed[missing, -1] = False
    if density is None:
        views[-1][missing] = 0.0
    else:  # a missing sample has no stored value in the view
        keep = sp.diags(observed[:, -1].astype(np.float32))
        views[-1] = (keep @ views[-1]).tocsr()
    batch = np.where(g.random(n) < 0.7, labels % 3, g.integers(0, 3, n))
    meta = {
        "batch": np.array([f"batch {b}" for b in range(3)])[batch],
        "site": np.array([f"site {s}" for s in range(5)])[g.integers(0, 5, n)],
        "sex": np.array(["f", "m"])[g.integers(0, 2, n)],
        "grade": np.array(["I", "II", "III", "IV"])[np.minimum(labels // 2, 3)],
        "age": (50 + 3 * labels + g.normal(0, 10, n)).round(1),
        "bmi": g.normal(25, 4, n).round(1),
        "score": g.random(n),
        "dose": np.where(g.random(n) < 0.05, np.nan, g.gamma(2.0, 1.0, n)),
    }
    ds = MultiViewDataset(views=views, labels=None, view_names=[f"view{i + 1}" for i in
                          range(len(dims))], name="workbench-bench", source="benchmark",
                          metadata=meta, observed=observed)  # fmt: skip
    return ds, labels


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--features", default="4000,1000", help="features per view")
    ap.add_argument(
        "--density",
        type=float,
        default=0.01,
        help="share of stored values of the sparse count views",
    )
    ap.add_argument(
        "--dense", action="store_true", help="dense float32 views instead (2 GB at 100,000 x 5,000)"
    )
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--trace", action="store_true", help="print stacks during stalls")
    ap.add_argument(
        "--together",
        action="store_true",
        help="press Associate with Compare (default: once the comparison is done)",
    )
    args = ap.parse_args()
    dims = [int(s) for s in args.features.split(",")]
    app = QApplication.instance() or QApplication([])
    from core.records.runs import RunResult
    from mvc_gui.model.data_session import DataSession
    from mvc_gui.model.run_history import RunHistory
    from mvc_gui.run.gui_gc import collect_in_gui_thread
    from mvc_gui.run.priority import favour_event_loop
    from mvc_gui.window.main_window import MainWindow

    favour_event_loop()  # as mvc-gui does at start (mvc_gui/app.py)
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {git_rev()}, "
          f"{machine()}, load {os.getloadavg()[0]:.2f}")  # fmt: skip
    print(f"# python {' '.join(sys.argv)}")
    t = time.perf_counter()
    ds, labels = make_data(args.n, dims, None if args.dense else args.density)
    made = time.perf_counter() - t
    kind = "dense float32" if args.dense else f"sparse counts, {args.density:g} stored"
    print(f"data: {args.n:,} x {sum(dims):,} ({'+'.join(map(str, dims))}; {kind}), "
          f"{len(ds.metadata)} metadata columns, made in {made:.1f} s")  # fmt: skip
    settings = QSettings(str(Path("/tmp") / "mvc_gui_bench.ini"), QSettings.Format.IniFormat)
    win = MainWindow(settings)
    collect_in_gui_thread(freeze=True)
    win.resize(1280, 800)
    win.show()
    win._request_layout = lambda: None  # no t-SNE competing for the cores (see above)
    session = DataSession(ds)
    win.set_session(session, ds.summary())
    history = RunHistory(1, "planted", {})
    history.result = RunResult(method="planted", params={}, labels=labels,
                               view_names=list(ds.view_names))  # fmt: skip
    win.presenter.history = history
    half = np.arange(args.n) % 2 == 0
    group = np.flatnonzero((labels == 0) | (labels == 1) | ((labels == 2) & half))
    win.selection.set(group, "benchmark group")
    bench = win.tools.workbench
    compare, association = bench.compare, bench.association
    bench.show_page(compare)
    wait_until(app, lambda: False, 1.0)  # let the window settle
    meter = StallMeter()
    if args.trace:
        StallTracer(meter, limit_ms=100.0)
    probe = IdleProbe()  # the noise floor: an idle process's late wake-ups at the same load
    probe.start()
    meter.start()
    t0 = time.perf_counter()
    marks: dict[str, float] = {}

    def mark(name: str, cond) -> bool:
        if name not in marks and cond():
            marks[name] = time.perf_counter() - t0
        return name in marks

    compare.group_a.choose("the selection")
    compare.group_b.choose("the rest")
    compare.start()
    if args.together:
        association.start()
    ok = wait_until(
        app,
        lambda: all([
            mark("first table", lambda: compare.model.rowCount() > 0),
            mark("full statistics", lambda: not compare.busy and bool(compare.tables)
                 and not np.isnan(compare.tables[0].q).all()),
        ]),
        args.timeout,
    )  # fmt: skip
    if not args.together:  # pressed once the comparison is done; timed from its own press
        t0 = time.perf_counter()
        association.start()
    ok &= wait_until(
        app,
        lambda: mark("association table", lambda: not association.busy and bool(association.rows)),
        args.timeout,
    )
    stats = meter.stop()
    floor = probe.stop()
    # a click on the strongest feature: its values by group, drawn while the meter runs
    meter.start()
    t1 = time.perf_counter()
    compare.table.selectRow(0)
    wait_until(app, lambda: len(compare.distribution.groups) == 2, args.timeout)
    dist_s = time.perf_counter() - t1
    click = meter.stop()
    print(f"finished: {ok}")
    for name in ("first table", "full statistics", "association table"):
        print(f"  {name:<18} {marks.get(name, float('nan')):6.2f} s")
    print(f"  longest stall while computing: {stats['max_ms']:.0f} ms (p99 {stats['p99_ms']:.0f} "
          f"ms, {stats['ticks']} ticks; own CPU in the worst gap {stats['worst_cpu_ms']:.0f} ms, "
          f"waiting for a core {stats['worst_queued_ms']:.0f} ms)")  # fmt: skip
    print(f"  {floor}")
    print(f"  feature clicked -> distribution drawn: {dist_s:.2f} s, longest stall "
          f"{click['max_ms']:.0f} ms (own CPU {click['worst_cpu_ms']:.0f} ms, waiting for a "
          f"core {click['worst_queued_ms']:.0f} ms)")  # fmt: skip
    sig = sum(int(t.significant().sum()) for t in compare.tables)
    top = ", ".join(f"{r.column} ({r.effect:.2f})" for r in association.rows[:4])
    print(f"  {sig} features with q < 0.05; strongest columns: {top}")
    print(f"  load average after: {os.getloadavg()[0]:.2f}")
    win.close()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
