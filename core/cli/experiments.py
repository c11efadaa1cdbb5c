"""``mvc sweep`` and ``mvc robustness``: many runs in parallel, one CSV row per run.

mvc sweep FILE --method fmdc --grid n_anchors=16,32,64 --grid n_neighbors=5,10 --out sweep.csv
mvc robustness FILE --method fmdc --method rg-mvc --noisy-views 1,4 --levels 0,0.5,1,2 \
    --out robustness.csv
mvc robustness FILE --method fmdc --method alpc --missing 0,0.1,0.3,0.5 --out missing.csv

Both load, select and preprocess data exactly like ``mvc run`` and run through joblib
(``--n-jobs``, ``--backend``; docs/sweeps.md shows a Dask or Ray cluster).
"""

from __future__ import annotations

import argparse
import functools
import math
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

from core.cli.catalog import REGISTRY, source_literal
from core.cli.data_args import add_data_args, load_data, select_views
from core.cli.params import add_param_flags, collect_params
from core.data.dataset import DataError, MultiViewDataset
from core.data.prepare import estimate_views
from core.data.preprocessing import preprocess
from core.experiments.amputation import FILLS
from core.methods.params import ParamError

if TYPE_CHECKING:
    from core.experiments.plan import BatchPlan
    from core.experiments.robustness import Robustness

# core.experiments' plans import the solvers (numba, scikit-learn): in the commands, not for
# --help
NOISE_SCALES = source_literal("core.experiments.robustness", "NOISE_SCALES")

__all__ = ["add_experiment_parsers", "run_experiment"]

BACKENDS = ("loky", "threading", "multiprocessing", "dask", "ray")
_CLIENTS: list[Any] = []  # keeps a Dask client alive for the duration of the command


def _parallel_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--n-jobs",
        type=int,
        default=-1,
        help="parallel runs (default -1: all cores; 1: one at a time)",
    )
    p.add_argument(
        "--backend",
        choices=BACKENDS,
        default="loky",
        help="joblib backend (default loky: processes on this machine; dask and ray need "
        "those packages, see docs/sweeps.md)",
    )
    p.add_argument("--scheduler", help="Dask scheduler or Ray cluster address")
    p.add_argument("--quiet", action="store_true", help="no progress output")


