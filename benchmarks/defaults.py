"""Defaults benchmark: every method with its defaults on every labelled shared file, next to
the two peers a user would try instead.

    python benchmarks/defaults.py [--methods fmdc,alpc] [--files BBCSport,MSRC-v1_6view]
                                  [--seeds 0,1,2] [--csv docs/benchmarks/defaults.csv]
    python benchmarks/defaults.py --table      # only rebuild docs/benchmarks/defaults.md
    python benchmarks/defaults.py --methods dtll --redo   # re-run DTLL's rows, merged in place
    python benchmarks/defaults.py --grid       # every preprocessing setting and rule, seed 0
    python benchmarks/defaults.py --grid --grid-seed 1   # the rule and best setting, seed 1
    python benchmarks/defaults.py --held-out [--previous-csv OLD.csv]   # the regret table

A method runs exactly as ``mvc run FILE --method M --seed S`` would: ``auto`` preprocessing
(the method's own rule), every parameter automatic, k = the true class count (choosing k is
issue 11 item 3, benchmarked separately). The peers run on the z-scored concatenated views:
scikit-learn ``KMeans(n_init=10)`` and ``SpectralClustering`` with a k-NN affinity. Each
(method, file, seed) is one CSV row, appended as soon as it ends, so a run can be split with
``--methods``/``--files``/``--seeds`` and resumed: rows already in the CSV are skipped.
``--redo`` first drops the selected (method, file, seed) rows from the CSV, so a method whose
defaults changed is re-run and merged without touching the other methods' rows.

``--grid`` and ``--held-out`` (benchmarks/preprocess_grid.py) judge the ``auto`` preprocessing
rules on files they were not chosen on: each method with each fixed setting and each candidate
rule (docs/benchmarks/defaults_grid.csv), then per file the rule with the least mean regret
over the other files, scored on that file.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import sys
import time
from collections import defaultdict
from datetime import date
from pathlib import Path

import numpy as np
from preprocess_grid import GRID_CSV, GRID_METHODS, held_out, run_grid

from _common import DOCS, datasets_dir, git_rev, machine

METHODS = ("kmeans-concat", "anchor-sc", "fmdc", "dtll", "mvsc-hfd", "alpc", "rg-mvc")
PEERS = ("peer-kmeans", "peer-spectral")
# labelled files, cheap first; the damaged copy and the second BBCSport layout are left out
FILES = (
    "TwoMoon",
    "ThreeRing",
    "3Sources",
    "WebKB-203_3view",
    "MSRC-v1_5view",
    "MSRC-v1_6view",
    "Dermatology",
    "NGs",
    "BBCSport",
    "BBC4view",
    "Reuters-600__triplets",
    "Synthetic3d",
    "WebKB",
    "Reuters-1200",
    "UCI-Digits_3view",
    "Handwritten",
    "HW2sources",
    "BDGP_fea",
    "Wiki_fea",
    "MNIST-4",
    "Cora",
    "ACM",
    "CiteSeer",
    "Hdigit",
)
FIELDS = ("method", "file", "seed", "acc", "nmi", "seconds", "resolved", "preprocessing")
CSV_DEFAULT = DOCS / "defaults.csv"
ESTIMATED_K_CSV = DOCS / "defaults_estimated_k.csv"


def _load(name: str):
    from core.data.io import load_dataset

    return load_dataset(str(datasets_dir() / f"{name}.mat"))


def _concat_zscored(views) -> np.ndarray:
    import scipy.sparse as sp

    from core.data.preprocessing import preprocess

    dense = [x.toarray() if sp.issparse(x) else np.asarray(x, dtype=np.float64) for x in views]
    out, _ = preprocess(dense, "zscore")
    return np.hstack(out)


def run_peer(name: str, x: np.ndarray, c: int, seed: int) -> np.ndarray:
    from sklearn.cluster import KMeans, SpectralClustering

    if name == "peer-kmeans":
        return KMeans(c, n_init=10, random_state=seed).fit_predict(x)
    k = int(min(10, max(2, x.shape[0] // (2 * c))))  # sklearn's default 10, fewer for tiny sets
    model = SpectralClustering(
        c, affinity="nearest_neighbors", n_neighbors=k, random_state=seed, n_jobs=1
    )
    return model.fit_predict(x)


def run_method(name: str, ds, seed: int) -> tuple[np.ndarray, dict, list[str]]:
    from core.data.preprocessing import preprocess
    from core.methods import REGISTRY

    cls = REGISTRY[name]
    views, chosen = preprocess(ds.views, "auto", cls.auto_preprocessing)
    solver = cls.from_params({"n_clusters": ds.n_classes, "random_state": seed})
    solver.fit(views)
    params = solver.get_params()  # resolved_params_ also holds notes such as row_space
    auto = {
        k: v for k, v in solver.resolved_params_.items() if params.get(k) is None and v is not None
    }
    return solver.labels_, auto, chosen


def _done(path: Path) -> set[tuple[str, str, str]]:
    if not path.exists():
        return set()
    with path.open() as f:
        return {(r["method"], r["file"], r["seed"]) for r in csv.DictReader(f)}


def drop_rows(path: Path, methods, files, seeds) -> int:
    """Remove the rows of these methods x files x seeds from the CSV (atomically)."""
    from core.data.atomic import atomic_write

    if not path.exists():
        return 0
    with path.open() as f:
        rows = list(csv.DictReader(f))
    chosen = {(m, x, str(s)) for m in methods for x in files for s in seeds}
    keep = [r for r in rows if (r["method"], r["file"], r["seed"]) not in chosen]
    buf = io.StringIO()
    writer = csv.DictWriter(buf, FIELDS)
    writer.writeheader()
    writer.writerows(keep)
    atomic_write(path, buf.getvalue())
    return len(rows) - len(keep)


def run(methods, files, seeds, path: Path) -> None:
    from core.numerics.metrics import accuracy, nmi

    done = _done(path)
    new = not path.exists()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, FIELDS)
        if new:
            writer.writeheader()
        for file in files:
            todo = [(m, s) for m in methods for s in seeds if (m, file, str(s)) not in done]
            if not todo:
                continue
            ds = _load(file)
            concat = None
            for method, seed in todo:
                t0 = time.perf_counter()
                resolved, chosen = {}, []
                if method in PEERS:
                    if concat is None:
                        concat = _concat_zscored(ds.views)
                    labels = run_peer(method, concat, ds.n_classes, seed)
                else:
                    labels, resolved, chosen = run_method(method, ds, seed)
                secs = time.perf_counter() - t0
                row = {
                    "method": method,
                    "file": file,
                    "seed": seed,
                    "acc": f"{accuracy(ds.labels, labels):.4f}",
                    "nmi": f"{nmi(ds.labels, labels):.4f}",
                    "seconds": f"{secs:.2f}",
                    "resolved": " ".join(f"{k}={v}" for k, v in resolved.items()),
                    "preprocessing": "; ".join(c.removeprefix("auto: ") for c in chosen),
                }
                writer.writerow(row)
                f.flush()
                print(f"{file:24s} {method:14s} seed {seed}: ACC {row['acc']} ({secs:.1f} s)")


def table(path: Path, margins=(0.02, 0.05)) -> str:
    with path.open() as f:
        rows = list(csv.DictReader(f))
    cell: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    for r in rows:
        cell[r["method"], r["file"]].append((float(r["acc"]), float(r["nmi"])))
    files = [x for x in FILES if any(k[1] == x for k in cell)]
    methods = [m for m in (*METHODS, *PEERS) if any(k[0] == m for k in cell)]
    mean = {k: tuple(np.mean(v, axis=0)) for k, v in cell.items()}
    head = "| file | " + " | ".join(methods) + " |"
    lines = [head, "|" + "---|" * (len(methods) + 1)]
    for x in files:
        vals = [
            f"{mean[m, x][0]:.3f} / {mean[m, x][1]:.3f}" if (m, x) in mean else "not run"
            for m in methods
        ]
        lines.append(f"| {x} | " + " | ".join(vals) + " |")
    lines += ["", "Mean ACC / NMI over the seeds run (3 unless noted below).", ""]
    best = {  # the best peer's mean ACC per file
        x: max(mean[p, x][0] for p in PEERS) for x in files if all((p, x) in mean for p in PEERS)
    }
    lines += ["| method | files run | " + " | ".join(f">= best peer - {d}" for d in margins) + " |"]
    lines.append("|---|---|" + "---|" * len(margins))
    for m in methods:
        if m in PEERS:
            continue
        shared = [x for x in best if (m, x) in mean]
        counts = [sum(mean[m, x][0] >= best[x] - d for x in shared) for d in margins]
        n = max(len(shared), 1)
        cells = [f"{k}/{len(shared)} ({100 * k / n:.0f} %)" for k in counts]
        lines.append(f"| {m} | {len(shared)} | " + " | ".join(cells) + " |")
    lines += ["", f"Files below the best peer - {margins[-1]} (mean ACC vs best peer):", "", "```"]
    for m in methods:
        if m in PEERS:
            continue
        low = [x for x in best if (m, x) in mean and mean[m, x][0] < best[x] - margins[-1]]
        text = "; ".join(f"{x} {mean[m, x][0]:.3f} vs {best[x]:.3f}" for x in low)
        lines.append(f"{m} {len(low)}: {text}")
    lines.append("```")
    seeds = {(r["method"], r["file"]): 0 for r in rows}
    for r in rows:
        seeds[r["method"], r["file"]] += 1
    odd = sorted(f"{m} on {x}: {k}" for (m, x), k in seeds.items() if k != 3)
    if odd:
        lines += ["", "Cells with other than 3 seeds: " + "; ".join(odd) + "."]
    lines += estimated_k_table(mean, files, [m for m in methods if m not in PEERS])
    return "\n".join(lines)


def estimated_k_table(mean, files, methods, path: Path | None = None) -> list[str]:
    """ACC with the true k next to ACC with the estimated k, from the CSV the k benchmark
    writes (columns method,file,seed,k_true,k_est,candidates,acc,nmi); nothing if absent."""
    path = path or ESTIMATED_K_CSV
    if not path.exists():
        return []
    with path.open() as f:
        rows = list(csv.DictReader(f))
    est: dict[tuple[str, str], list[tuple[float, str]]] = defaultdict(list)
    for r in rows:
        if r.get("acc"):
            est[r["method"], r["file"]].append((float(r["acc"]), r["k_est"]))
    methods = [m for m in methods if any(k[0] == m for k in est)]
    if not methods:
        return []
    lines = [
        "",
        f"ACC with the true k / ACC with the estimated k (k estimated, seed order), from "
        f"`{path.name}` (written by the k benchmark):",
        "",
        "| file | k | " + " | ".join(methods) + " |",
        "|---|---|" + "---|" * len(methods),
    ]
    truth = {(r["file"]): r["k_true"] for r in rows}
    for x in files:
        if not any((m, x) in est for m in methods):
            continue
        cells = []
        for m in methods:
            true = f"{mean[m, x][0]:.3f}" if (m, x) in mean else "not run"
            got = est.get((m, x))
            if not got:
                cells.append(f"{true} / not run")
                continue
            ks = ",".join(k for _, k in got)
            cells.append(f"{true} / {np.mean([a for a, _ in got]):.3f} ({ks})")
        lines.append(f"| {x} | {truth.get(x, '?')} | " + " | ".join(cells) + " |")
    return lines


def grid_main(args, path: Path) -> None:
    methods = [m for m in args.methods.split(",") if m not in PEERS]
    if args.methods == ",".join((*PEERS, *METHODS)):
        methods = list(GRID_METHODS)
    files = args.files.split(",")
    bad = [m for m in methods if m not in METHODS] + [x for x in files if x not in FILES]
    if bad:
        sys.exit(f"unknown methods or files {bad}")
    if args.grid:
        run_grid(
            methods,
            files,
            Path(args.grid_csv),
            path,
            args.processes,
            args.grid_seed,
            args.every_cell,
        )
    if args.held_out:
        previous = Path(args.previous_csv) if args.previous_csv else path
        print(held_out(methods, files, Path(args.grid_csv), previous))
    print(f"\n{date.today()}, commit {git_rev()}, {machine()}, load {os.getloadavg()[0]:.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--methods", default=",".join((*PEERS, *METHODS)))
    ap.add_argument("--files", default=",".join(FILES))
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--csv", default=str(CSV_DEFAULT))
    ap.add_argument("--table", action="store_true", help="only print the table of the CSV")
    ap.add_argument(
        "--redo", action="store_true", help="re-run the selected rows even if in the CSV"
    )
    ap.add_argument(
        "--grid",
        action="store_true",
        help="run every preprocessing setting and rule (seed 0) into --grid-csv",
    )
    ap.add_argument(
        "--held-out",
        action="store_true",
        help="choose each method's rule by leave-one-file-out over the grid and print the table",
    )
    ap.add_argument("--grid-csv", default=str(GRID_CSV))
    ap.add_argument(
        "--grid-seed",
        type=int,
        default=0,
        help="--grid with a seed other than 0: re-run only each rule's and best fixed "
        "setting's cells with it (the fresh-seed regret of --held-out)",
    )
    ap.add_argument(
        "--every-cell",
        action="store_true",
        help="--grid-seed S: run every setting and rule of --files with seed S (--held-out then "
        "scores a file on the mean of the seeds its whole grid has run with)",
    )
    ap.add_argument(
        "--previous-csv",
        help="--held-out: the defaults CSV of the previous defaults (default: --csv)",
    )
    ap.add_argument("--processes", type=int, default=2, help="grid cells run at once")
    args = ap.parse_args()
    path = Path(args.csv)
    if args.grid or args.held_out:
        grid_main(args, path)
        return
    if not args.table:
        for name, allowed in (("methods", (*PEERS, *METHODS)), ("files", FILES)):
            bad = [v for v in getattr(args, name).split(",") if v not in allowed]
            if bad:
                sys.exit(f"unknown {name} {bad}; choose from {list(allowed)}")
        seeds = [int(s) for s in args.seeds.split(",")]
        if args.redo:
            gone = drop_rows(path, args.methods.split(","), args.files.split(","), seeds)
            print(f"--redo: {gone} rows dropped from {path}")
        run(args.methods.split(","), args.files.split(","), seeds, path)
    text = table(path)
    print(text)
    print(f"\n{date.today()}, commit {git_rev()}, {machine()}, load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
