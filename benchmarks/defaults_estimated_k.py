"""Each method's defaults with the number of clusters estimated (``--n-clusters auto``) on
the labelled shared files: what an analyst without labels gets, next to the true k.

    MVC_DATASETS=../shared/datasets python benchmarks/defaults_estimated_k.py
        [--methods fmdc,dtll,alpc] [--files A.mat,B.mat] [--seed 0] [--rerun]
    python benchmarks/defaults_estimated_k.py --summary   # the per-method table of the CSV

Every cell is run as ``mvc run FILE --method M --n-clusters auto --seed 0`` runs it: the
method's ``auto`` preprocessing, then ``n_clusters="auto"`` resolved by
``core.numerics.n_clusters.estimate_n_clusters`` inside the fit, on the views every
method's estimate reads (``core.data.prepare.estimate_views``). Rows are appended to
docs/benchmarks/defaults_estimated_k.csv (method, file, seed, k_true, k_est, candidates,
acc, nmi) as they finish, so the run can be resumed; cells already there are skipped
(``--rerun``: the rows of ``--methods`` at this seed are dropped first). The
ACC with the true k is in docs/benchmarks/defaults.csv (benchmarks/defaults.py).
``--skip`` lists method:file cells not run (too slow on this machine); they are reported as
skipped, not written.
"""

from __future__ import annotations

import argparse
import csv
import io
import time

from choose_k import labelled_files

from _common import DOCS, datasets_dir
from core.data.atomic import atomic_write
from core.data.io import load_dataset
from core.data.prepare import estimate_views
from core.data.preprocessing import preprocess
from core.methods import REGISTRY
from core.numerics.metrics import accuracy, nmi

FIELDS = ("method", "file", "seed", "k_true", "k_est", "candidates", "acc", "nmi")
OUT = DOCS / "defaults_estimated_k.csv"


def run_cell(method: str, ds, seed: int) -> dict:
    cls = REGISTRY[method]
    views, _ = preprocess(ds.views, "auto", cls.auto_preprocessing)
    solver = cls.from_params({"n_clusters": "auto", "random_state": seed})
    solver.fit(views, k_views=estimate_views(ds.views, "auto", cls.auto_preprocessing))
    est = solver.n_clusters_estimate_
    return {
        "k_est": est["k"],
        "candidates": " ".join(str(k) for k in est.get("ranked") or [est["k"]]),
        "acc": f"{accuracy(ds.labels, solver.labels_):.4f}",
        "nmi": f"{nmi(ds.labels, solver.labels_):.4f}",
    }


def read_rows(path=OUT) -> list[dict]:
    if not path.exists():
        return []
    with path.open() as f:
        return list(csv.DictReader(f))


def write_rows(rows: list[dict], path=OUT) -> None:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, FIELDS)
    writer.writeheader()
    writer.writerows(sorted(rows, key=lambda r: (r["method"], r["file"], int(r["seed"]))))
    atomic_write(path, buf.getvalue())


def summary(rows: list[dict], seed: int = 0) -> str:
    """Per method: k exact, within 25 %, the true k among the three shown, and mean ACC with
    the estimated k next to the mean ACC with the true k (docs/benchmarks/defaults.csv, the
    seeds there) on the same files."""
    true_k: dict[tuple[str, str], list[float]] = {}
    path = DOCS / "defaults.csv"
    if path.exists():
        for r in csv.DictReader(path.open()):
            true_k.setdefault((r["method"], r["file"]), []).append(float(r["acc"]))
    lines = [
        "| method | files | k exact | within 25 % | true k among the three shown "
        "| mean ACC, estimated k | mean ACC, true k |",
        "|---|---|---|---|---|---|---|",
    ]
    for method in sorted({r["method"] for r in rows}):
        mine = [r for r in rows if r["method"] == method and r["seed"] == str(seed)]
        exact = near = shown = 0
        for r in mine:
            k, c = int(r["k_est"]), int(r["k_true"])
            exact += k == c
            near += abs(k - c) <= 0.25 * c
            shown += c in [int(x) for x in r["candidates"].split()[:3]]
        acc = sum(float(r["acc"]) for r in mine) / len(mine)
        truth = [sum(v) / len(v) for r in mine if (v := true_k.get((method, r["file"])))]
        lines.append(
            f"| {method} | {len(mine)} | {exact} | {near} | {shown} | {acc:.3f} | "
            + (f"{sum(truth) / len(truth):.3f} ({len(truth)} files) |" if truth else "- |")
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", default="fmdc,dtll,alpc")
    ap.add_argument("--files", help="comma-separated file names (default: all labelled)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip", default="", help="method:file cells not to run")
    ap.add_argument("--rerun", action="store_true", help="run the cells already written again")
    ap.add_argument("--summary", action="store_true", help="print the per-method table and stop")
    args = ap.parse_args()
    if args.summary:
        print(summary(read_rows(), args.seed))
        return
    skip = {tuple(c.split(":")) for c in args.skip.split(",") if c}
    rows = read_rows()
    if args.rerun:
        again = set(args.methods.split(","))
        rows = [r for r in rows if not (r["method"] in again and r["seed"] == str(args.seed))]
    done = {(r["method"], r["file"], r["seed"]) for r in rows}
    files = args.files.split(",") if args.files else labelled_files()
    for name in files:
        ds = load_dataset(datasets_dir() / name)
        stem = name.removesuffix(".mat")
        for method in args.methods.split(","):
            if (method, stem, str(args.seed)) in done:
                continue
            if (method, stem) in skip or (method, name) in skip:
                print(f"{stem:24s} {method:10s} skipped", flush=True)
                continue
            t0 = time.perf_counter()
            row = {"method": method, "file": stem, "seed": args.seed, "k_true": ds.n_classes}
            row.update(run_cell(method, ds, args.seed))
            rows.append(row)
            write_rows(rows)
            print(
                f"{stem:24s} {method:10s} k {row['k_est']} (true {row['k_true']}; "
                f"{row['candidates']}) ACC {row['acc']} ({time.perf_counter() - t0:.1f} s)",
                flush=True,
            )


if __name__ == "__main__":
    main()
