"""Tune regret: how much ACC the label-free suggestion (``mvc tune``) gives away.

    MVC_DATASETS=../shared/datasets python benchmarks/tune_regret.py --methods fmdc,alpc \
        [--files A.mat,B.mat] [--seeds 0,1]

For every method and labelled shared file it runs the method's default tune grid
(each method class's `tune_grid`) over the seeds with the true class count, and reports
for each label-free criterion (stability across seeds, silhouette, their combined rank) the
regret: ACC of the best cell by labels minus ACC of the cell the criterion picks. One sweep
serves all criteria. Runs can be done in parts: rows accumulate in a JSON cache beside the
Markdown table (docs/benchmarks/tune_regret.md), which is rewritten from all rows.

Each row keeps its cells' scores, so the pick rule's one threshold (``MIN_STABILITY``: cells
whose seeds disagree more are passed over) is also chosen held out: for each file, the
threshold with the lowest mean regret on the other files is scored on it.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from datetime import date

import numpy as np
from choose_k import labelled_files

from _common import DOCS, datasets_dir, git_rev, machine
from core.data.atomic import atomic_write
from core.data.io import load_dataset
from core.data.preprocessing import preprocess
from core.experiments.tune import CRITERIA, MIN_STABILITY, tune
from core.methods import REGISTRY

MAX_N = 2100  # larger files take too long for a grid on this shared machine; said in the table


def run(method: str, name: str, seeds: list[int]) -> dict | None:
    ds = load_dataset(datasets_dir() / name)
    if ds.labels is None or ds.n_samples > MAX_N:
        return None
    views, _ = preprocess(ds.views, "auto", REGISTRY[method].auto_preprocessing)
    t0 = time.perf_counter()
    res = tune(method, views, {"n_clusters": ds.n_classes}, seeds=seeds, true_labels=ds.labels)
    best = max(c["acc"] for c in res.cells if np.isfinite(c["acc"]))
    return {
        "method": method,
        "file": name,
        "cells": len(res.cells),
        "best_acc": round(best, 4),
        **{f"acc_{c}": round(res.picks[c]["acc"], 4) for c in CRITERIA},
        **{f"regret_{c}": round(best - res.picks[c]["acc"], 4) for c in CRITERIA},
        "seconds": round(time.perf_counter() - t0, 1),
        "merged": sum(len(c.get("same_as", ())) for c in res.cells),
        "idle": res.idle_axes,
        "grid": [
            {k: (c["params"] if k == "params" else round(float(c[k]), 4)) for k in CELL_KEYS}
            for c in res.cells
        ],
    }


CELL_KEYS = ("params", "stability", "silhouette", "acc")
FLOORS = (0.0, 0.3, 0.5, 0.7, 0.8)


def regret_with_floor(row: dict, floor: float) -> float:
    """The combined criterion's regret on this row's cells with another stability floor."""
    import core.experiments.tune as tune_module

    cells = [{**c, "ok": 1} for c in row["grid"]]
    saved = tune_module.MIN_STABILITY
    tune_module.MIN_STABILITY = floor
    try:
        chosen = cells[tune_module.pick(cells, "combined")]
    finally:
        tune_module.MIN_STABILITY = saved
    return row["best_acc"] - chosen["acc"]


def held_out_floor(rows: list[dict]) -> list[str]:
    """Leave one file out: each file scored with the floor best on the other files."""
    rows = [r for r in rows if "grid" in r]
    if len(rows) < 3:
        return []
    table = {(r["method"], r["file"]): [regret_with_floor(r, f) for f in FLOORS] for r in rows}
    files = sorted({r["file"] for r in rows})
    held, chosen = [], []
    for f in files:
        others = [v for (m, x), v in table.items() if x != f]
        best = int(np.argmin(np.mean(others, axis=0)))
        chosen.append(FLOORS[best])
        held += [v[best] for (m, x), v in table.items() if x == f]
    fixed = np.mean(list(table.values()), axis=0)
    lines = [
        "",
        "## The stability floor, held out",
        "",
        "Combined criterion, mean regret over the rows above with each floor (cells whose "
        "seeds agree less are passed over unless every cell does):",
        "",
        "| floor | " + " | ".join(f"{f:g}" for f in FLOORS) + " |",
        "|---|" + "---|" * len(FLOORS),
        "| mean regret | " + " | ".join(f"{v:.4f}" for v in fixed) + " |",
        "",
        f"Leave one file out (the floor chosen on the other files): mean regret "
        f"**{np.mean(held):.4f}**, median {np.median(held):.4f}; floors chosen: "
        + ", ".join(f"{f:g} x{chosen.count(f)}" for f in sorted(set(chosen)))
        + f". The shipped floor is {MIN_STABILITY:g}.",
    ]
    return lines


def _repick(row: dict) -> dict:
    """The row's picks with the shipped pick rule (rows keep their cells' scores)."""
    from core.experiments.tune import pick

    if "grid" not in row:
        return row
    cells = [{**c, "ok": 1} for c in row["grid"]]
    out = dict(row)
    for c in CRITERIA:
        acc = cells[pick(cells, c)]["acc"]
        out[f"acc_{c}"], out[f"regret_{c}"] = acc, round(row["best_acc"] - acc, 4)
    return out


def table(rows: list[dict], command: str) -> str:
    rows = [_repick(r) for r in rows]
    lines = [
        "# Label-free parameter suggestion: regret",
        "",
        f"`{command}` on {date.today()}, {machine()}, commit {git_rev()}, "
        f"load {os.getloadavg()[0]:.1f}. Files above {MAX_N} samples skipped.",
        "",
        "Regret = ACC of the best grid cell by labels - ACC of the cell picked without labels "
        "(cell ACC = mean over the seeds). Grids: each method class's `tune_grid`. Each row "
        "keeps the cell scores of the run that made it (the JSON cache: a method's rows are "
        "re-run with `--methods M`); the picks are remade with the shipped rule.",
        "",
        "| method | median regret: " + " | ".join(CRITERIA) + " | files |",
        "|---|" + "---|" * (len(CRITERIA) + 1),
    ]
    for method in sorted({r["method"] for r in rows}):
        mine = [r for r in rows if r["method"] == method]
        med = [f"{np.median([r[f'regret_{c}'] for r in mine]):.3f}" for c in CRITERIA]
        lines.append(f"| {method} | " + " | ".join(med) + f" | {len(mine)} |")
    allmed = [f"{np.median([r[f'regret_{c}'] for r in rows]):.3f}" for c in CRITERIA]
    lines.append("| **all** | " + " | ".join(allmed) + f" | {len(rows)} |")
    lines += [
        "",
        "| method | file | cells (merged) | best ACC | "
        + " | ".join(f"{c} ACC (regret)" for c in CRITERIA)
        + " | seconds |",
        "|---|---|---|---|" + "---|" * (len(CRITERIA) + 1),
    ]
    for r in rows:
        picks = " | ".join(f"{r[f'acc_{c}']:.3f} ({r[f'regret_{c}']:.3f})" for c in CRITERIA)
        lines.append(
            f"| {r['method']} | {r['file']} | {r['cells']} ({r.get('merged', '-')}) | "
            f"{r['best_acc']:.3f} | {picks} | "
            f"{r['seconds']} |"
        )
    lines += held_out_floor(rows)
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", default="fmdc,alpc,dtll,mvsc-hfd,rg-mvc")
    ap.add_argument("--files", help="comma-separated file names (default: all labelled)")
    ap.add_argument("--seeds", default="0,1")
    ap.add_argument("--table-only", action="store_true", help="rewrite the table from the cache")
    args = ap.parse_args()
    cache = DOCS / "tune_regret.json"
    rows = (
        {(r["method"], r["file"]): r for r in json.loads(cache.read_text())}
        if cache.exists()
        else {}
    )
    seeds = [int(s) for s in args.seeds.split(",")]
    for method in [] if args.table_only else args.methods.split(","):
        for name in args.files.split(",") if args.files else labelled_files():
            try:
                row = run(method, name, seeds)
            except Exception as exc:  # one failing file must not stop a long benchmark
                print(f"{method} {name}: failed: {exc}", flush=True)
                continue
            if row:
                rows[(method, name)] = row
                print(json.dumps(row), flush=True)
                atomic_write(cache, json.dumps(list(rows.values()), indent=1))
    ordered = [rows[k] for k in sorted(rows)]
    command = "MVC_DATASETS=../shared/datasets python benchmarks/tune_regret.py"
    atomic_write(DOCS / "tune_regret.md", table(ordered, command))
    print(table(ordered, command))


if __name__ == "__main__":
    main()