def add_experiment_parsers(sub: Any, method: str | None = None) -> None:
    """Add the ``sweep`` and ``robustness`` subcommands to ``mvc``'s subparsers."""

    names = " (`mvc sweep --method NAME --help` lists the method's parameters)"
    if method:
        from core.experiments.sweep import sweepable

        names = f". Parameters of {method}: " + ", ".join(p.name for p in sweepable(method))
    sweep = sub.add_parser(
        "sweep",
        help="run one method over a grid of parameter values",
        description="Run one method over every combination of the --grid values (and seeds), "
        "in parallel; write one CSV row per grid cell and seed" + names + ".",
        epilog="example: mvc sweep data.mat --method fmdc --grid n_anchors=16,32,64 "
        "--grid n_neighbors=5,10 --seeds 0,1,2 --out sweep.csv",
    )
    add_data_args(sweep)
    sweep.add_argument("--method", required=True, choices=sorted(REGISTRY))
    sweep.add_argument(
        "--grid",
        action="append",
        required=True,
        metavar="NAME=V1,V2,...",
        help="a parameter and its values, e.g. n_anchors=16,32,64 (repeat for more axes; "
        "lo:hi:count spans a range, geometric for log-scale parameters)" + names,
    )
    sweep.add_argument("--seeds", default="0", help="seeds per cell, e.g. 0,1,2 or 0-4")
    sweep.add_argument("--out", required=True, help="the CSV to write")
    _parallel_args(sweep)
    if method:
        add_param_flags(sweep, REGISTRY[method].param_spec, REGISTRY[method].title + " (fixed)")

    rob = sub.add_parser(
        "robustness",
        help="accuracy and view weights against Gaussian noise on chosen views, or "
        "against missing views (--missing)",
        description="Add Gaussian noise (level x the feature's std, on --fraction of the "
        "entries) to the chosen views, rerun each method, and record scores and view weights "
        "per noise level and seed (docs/robustness.md). With --missing instead: remove "
        "views from growing shares of the samples (docs/methods/incomplete.md).",
    )
    add_data_args(rob)
    rob.add_argument(
        "--method",
        action="append",
        required=True,
        choices=sorted(REGISTRY),
        help="a method to test (repeat for several)",
    )
    rob.add_argument(
        "--noisy-views",
        help="views to corrupt: 1-based numbers as in --views, or names (noise experiment)",
    )
    rob.add_argument(
        "--missing",
        metavar="RATES",
        help="amputation instead of noise: remove views from these shares of the samples "
        "(e.g. 0.1,0.3,0.5; each sample keeps one view); methods without incomplete-view "
        "support get the missing views filled (--fill)",
    )
    rob.add_argument(
        "--fill",
        choices=FILLS,
        default="mean",
        help="with --missing: fill for methods that need complete views (default: the "
        "view's mean over its observed samples)",
    )
    rob.add_argument("--levels", default="0,0.25,0.5,1,2", help="noise levels (alpha)")
    rob.add_argument("--seeds", default="0,1,2", help="seeds, e.g. 0,1,2 or 0-4")
    rob.add_argument("--fraction", type=float, default=0.8, help="share of noisy entries")
    rob.add_argument(
        "--noise-scale",
        choices=NOISE_SCALES,
        default="feature",
        help="noise std unit: each feature's std (default), the view's, or 1",
    )
    rob.add_argument("--n-clusters", type=int, help="clusters (default: number of classes)")
    rob.add_argument("--out", required=True, help="the CSV to write")
    _parallel_args(rob)


def _selected(ds: MultiViewDataset, text: str | None) -> tuple[MultiViewDataset, list[int]]:
    """The dataset restricted to --views, and the file's (0-based) index of each view kept."""

    selected = select_views(ds, text)  # validates the numbers first
    chosen = list(range(ds.n_views)) if not text else [int(t) - 1 for t in text.split(",")]
    return selected, chosen


def _noisy_views(text: str, ds: MultiViewDataset, file_index: list[int]) -> list[int]:
    out = []
    for token in (t.strip() for t in text.split(",") if t.strip()):
        if token.isdigit():
            k = int(token)
            if k == 0:
                raise DataError("--noisy-views: views are numbered from 1 (as in --views); got 0")
            if k - 1 not in file_index:
                raise DataError(f"--noisy-views: view {k} is not among the views used")
            out.append(file_index.index(k - 1))
        elif token in ds.view_names:
            out.append(ds.view_names.index(token))
        else:
            names = ", ".join(ds.view_names)
            raise DataError(f"--noisy-views: no view {token!r} (views: {names})")
    if not out:
        raise DataError("--noisy-views: give at least one view to corrupt")
    return sorted(set(out))


