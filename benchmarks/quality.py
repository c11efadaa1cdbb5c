"""Quality benchmark: a method on the shared benchmark files, next to the paper's numbers.

    MVC_DATASETS=../shared/datasets python benchmarks/quality.py --method fmdc [--seeds 10]

Cases come from benchmarks/cases/<method>.py (CASES, optional paper_protocol). For every case
it reports the honest mean ± std over the seeds (ACC / NMI / purity / time) and, where the
method defines it, the number under the paper's own reporting protocol; it writes a Markdown
table to docs/benchmarks/quality_<method>.md and prints it.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import date

import numpy as np

from _common import DOCS, cases_module, datasets_dir, git_rev, machine
from core.data.io import load_dataset
from core.data.preprocessing import preprocess
from core.methods import REGISTRY
from core.numerics.metrics import all_metrics

_CACHE: dict = {}


def _data(case: dict):
    key = (case["dataset"], tuple(case.get("views") or ()), str(case.get("preprocess", "auto")))
    if key not in _CACHE:
        ds = load_dataset(datasets_dir() / case["dataset"])
        if case.get("views"):
            ds = ds.select_views(case["views"])
        views, chosen = preprocess(ds.views, case.get("preprocess", "auto"))
        _CACHE[key] = (ds, views, chosen)
    return _CACHE[key]


def run_case(method: str, case: dict, seeds: int, module) -> dict:
    ds, views, chosen = _data(case)
    cls = REGISTRY[method]
    rows, fitted0 = [], None
    for seed in range(seeds):
        params = {"n_clusters": ds.n_classes, **case.get("params", {}), "random_state": seed}
        solver = cls.from_params(params)
        t0 = time.perf_counter()
        solver.fit(views)
        elapsed = time.perf_counter() - t0
        rows.append({**all_metrics(ds.labels, solver.labels_), "time": elapsed})
        if seed == 0:
            fitted0 = solver
    out = {
        k: (float(np.mean([r[k] for r in rows])), float(np.std([r[k] for r in rows])))
        for k in rows[0]
    }
    protocol = getattr(module, "paper_protocol", None)
    out["protocol"] = protocol(fitted0, ds.labels, 0) if protocol else None
    out["chosen"] = chosen
    out["n"], out["dims"] = ds.n_samples, ds.dims
    return out


def _fmt(pair) -> str:
    return f"{pair[0]:.4f} ± {pair[1]:.4f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--method", required=True, choices=sorted(REGISTRY))
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--only", help="comma-separated substrings of dataset names")
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args()
    module = cases_module(args.method)
    cases = module.CASES
    if args.only:
        keys = args.only.split(",")
        cases = [c for c in cases if any(k in c.get("label", c["dataset"]) for k in keys)]
    lines = [
        f"# Quality: {args.method}",
        "",
        f"Command: `MVC_DATASETS=... python benchmarks/quality.py --method {args.method} "
        f"--seeds {args.seeds}`  ",
        f"Run {date.today()} on {machine()}, commit {git_rev()}.",
        "",
        f"Mean ± std over seeds 0..{args.seeds - 1} (honest protocol: one run per seed, "
        "no selection by labels); 'paper protocol' is the paper's own reporting rule "
        "where it differs "
        "(see the note). Paper numbers as printed.",
        "",
        "| case | n / dims | preprocessing | ACC | NMI | purity | time (s) | paper protocol ACC "
        "| paper ACC / NMI / purity | note |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    for case in cases:
        res = run_case(args.method, case, args.seeds, module)
        paper = case.get("paper", {})
        paper_txt = " / ".join(
            f"{paper[k]:.4f}" if k in paper else "–" for k in ("acc", "nmi", "purity")
        )
        proto = res["protocol"]
        proto_txt = f"{proto['acc']:.4f}" if proto else "same"
        params = ", ".join(f"{k}={v}" for k, v in case.get("params", {}).items())
        label = case.get("label", case["dataset"]) + (f" ({params})" if params else "")
        chosen = ", ".join(sorted(set(res["chosen"])))
        dims = "/".join(map(str, res["dims"]))
        row = (
            f"| {label} | {res['n']} / {dims} | {chosen} | {_fmt(res['acc'])} | "
            f"{_fmt(res['nmi'])} | {_fmt(res['purity'])} | {res['time'][0]:.2f} | "
            f"{proto_txt} | {paper_txt} | {case.get('note', '')} |"
        )
        lines.append(row)
        print(row, flush=True)
    if not args.no_write:
        DOCS.mkdir(parents=True, exist_ok=True)
        out = DOCS / f"quality_{args.method.replace('-', '_')}.md"
        out.write_text("\n".join(lines) + "\n")
        print(f"\nwritten to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
