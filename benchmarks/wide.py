"""Wide data: few samples, many features (omics-like), every method with its defaults.

    python benchmarks/wide.py [--n 500] [--dims 20000,5000] [--clusters 5] [--limit 120]
                              [--files 3Sources.mat,BBCSport.mat,BBC4view.mat]

Synthetic views (core.data.demo.make_synthetic) of n samples; each method runs in its own
subprocess (killed after --limit seconds) and reports its wall time, stage times, peak RSS and
ACC. Target (issue 13): every method under 5 s at 500 x (20,000 + 5,000), 5 clusters.
Then the shared wide text files ($MVC_DATASETS, each method's automatic preprocessing) with
ALPC and MVSC-HFD on their default ``feature_space="auto"`` (the row space, see
core/numerics/row_space.py) against ``"original"`` (the authors' path), side by side.
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

from _common import DOCS, ROOT, datasets_dir, git_rev, machine

FILE_METHODS = ("mvsc-hfd",)  # the one method whose row-space path is a variant
EMPTY = "''"  # the shell's empty argument, for the printed command


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


def file_child(method: str, name: str, space: str, first_width: int | None = None) -> dict:
    from core.data.io import load_dataset
    from core.data.preprocessing import preprocess
    from core.methods import REGISTRY
    from core.numerics.metrics import accuracy

    ds = load_dataset(datasets_dir() / name)
    cls = REGISTRY[method]
    views, _ = preprocess(ds.views, "auto", cls.auto_preprocessing)
    params = {"n_clusters": ds.n_classes}
    if "feature_space" in cls.param_spec.names():
        params["feature_space"] = space
    if first_width:
        params["first_width"] = first_width
    solver = cls.from_params(params)
    t0 = time.perf_counter()
    solver.fit(views)
    return {
        "total": time.perf_counter() - t0,
        "acc": accuracy(ds.labels, solver.labels_),
        "row_space": solver.resolved_params_.get("row_space") or "not used",
        "shape": f"{ds.views[0].shape[0]} x {'/'.join(str(x.shape[1]) for x in ds.views)}",
    }


def run_child(args: list[str], limit: float) -> dict | None:
    try:
        out = subprocess.run(
            [sys.executable, __file__, *args],
            check=True,
            capture_output=True,
            text=True,
            cwd=ROOT / "benchmarks",
            timeout=limit,
        )
    except subprocess.TimeoutExpired:
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def _table_head(text: str, columns: list[str]) -> list[str]:
    lines = ["", text, "", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    print("\n".join(lines), flush=True)
    return lines


def width_rows(files: list[str], widths: list[int], limit: float) -> list[str]:
    """MVSC-HFD at equal first-layer widths in both spaces: how much ACC moves with the
    widths (and the layers' arbitrary completions) on its own."""
    lines = _table_head(
        "MVSC-HFD at equal layer widths (`first_width`) in both spaces (each run a few seconds):",
        ["file", "first_width", "ACC original", "ACC row space"],
    )
    for name in files:
        for fw in widths:
            accs = []
            for space in ("original", "row_space"):
                args = ["--child", "mvsc-hfd", "--file", name, "--space", space]
                r = run_child([*args, "--first-width", str(fw)], limit)
                accs.append("stopped" if r is None else f"{r['acc']:.3f}")
            lines.append(f"| {name} | {fw} | {accs[0]} | {accs[1]} |")
            print(lines[-1], flush=True)
    return lines


def file_rows(files: list[str], limit: float) -> list[str]:
    lines = _table_head(
        "Shared wide text files, each method's automatic preprocessing, default parameters; "
        "`feature_space` auto (row space where it pays, the default) against original (the "
        "authors' path). Same process layout and time limit as above.",
        ["file (n x dims)", "method", "feature_space", "total (s)", "ACC", "row space"],
    )
    for name in files:
        for method in FILE_METHODS:
            for space in ("auto", "original"):
                r = run_child(["--child", method, "--file", name, "--space", space], limit)
                if r is None:
                    line = f"| {name} | {method} | {space} | > {limit:.0f} (stopped) | | |"
                else:
                    line = (
                        f"| {name} ({r['shape']}) | {method} | {space} | {r['total']:.2f} | "
                        f"{r['acc']:.3f} | {r['row_space']} |"
                    )
                lines.append(line)
                print(line, flush=True)
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--dims", default="20000,5000")
    ap.add_argument("--clusters", type=int, default=5)
    ap.add_argument("--methods", default="fmdc,alpc,dtll,mvsc-hfd,rg-mvc,anchor-sc,kmeans-concat")
    ap.add_argument("--limit", type=float, default=120.0)
    ap.add_argument("--files", default="3Sources.mat,BBCSport.mat,BBC4view.mat")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--file", help=argparse.SUPPRESS)
    ap.add_argument("--space", help=argparse.SUPPRESS)
    ap.add_argument("--first-width", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--hfd-widths", default="134,100,60")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    dims = tuple(int(d) for d in args.dims.split(","))
    if args.child and args.file:
        print(json.dumps(file_child(args.child, args.file, args.space, args.first_width)))
        return 0
    if args.child:
        print(json.dumps(child(args.child, args.n, dims, args.clusters)))
        return 0
    load = Path("/proc/loadavg").read_text().split()[:3]
    cmd = (
        f"python benchmarks/wide.py --n {args.n} --dims {args.dims} "
        f"--clusters {args.clusters} --methods {args.methods} --limit {args.limit:g} "
        f"--files {args.files or EMPTY} --hfd-widths {args.hfd_widths or EMPTY}"
    )
    lines = [
        "# Wide data",
        "",
        f"Command: `{cmd}`  ",
        f"Run {date.today()} on {machine()}, commit {git_rev()}, load average {' '.join(load)} "
        f"at the start. Synthetic: {args.n} samples, views of {args.dims} features, "
        f"{args.clusters} clusters, default parameters; each method in a fresh process "
        "(kernels compiled beforehand, not timed). Wide views are worked on in the sample "
        "space (row space, docs/wide_data.md); total includes `predict`'s reference choice.",
        "",
        "| method | total (s) | stages (s) | iterations | peak RSS (MB) | ACC |",
        "|---|---|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    for method in args.methods.split(","):
        # compile the kernels first (a small run) so the timed run does not pay for it
        warm = [sys.executable, __file__, "--n", "60", "--dims", "400,100", "--child", method]
        subprocess.run(warm, check=True, capture_output=True, cwd=ROOT / "benchmarks")
        base = ["--n", str(args.n), "--dims", args.dims]
        base += ["--clusters", str(args.clusters), "--child", method]
        r = run_child(base, args.limit)
        if r is None:
            line = f"| {method} | > {args.limit:.0f} (stopped) | | | | |"
        else:
            stages = ", ".join(f"{k} {v:.2f}" for k, v in r["stages"].items())
            line = (
                f"| {method} | {r['total']:.2f} | {stages} | {r['n_iter']} | "
                f"{r['peak_mb']:.0f} | {r['acc']:.3f} |"
            )
        lines.append(line)
        print(line, flush=True)
    if args.files:
        lines += file_rows(args.files.split(","), args.limit)
        if args.hfd_widths:
            widths = [int(w) for w in args.hfd_widths.split(",")]
            lines += width_rows(args.files.split(","), widths, args.limit)
    lines.append(
        f"\nLoad average at the end: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}"
    )
    if not args.no_write:
        out_path = DOCS / "wide.md"
        out_path.write_text("\n".join(lines) + "\n")
        print(f"written to {out_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
