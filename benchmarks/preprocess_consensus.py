"""Label-free preprocessing per file by consensus: run a method with each fixed preprocessing
setting and keep the partition that agrees most with the others (the medoid by mean ARI, or
by mean NMI), against the method's ``auto`` rule. Scored like ``defaults.py --held-out``: the
share of files within 0.05 ACC of the best fixed setting, seed 0, true k.

    MVC_DATASETS=../shared/datasets python benchmarks/preprocess_consensus.py \\
        --files TwoMoon,3Sources,NGs --methods fmdc,dtll

The labels of each run are kept in --cache (a second call only scores). The consensus needs
no labels and no rule, but it costs one fit per setting (six), and settings that fail the
same way agree with each other: the reason it is not the default (docs/benchmarks/defaults.md).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
from pathlib import Path

import numpy as np

from _common import ROOT

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from preprocess_grid import FIXED, _current_rule, choices_by_file, load

SMALL_FILES = (
    "TwoMoon,ThreeRing,3Sources,WebKB-203_3view,MSRC-v1_5view,MSRC-v1_6view,Dermatology,NGs,"
    "BBCSport,BBC4view,Reuters-600__triplets,Synthetic3d,WebKB"
)


def _labels_path(cache: Path, method: str, file: str, choices: str) -> Path:
    return cache / f"{method}__{file}__{choices}.npy"


def _fit(task: tuple[str, str, str, str]) -> str:
    """One fit in a worker; its labels saved (an error leaves no file: the setting fails)."""
    method, file, choices, cache = task
    out = _labels_path(Path(cache), method, file, choices)
    if out.exists():
        return "cached"
    from core.data.dataset import DataError
    from core.data.preprocessing import preprocess
    from core.methods import REGISTRY

    ds = load(file)
    try:
        views, _ = preprocess(ds.views, choices.split("+"))
        solver = REGISTRY[method].from_params({"n_clusters": ds.n_classes, "random_state": 0})
        solver.fit(views)
    except (DataError, ValueError, ArithmeticError, np.linalg.LinAlgError) as exc:
        return f"{method} {file} {choices}: {exc}"
    np.save(out, np.asarray(solver.labels_))
    return "ok"


def _medoid(labels: dict[str, np.ndarray], pool: list[str], agree) -> str:
    def mean_agreement(c: str) -> float:
        return float(np.mean([agree(labels[c], labels[d]) for d in pool if d != c]))

    return max(pool, key=mean_agreement)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", default=SMALL_FILES)
    ap.add_argument("--methods", default="fmdc,alpc,rg-mvc,dtll,mvsc-hfd")
    ap.add_argument("--cache", default="/tmp/preprocess_consensus")
    ap.add_argument("--processes", type=int, default=2)
    args = ap.parse_args()
    for var in ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = "1"
    files, methods = args.files.split(","), args.methods.split(",")
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    table = choices_by_file(files, methods)
    tasks = sorted(
        {
            (m, f, by[name], str(cache))
            for (m, f), by in table.items()
            for name in [*FIXED, _current_rule(m)]
        }
    )
    with mp.get_context("spawn").Pool(args.processes) as pool:
        for msg in pool.imap_unordered(_fit, tasks):
            if msg not in ("ok", "cached"):
                print("failed:", msg, flush=True)

    from core.numerics.metrics import accuracy, adjusted_rand, nmi

    print(
        "| method | files | rule: within 0.05 of the best fixed setting (mean regret) | "
        "medoid by ARI | medoid by NMI | medoid misses |"
    )
    print("|---|---|---|---|---|---|")
    for m in methods:
        regret: dict[str, list[float]] = {"rule": [], "ari": [], "nmi": []}
        misses = []
        for f in files:
            by, y = table[m, f], load(f).labels
            fixed = sorted({by[name] for name in FIXED})
            rule = by[_current_rule(m)]
            labels = {}
            for ch in {*fixed, rule}:
                p = _labels_path(cache, m, f, ch)
                if p.exists():
                    labels[ch] = np.load(p)
            if rule not in labels:
                continue
            ran = [c for c in fixed if c in labels]  # a setting that fails is no candidate
            acc = {c: accuracy(y, lab) for c, lab in labels.items()}
            best = max(acc.get(c, 0.0) for c in fixed)
            picks = {
                "rule": rule,
                "ari": _medoid(labels, ran, adjusted_rand),
                "nmi": _medoid(labels, ran, nmi),
            }
            for key, c in picks.items():
                regret[key].append(best - acc[c])
            if best - acc[picks["ari"]] > 0.05:
                misses.append(f"{f} {best - acc[picks['ari']]:.2f}")

        def cell(values: list[float]) -> str:
            ok = sum(r <= 0.05 for r in values)
            return f"{ok}/{len(values)} ({np.mean(values):.3f})"

        print(
            f"| {m} | {len(regret['rule'])} | {cell(regret['rule'])} | {cell(regret['ari'])} | "
            f"{cell(regret['nmi'])} | {', '.join(misses) or '-'} |"
        )


if __name__ == "__main__":
    main()
