"""``mvc tune``: suggest a method's parameters without labels.

mvc tune FILE --method fmdc [--grid n_anchors=64,128 ...] [--grid preprocess=auto,none]
    [--seeds 0,1] [--criterion combined] [--out best.json]

Runs a small grid (each method class's `tune_grid`, or --grid axes, preprocess among them)
over the seeds, scores every cell without labels, prints the table, why the suggested cell
won, and that cell as ``mvc run`` flags; on a labelled file also the regret (ACC of the best
cell by labels minus ACC of the suggestion).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any, TextIO

from core.cli.catalog import REGISTRY, source_literal
from core.cli.data_args import add_data_args, load_data, select_views
from core.cli.params import add_param_flags, collect_params
from core.data.atomic import atomic_write
from core.data.prepare import estimate_views
from core.data.preprocessing import preprocess
from core.methods.params import ParamError, cli_flag

if TYPE_CHECKING:
    from core.experiments.tune import TuneResult

# core.experiments imports the solvers (numba, scikit-learn): in the command, not for --help
CRITERIA = source_literal("core.experiments.tune", "CRITERIA")

__all__ = ["add_tune_parser", "cmd_tune"]


def add_tune_parser(sub: Any, method: str | None = None) -> None:
    p = sub.add_parser(
        "tune",
        help="suggest a method's parameters without labels",
        description="Run a small grid of the method's main parameters over a few seeds, "
        "score each cell without labels (stability across seeds, silhouette, or both) and "
        "print the best cell as mvc run flags (docs/tuning.md).",
    )
    add_data_args(p)
    p.add_argument("--method", required=True, choices=sorted(REGISTRY))
    p.add_argument(
        "--grid",
        action="append",
        metavar="NAME=V1,V2,...",
        help="replace the default grid (repeat for more axes); preprocess=auto,none,... "
        "compares preprocessings",
    )
    p.add_argument("--seeds", default="0,1", help="seeds per cell (default 0,1)")
    p.add_argument("--criterion", choices=CRITERIA, default="combined")
    p.add_argument("--n-jobs", type=int, default=1, help="parallel runs (default 1)")
    p.add_argument("--out", help="write the suggested parameters as JSON here")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    if method:
        add_param_flags(p, REGISTRY[method].param_spec, REGISTRY[method].title + " (fixed)")


def _flags(params: dict[str, Any]) -> str:
    from core.experiments.sweep import format_value
    from core.experiments.tune import PREPROCESS_AXIS

    def flag(name: str) -> str:  # the preprocessing is the data flag, not a parameter
        return "--preprocess" if name == PREPROCESS_AXIS else cli_flag(name)

    return " ".join(f"{flag(k)} {format_value(v)}" for k, v in params.items())


def _print(result: TuneResult, out: TextIO) -> None:
    from core.experiments.plan import finite
    from core.experiments.sweep import format_value

    names = list(result.best["params"])
    scores = ["stability", "silhouette"] + (["acc"] if result.regret is not None else [])
    out.write("  ".join(f"{s:>12}" for s in [*names, *scores]) + "\n")
    for cell in result.cells:
        vals = [format_value(cell["params"][n]) for n in names]
        vals += [f"{cell[s]:.4f}" if finite(cell[s]) else "-" for s in scores]
        mark = "  <- suggested" if cell is result.best else ""
        if cell.get("same_as"):
            mark += f"  (also {len(cell['same_as'])} setting(s) with the same labels)"
        out.write("  ".join(f"{v:>12}" for v in vals) + mark + "\n")
    for line in result.note.splitlines():
        out.write(f"note: {line}\n")
    out.write(f"suggested ({result.criterion}): {_flags(result.best['params'])}\n")
    if result.regret is not None and result.best_by_labels is not None:
        out.write(
            f"with the labels: best cell {result.describe(result.best_by_labels)} ACC "
            f"{result.best_by_labels['acc']:.4f}; suggested ACC {result.best['acc']:.4f}; "
            f"regret {result.regret:.4f}\n"
        )


def _preprocessings(args: argparse.Namespace, method: str) -> tuple[list[str], list[str]]:
    """The preprocessings to compare (``--grid preprocess=...``; none: only ``--preprocess``)
    and the other --grid options."""
    from core.data.preprocessing import PREPROCESSORS
    from core.experiments.tune import PREPROCESS_AXIS

    grids, chosen = [], None
    for text in args.grid or []:
        name, _, values = text.partition("=")
        if name.strip() == PREPROCESS_AXIS:
            chosen = [v.strip() for v in values.split(",") if v.strip()]
            bad = [v for v in chosen if v not in PREPROCESSORS]
            if bad or not chosen:
                raise ParamError(
                    f"--grid {PREPROCESS_AXIS}: unknown {bad or values!r}; choose from "
                    f"{', '.join(PREPROCESSORS)}"
                )
        else:
            grids.append(text)
    return list(dict.fromkeys(chosen or [])), grids


def cmd_tune(args: argparse.Namespace) -> int:
    from core.experiments.sweep import base_params_for, parse_grid, parse_seeds
    from core.experiments.tune import tune

    method = args.method
    ds = select_views(load_data(args, complete="mvc tune"), args.views)
    fixed = base_params_for(method, collect_params(args, REGISTRY[method].param_spec), ds.n_classes)
    compared, grids = _preprocessings(args, method)
    axes = [parse_grid(g, method) for g in grids] or None
    rule = REGISTRY[method].auto_preprocessing  # auto follows the method's own rule
    err = sys.stderr
    variants: dict[str, Any] = {}
    k_views: dict[str, Any] = {}  # what an auto k is estimated on, per preprocessing
    for how in compared or [args.preprocess]:
        spec = how.split(",") if "," in how else how
        views, chosen = preprocess(ds.views, spec, rule)
        variants[how] = views
        k_views[how] = estimate_views(ds.views, spec, rule)
        for name, text in zip(ds.view_names, chosen, strict=True):
            err.write(f"preprocessing {name}: {text}" + (f" ({how})" if compared else "") + "\n")
    views = variants if compared else variants[args.preprocess]

    def progress(index: int, row: dict[str, Any]) -> None:
        if not args.quiet:
            status = "ok" if row["status"] == "ok" else f"{row['status']}: {row.get('error')}"
            err.write(f"cell {index + 1}: {status} ({row.get('seconds', 0):.2f} s)\n")

    result = tune(
        method,
        views,
        fixed,
        axes=axes,
        seeds=parse_seeds(args.seeds),
        criterion=args.criterion,
        true_labels=ds.labels,
        n_jobs=args.n_jobs,
        on_row=progress,
        k_views=k_views if compared else k_views[args.preprocess],
    )
    _print(result, sys.stdout)
    if args.out:
        record = {
            "method": method,
            "criterion": args.criterion,
            **result.best["params"],
            "note": result.note,
        }
        atomic_write(args.out, json.dumps(record, indent=2, default=str))
        sys.stdout.write(f"suggested parameters written to {args.out}\n")
    return 0
