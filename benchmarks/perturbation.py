"""How far a method's result is fixed by its input: ACC under 1e-7 relative perturbations.

    MVC_DATASETS=... python benchmarks/perturbation.py --method dtll --cases [--seeds 3]
    MVC_DATASETS=... python benchmarks/perturbation.py --method dtll --files Handwritten,ACM \
        [--param anchor_style=vda] [--draws 4] [--scale 1e-7]

For every case (``--cases``: the method's quality cases, benchmarks/cases/<method>.py) or
defaults-table file (``--files``: "auto" preprocessing, as ``mvc run`` does), the method runs
on the data as stored and on ``--draws`` copies multiplied by (1 + scale·N(0, 1)), each for
seeds 0..seeds-1. Rounding to float32 changes values by up to 6e-8 relative, so when the
ACC of these copies spreads by more than 0.005, no float32 computation can match the float64
ACC to 0.005 (the float32 target of docs/benchmarks/float32.md): the method itself, not its
precision, decides. A greedy or non-convex step that follows the data's last digits shows
here (DTLL's VDA anchors; MVSC-HFD's polar completion before its fix).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import scipy.sparse as sp

from _common import cases_module, git_rev, machine
from core.methods import REGISTRY
from core.numerics.metrics import accuracy


def perturbed(views: list, scale: float, rng: np.random.Generator) -> list:
    """Copies of the views times (1 + scale·N(0, 1)), stored values only (sparsity kept)."""
    out = []
    for x in views:
        if sp.issparse(x):
            y = sp.csr_matrix(x, dtype=np.float64, copy=True)
            y.data *= 1.0 + scale * rng.standard_normal(y.data.size)
        else:
            y = np.asarray(x, dtype=np.float64)
            y = y * (1.0 + scale * rng.standard_normal(y.shape))
        out.append(y)
    return out


def _inputs(args) -> list[tuple[str, object, list, dict]]:
    """(label, dataset, preprocessed views, params) per case or file."""
    from core.data.preprocessing import preprocess

    extra = dict(_param(p) for p in args.param)
    if args.cases:
        from quality import _data

        out = []
        for case in cases_module(args.method).CASES:
            ds, views, _ = _data(case)
            label = case.get("label", case["dataset"])
            out.append((label, ds, views, {**case.get("params", {}), **extra}))
        return out
    from defaults import _load

    out = []
    for name in args.files.split(","):
        ds = _load(name)
        views, _ = preprocess(ds.views, "auto", REGISTRY[args.method].auto_preprocessing)
        out.append((name, ds, views, extra))
    return out


def _param(text: str) -> tuple[str, object]:
    key, _, value = text.partition("=")
    for cast in (int, float):
        try:
            return key, cast(value)
        except ValueError:
            pass
    return key, value


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--method", required=True, choices=sorted(REGISTRY))
    which = ap.add_mutually_exclusive_group(required=True)
    which.add_argument("--cases", action="store_true", help="the method's quality cases")
    which.add_argument("--files", help="defaults-table files, comma-separated")
    ap.add_argument("--param", action="append", default=[], help="key=value, repeatable")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--draws", type=int, default=4)
    ap.add_argument("--scale", type=float, default=1e-7)
    args = ap.parse_args()
    cls = REGISTRY[args.method]
    print(f"`python benchmarks/perturbation.py {' '.join(sys.argv[1:])}`, commit {git_rev()}, "
          f"{machine()}\n")  # fmt: skip
    print("| input | " + " | ".join(f"seed {s}" for s in range(args.seeds)) + " | mean |")
    print("|---|" + "---|" * (args.seeds + 1))
    for label, ds, views, params in _inputs(args):
        spread = []
        for draw in range(-1, args.draws):
            data = views if draw < 0 else perturbed(views, args.scale, np.random.default_rng(draw))
            accs = []
            for seed in range(args.seeds):
                solver = cls.from_params(
                    {"n_clusters": ds.n_classes, **params, "random_state": seed}
                )
                accs.append(accuracy(ds.labels, solver.fit(data).labels_))
            spread.append(float(np.mean(accs)))
            name = f"{label}, as stored" if draw < 0 else f"{label}, draw {draw}"
            cells = " | ".join(f"{a:.4f}" for a in accs)
            print(f"| {name} | {cells} | {spread[-1]:.4f} |", flush=True)
        print(f"| **{label}: spread of the mean** | {max(spread) - min(spread):.4f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