def _levels(text: str, flag: str = "--levels") -> list[float]:
    try:
        levels = [float(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise DataError(f"{flag} takes numbers like 0,0.5,1,2; got {text!r}") from None
    if not levels or any(not math.isfinite(x) or x < 0 for x in levels):
        raise DataError(f"{flag} must be finite numbers >= 0; got {text!r}")
    return levels


def _backend(args: argparse.Namespace) -> str:
    """Set up a Dask client or Ray's joblib backend when asked (neither is a dependency)."""
    if args.backend == "dask":
        try:
            from dask.distributed import Client
        except ImportError:
            raise ParamError(
                "--backend dask needs dask.distributed: pip install 'dask[distributed]'"
            ) from None
        _CLIENTS.append(Client(args.scheduler) if args.scheduler else Client())
    elif args.backend == "ray":
        try:
            import ray
            from ray.util.joblib import register_ray
        except ImportError:
            raise ParamError("--backend ray needs ray: pip install 'ray[default]'") from None
        register_ray()
        if not ray.is_initialized():
            ray.init(address=args.scheduler)
    return args.backend


def _preprocessing(args: argparse.Namespace) -> str | list[str]:
    return args.preprocess.split(",") if "," in args.preprocess else args.preprocess


def _fmt_scores(row: dict[str, Any], keys: tuple[str, ...]) -> str:
    parts = [f"{k.upper() if len(k) <= 3 else k} {row[k]:.4f}" for k in keys if k in row]
    return " ".join(parts)


class _Progress:
    """One stderr line per finished run of a plan (``on_row``)."""

    def __init__(self, plan: BatchPlan, stream: TextIO, quiet: bool) -> None:
        self.plan, self.total, self.stream, self.quiet = plan, len(plan.tasks), stream, quiet
        self.done = 0

    def __call__(self, index: int, row: dict[str, Any]) -> None:
        self.done += 1
        if self.quiet:
            return
        what = self.plan.describe_index(index)
        head = f"[{self.done:>{len(str(self.total))}}/{self.total}] {what}:"
        if row["status"] == "ok":
            keys = ("acc", "nmi") if "acc" in row else ("silhouette", "objective")
            text = f"{_fmt_scores(row, keys)} ({row['seconds']:.2f} s)"
        else:
            text = f"{row['status']}: {row.get('error', '')}"
        self.stream.write(f"{head} {text}\n")
        self.stream.flush()


def _run_to_csv(
    plan: BatchPlan, run: Callable[[_Progress], object], args: argparse.Namespace, what: str
) -> bool:
    """``run(on_row)`` with progress lines, then the CSV ``--out``. On Ctrl+C the runs that
    finished are written and it returns False (the command then exits with 130)."""
    progress = _Progress(plan, sys.stderr, args.quiet)
    try:
        run(progress)
    except KeyboardInterrupt:
        plan.write_csv(args.out)
        sys.stderr.write(
            f"\nmvc: interrupted; {progress.done} finished {what} written to {args.out}\n"
        )
        return False
    plan.write_csv(args.out)
    return True


def cmd_sweep(args: argparse.Namespace) -> int:
    from core.experiments.sweep import Sweep, base_params_for, parse_grid, parse_seeds, run_sweep

    method = args.method
    ds, _ = _selected(load_data(args, complete="mvc sweep"), args.views)
    axes = [parse_grid(g, method) for g in args.grid]
    fixed = collect_params(args, REGISTRY[method].param_spec)
    if "random_state" in fixed:
        raise ParamError("a sweep takes its seeds from --seeds, not --seed")
    both = [a.name for a in axes if a.name in fixed]
    if both:
        raise ParamError(f"{both[0]} is both fixed (--{both[0].replace('_', '-')}) and swept")
    sweep = Sweep(
        method, axes, parse_seeds(args.seeds), base_params_for(method, fixed, ds.n_classes)
    )
    backend = _backend(args)
    rule = REGISTRY[method].auto_preprocessing
    views, chosen = preprocess(ds.views, _preprocessing(args), rule)
    for name, how in zip(ds.view_names, chosen, strict=True):
        sys.stderr.write(f"preprocessing {name}: {how}\n")
    k_views = estimate_views(ds.views, _preprocessing(args), rule)  # as mvc run estimates k

    def run(on_row: _Progress) -> None:
        run_sweep(
            sweep, views, ds.labels, n_jobs=args.n_jobs, backend=backend, on_row=on_row,
            k_views=k_views,
        )  # fmt: skip

    if not _run_to_csv(sweep, run, args, "cells"):
        return 130
    score = "acc" if ds.labels is not None else "silhouette"
    if best := best_row(sweep.rows, score):
        where = sweep.describe_index(sweep.rows.index(best))
        sys.stdout.write(f"best {score} {best[score]:.4f}: {where}\n")
    return _report(sweep.rows, args.out, "cells", sys.stdout)


def cmd_robustness(args: argparse.Namespace) -> int:
    from core.experiments.missing import Amputation, handling, run_amputation
    from core.experiments.robustness import Robustness, method_params, run_robustness
    from core.experiments.sweep import parse_seeds

    if args.missing is not None and args.noisy_views:
        raise DataError("--missing and --noisy-views are separate experiments: give one")
    if args.missing is None and not args.noisy_views:
        raise DataError("give --noisy-views (noise experiment) or --missing (amputation)")
    ds, file_index = _selected(load_data(args, complete="mvc robustness"), args.views)
    k = args.n_clusters or ds.n_classes
    if k is None:
        raise ParamError("the data has no labels: give --n-clusters")
    methods = method_params(list(dict.fromkeys(args.method)), k)
    seeds = parse_seeds(args.seeds)
    if args.missing is not None:
        rates = _levels(args.missing, "--missing")
        plan = Amputation(methods, rates, seeds, [], list(ds.view_names), fill=args.fill)
        runner: Callable[..., Any] = run_amputation
        for m in plan.method_names():
            sys.stderr.write(f"{m}: {handling(m, args.fill)}\n")
    else:
        noisy = _noisy_views(args.noisy_views, ds, file_index)
        plan = Robustness(methods, _levels(args.levels), seeds, noisy, list(ds.view_names))
        runner = functools.partial(run_robustness, fraction=args.fraction, scale=args.noise_scale)
        sys.stderr.write("noisy views: " + ", ".join(ds.view_names[v] for v in noisy) + "\n")
    backend = _backend(args)

    def run(on_row: _Progress) -> None:
        runner(
            plan,
            ds.views,
            ds.labels,
            preprocessing=_preprocessing(args),
            n_jobs=args.n_jobs,
            backend=backend,
            on_row=on_row,
        )

    if not _run_to_csv(plan, run, args, "runs"):
        return 130
    _print_robustness(plan, sys.stdout)
    return _report(plan.rows, args.out, "runs", sys.stdout)


def _print_robustness(plan: Robustness, out: TextIO) -> None:
    from core.experiments.missing import Amputation

    score = "acc" if plan.labels_known else "ari_vs_clean"
    weights = plan.weight_summary()
    noisy = [plan.view_names[v] for v in plan.noisy_views]
    if isinstance(plan, Amputation):
        out.write(f"{score} (mean ± std over seeds) against the share of samples missing views\n")
    else:
        out.write(f"{score} (mean ± std over seeds); weights of the noisy views ")
        out.write(", ".join(noisy) + "\n")
    for method, (levels, mean, std) in plan.summary(score).items():
        for i, level in enumerate(levels):
            line = f"  {method:<14} level {level:<6g} {score} {mean[i]:.4f} ± {std[i]:.4f}"
            if weights[method] is not None and plan.noisy_views:
                w = weights[method][i, plan.noisy_views]
                line += "  weights " + " ".join(f"{x:.3f}" for x in w)
            out.write(line + "\n")


def _report(rows: list[dict[str, Any] | None], path: str, what: str, out: TextIO) -> int:
    done = [r for r in rows if r is not None]
    failed = [r for r in done if r["status"] == "error"]
    out.write(f"{len(done)} {what} ({len(failed)} failed) written to {path}\n")
    if done and len(failed) == len(done):
        sys.stderr.write(f"mvc: every run failed, e.g. {failed[0].get('error')}\n")
        return 1
    return 0


def run_experiment(args: argparse.Namespace) -> int:
    if args.n_jobs == 0:
        raise ParamError("--n-jobs must not be 0 (-1: all cores, 1: one at a time)")
    try:
        return cmd_sweep(args) if args.command == "sweep" else cmd_robustness(args)
    finally:
        for client in _CLIENTS:
            client.close()
        _CLIENTS.clear()


def best_row(rows: list[dict[str, Any] | None], score: str) -> dict[str, Any] | None:
    """The finished row with the highest finite ``score`` (for summaries)."""
    scored = [r for r in rows if r and isinstance(r.get(score), float) and not np.isnan(r[score])]
    return max(scored, key=lambda r: r[score]) if scored else None
