"""Wide data: few samples, many features (omics-like), every method with its defaults.

    python benchmarks/wide.py [--n 500] [--dims 20000,5000] [--clusters 5] [--limit 120]

Synthetic views (core.data.demo.make_synthetic) of n samples; each method runs in its own
subprocess (killed after --limit seconds) and reports its wall time, stage times, peak RSS and
ACC. Target (issue 13): every method under 5 s at 500 x (20,000 + 5,000), 5 clusters.
Writes docs/benchmarks/wide.md.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

from _common import DOCS, ROOT, git_rev, machine


def child(method: str, n: int, dims: tuple[int, ...], c: int) -> dict:
    from core.data.demo import make_synthetic
    from core.methods import REGISTRY
    from core.numerics.metrics import accuracy

    ds = make_synthetic(n, dims, c, seed=0)
    solver = REGISTRY[method].from_params({"n_clusters": c})
    t0 = time.perf_counter()
    solver.fit(ds.views)
    total = time.perf_counter() - t0
    return {
        "total": total,
        "stages": solver.stage_times_,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "acc": accuracy(ds.labels, solver.labels_),
        "n_iter": solver.n_iter_,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--dims", default="20000,5000")
    ap.add_argument("--clusters", type=int, default=5)
    ap.add_argument("--methods", default="fmdc,alpc,dtll,mvsc-hfd,rg-mvc,anchor-sc,kmeans-concat")
    ap.add_argument("--limit", type=float, default=120.0)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    dims = tuple(int(d) for d in args.dims.split(","))
    if args.child:
        print(json.dumps(child(args.child, args.n, dims, args.clusters)))
        return 0
    load = Path("/proc/loadavg").read_text().split()[:3]
    cmd = (
        f"python benchmarks/wide.py --n {args.n} --dims {args.dims} "
        f"--clusters {args.clusters} --methods {args.methods}"
    )
    lines = [
        "# Wide data",
        "",
        f"Command: `{cmd}`  ",
        f"Run {date.today()} on {machine()}, commit {git_rev()}, load average {' '.join(load)} "
        f"at the start. Synthetic: {args.n} samples, views of {args.dims} features, "
        f"{args.clusters} clusters, default parameters; each method in a fresh process "
        "(kernels compiled beforehand, not timed).",
        "",
        "| method | total (s) | stages (s) | iterations | peak RSS (MB) | ACC |",
        "|---|---|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    for method in args.methods.split(","):
        # compile the kernels first (a small run) so the timed run does not pay for it
        warm = [sys.executable, __file__, "--n", "60", "--dims", "400,100", "--child", method]
        subprocess.run(warm, check=True, capture_output=True, cwd=ROOT / "benchmarks")
        base = [sys.executable, __file__, "--n", str(args.n), "--dims", args.dims]
        base += ["--clusters", str(args.clusters), "--child", method]
        try:
            out = subprocess.run(
                base,
                check=True,
                capture_output=True,
                text=True,
                cwd=ROOT / "benchmarks",
                timeout=args.limit,
            )
        except subprocess.TimeoutExpired:
            line = f"| {method} | > {args.limit:.0f} (stopped) | | | | |"
        else:
            r = json.loads(out.stdout.strip().splitlines()[-1])
            stages = ", ".join(f"{k} {v:.2f}" for k, v in r["stages"].items())
            line = (
                f"| {method} | {r['total']:.2f} | {stages} | {r['n_iter']} | "
                f"{r['peak_mb']:.0f} | {r['acc']:.3f} |"
            )
        lines.append(line)
        print(line, flush=True)
    if not args.no_write:
        out_path = DOCS / "wide.md"
        out_path.write_text("\n".join(lines) + "\n")
        print(f"written to {out_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
