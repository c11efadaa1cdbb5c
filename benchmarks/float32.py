"""float32 against float64: ACC of the anchor methods on the shared benchmark files.

    MVC_DATASETS=... python benchmarks/float32.py [--seeds 3] [--methods fmdc,alpc,dtll,mvsc-hfd]

For every case of benchmarks/cases/<method>.py (the files of docs/benchmarks/quality_*.md),
the method's defaults with dtype="float64" and dtype="float32", seeds 0..seeds-1, in the same
process; reports mean ACC of each, their difference (target |ΔACC| <= 0.005), the share of
labels on which the two agree and the time ratio. Writes docs/benchmarks/float32.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from quality import _data

from _common import DOCS, cases_module, git_rev, machine
from core.methods import REGISTRY
from core.numerics.metrics import accuracy


def run(method: str, case: dict, seeds: int) -> dict:
    ds, views, _ = _data(case)
    # float64 arithmetic on the float32-rounded input separates what float32 arithmetic
    # changes from what rounding the input alone changes (some methods' greedy or
    # non-convex steps move with 1e-8 changes of the data).
    rounded = [_round_to_float32(v) for v in views]
    arms = {
        "float64": (views, "float64"),
        "rounded": (rounded, "float64"),
        "float32": (views, "float32"),
    }
    acc = {arm: [] for arm in arms}
    secs = dict.fromkeys(arms, 0.0)
    agree = []
    for seed in range(seeds):
        labels = {}
        for arm, (data, dt) in arms.items():
            params = {"n_clusters": ds.n_classes, **case.get("params", {})}
            solver = REGISTRY[method].from_params({**params, "random_state": seed, "dtype": dt})
            t0 = time.perf_counter()
            solver.fit(data)
            secs[arm] += time.perf_counter() - t0
            labels[arm] = solver.labels_
            acc[arm].append(accuracy(ds.labels, solver.labels_))
        agree.append(accuracy(labels["rounded"], labels["float32"]))
    return {
        "n": ds.n_samples,
        "acc64": float(np.mean(acc["float64"])),
        "acc64r": float(np.mean(acc["rounded"])),
        "acc32": float(np.mean(acc["float32"])),
        "agree": float(np.mean(agree)),
        "speed": secs["float64"] / max(secs["float32"], 1e-9),
    }


def _round_to_float32(view):
    """The view with its values rounded to float32 and stored as float64."""
    if sp.issparse(view):
        return view.astype(np.float32).astype(np.float64)
    return np.asarray(view, dtype=np.float32).astype(np.float64)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--methods", default="fmdc,alpc,dtll,mvsc-hfd")
    ap.add_argument("--only", help="comma-separated substrings of dataset names")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    load = Path("/proc/loadavg").read_text().split()[:3]
    lines = [
        "# float32 against float64",
        "",
        f"Command: `MVC_DATASETS=... python benchmarks/float32.py --seeds {args.seeds} "
        f"--methods {args.methods}`  ",
        f"Run {date.today()} on {machine()}, commit {git_rev()}, load average "
        f"{' '.join(load)} at the start.",
        "",
        f"Each method's quality cases (docs/benchmarks/quality_*.md), seeds 0..{args.seeds - 1}, "
        "dtype float64 and float32 in the same process, plus float64 arithmetic on the input "
        "rounded to float32 ('rounded'). ΔACC = float32 − float64 (mean over seeds): what a user "
        "sees; Δarith = float32 − rounded: what float32 arithmetic alone changes, the input being "
        "equal; 'agree' = ACC of the float32 labels against the rounded-input float64 labels; "
        "time ratio = float64 time / float32 time (noisy on a shared machine).",
        "",
        "| method | case | n | ACC float64 | ACC rounded | ACC float32 | ΔACC | Δarith | agree "
        "| time ratio |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    for method in args.methods.split(","):
        for case in cases_module(method).CASES:
            if args.only and not any(s in case["dataset"] for s in args.only.split(",")):
                continue
            r = run(method, case, args.seeds)
            line = (
                f"| {method} | {case['dataset']} | {r['n']} | {r['acc64']:.4f} | "
                f"{r['acc64r']:.4f} | {r['acc32']:.4f} | {r['acc32'] - r['acc64']:+.4f} | "
                f"{r['acc32'] - r['acc64r']:+.4f} | {r['agree']:.4f} | {r['speed']:.2f} |"
            )
            lines.append(line)
            print(line, flush=True)
    if not args.no_write:
        (DOCS / "float32.md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
