"""Scale benchmark: a method on synthetic 3-view data of growing n.

    python benchmarks/scale.py --method fmdc [--n 10000,30000,100000]

Each n runs in a fresh subprocess (so peak RSS is that run's own). Reported per n: wall time
per stage and in total, peak RSS and the RSS of the data alone, and, in the same process, the
time of the bare BLAS products X_v U_vᵀ for all views with m anchors: the distance floor that
no anchor method can beat. Prints total/floor and the time ratio between the largest and the
smallest n; writes docs/benchmarks/scale_<method>.md.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from datetime import date

import numpy as np

from _common import DOCS, ROOT, cases_module, git_rev, machine

DIMS = (100, 300, 600)
CLUSTERS = 10


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(method: str, n: int, dtype: str = "auto") -> dict:
    from core.data.demo import make_synthetic
    from core.methods import REGISTRY
    from core.numerics.graphs import block_rows
    from core.numerics.metrics import accuracy

    ds = make_synthetic(n, DIMS, CLUSTERS, seed=0)
    views, labels = list(ds.views), ds.labels
    del ds
    if dtype == "float32":  # the data handed over in float32 (as a float32 file would be)
        views = [x.astype(np.float32) for x in views]
    data_rss = _rss_mb()
    params = {"n_clusters": CLUSTERS, **getattr(cases_module(method), "SCALE_PARAMS", {})}
    params["dtype"] = dtype
    solver = REGISTRY[method].from_params(params)
    t0 = time.perf_counter()
    solver.fit(views)
    total = time.perf_counter() - t0
    peak = _rss_mb()
    m = int(params.get("n_anchors") or 1024)
    rng = np.random.default_rng(0)
    floor = 0.0
    for x in views:
        u = rng.normal(size=(m, x.shape[1])).astype(x.dtype)
        step = block_rows(n, m)
        t1 = time.perf_counter()
        for start in range(0, n, step):
            x[start : start + step] @ u.T
        floor += time.perf_counter() - t1
    return {
        "n": n,
        "total": total,
        "stages": solver.stage_times_,
        "peak_mb": peak,
        "data_mb": data_rss,
        "floor": floor,
        "m": m,
        "n_iter": solver.n_iter_,
        "acc": accuracy(labels, solver.labels_),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--method", default="fmdc")
    ap.add_argument("--n", default="10000,30000,100000")
    ap.add_argument("--dtype", default="auto", choices=("auto", "float64", "float32"))
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.method, args.child, args.dtype)))
        return 0
    # compile the kernels once so no measured run pays for it
    subprocess.run(
        [sys.executable, __file__, "--method", args.method, "--child", "2000"],
        check=True,
        capture_output=True,
        cwd=ROOT / "benchmarks",
    )
    rows = []
    header = (
        "| n | total (s) | stages (s) | iterations | BLAS floor (s) | total / floor "
        "| peak RSS (MB) | data alone (MB) | ACC |"
    )
    lines = [
        f"# Scale: {args.method}",
        "",
        f"Command: `python benchmarks/scale.py --method {args.method} --n {args.n} "
        f"--dtype {args.dtype}`  ",
        f"Run {date.today()} on {machine()}, commit {git_rev()}. Synthetic data: "
        f"3 views of dims {'/'.join(map(str, DIMS))}, {CLUSTERS} clusters "
        "(core.data.demo.make_synthetic). The floor is the bare BLAS product X_v U_vᵀ for all "
        "views with m anchors, timed in the same process.",
        "",
        header,
        "|---|---|---|---|---|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    for n in [int(v) for v in args.n.split(",")]:
        out = subprocess.run(
            [
                *(sys.executable, __file__, "--method", args.method, "--child", str(n)),
                *("--dtype", args.dtype),
            ],
            check=True,
            capture_output=True,
            text=True,
            cwd=ROOT / "benchmarks",
        )
        r = json.loads(out.stdout.strip().splitlines()[-1])
        rows.append(r)
        stages = ", ".join(f"{k} {v:.1f}" for k, v in r["stages"].items())
        line = (
            f"| {n} | {r['total']:.1f} | {stages} | {r['n_iter']} | {r['floor']:.1f} | "
            f"{r['total'] / r['floor']:.2f} | {r['peak_mb']:.0f} | {r['data_mb']:.0f} | "
            f"{r['acc']:.3f} |"
        )
        lines.append(line)
        print(line, flush=True)
    if len(rows) > 1:
        ratio = rows[-1]["total"] / rows[0]["total"]
        tail = (
            f"\nTime ratio n={rows[-1]['n']} / n={rows[0]['n']}: {ratio:.1f} "
            f"(n ratio {rows[-1]['n'] / rows[0]['n']:.0f})."
        )
        lines.append(tail)
        print(tail)
    if not args.no_write:
        out_path = DOCS / f"scale_{args.method.replace('-', '_')}.md"
        DOCS.mkdir(parents=True, exist_ok=True)
        out_path.write_text("\n".join(lines) + "\n")
        print(f"written to {out_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
