"""The ``mvc`` command: headless, scriptable runs of the same solvers the GUI uses.

mvc info FILE                     describe a multi-view file
mvc methods                       list the methods and their parameters
mvc run FILE --method fmdc ...    run a method, print progress and metrics, write CSV/JSON
mvc run --demo --method fmdc      the same on the embedded handwritten-digits data
mvc tune FILE --method fmdc       suggest parameters without labels (core/cli/tune.py)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

import numpy as np

from core.cli import compile_notice
from core.cli.catalog import REGISTRY, method_table
from core.cli.data_args import (
    add_data_args,
    add_table_args,
    load_data,
    prepare,
    select_views,
    view_numbers,
    views_for_k,
)
from core.cli.experiments import add_experiment_parsers, run_experiment
from core.cli.explain import add_explain_parser, cmd_explain
from core.cli.params import add_param_flags, collect_params
from core.cli.predict import add_predict_parser, cmd_predict
from core.cli.stream import add_stream_args
from core.cli.tune import add_tune_parser, cmd_tune
from core.data.atomic import check_writable
from core.data.dataset import DataError, MultiViewDataset
from core.data.preprocessing import AUTO_RULES
from core.methods.params import ParamError
from core.methods.states import IterationState, normalized_weights

if TYPE_CHECKING:  # the records import numba: in the commands that write them, not for --help
    from core.records.runs import RunResult

EXIT_USAGE = 2


class ProgressPrinter:
    """Stage / iteration / objective on stderr: one live line on a terminal, sparse lines
    otherwise (every stage change and at most one iteration line per second)."""

    def __init__(self, stream: TextIO, quiet: bool = False) -> None:
        self.stream, self.quiet = stream, quiet
        self.tty = stream.isatty()
        self.last_stage, self.last_print = "", 0.0

    def __call__(self, state: IterationState) -> None:
        if self.quiet:
            return
        text = f"[{state.progress * 100:5.1f}%] {state.stage:<10}"
        if state.stage in ("iterating", "done"):
            obj = "-" if state.objective is None else f"{state.objective:.6g}"
            text += f" iteration {state.iteration:<4} objective {obj}"
        elif state.message:
            text += f" {state.message}"
        now = time.perf_counter()
        changed = state.stage != self.last_stage
        if self.tty:
            if changed or now - self.last_print > 0.05 or state.final:
                end = "\n" if state.final else ""
                self.stream.write("\r\033[K" + text + end)
                self.stream.flush()
                self.last_print = now
        elif changed or state.final or now - self.last_print >= 1.0:
            self.stream.write(text + "\n")
            self.last_print = now
        self.last_stage = state.stage


def _print_info(ds: MultiViewDataset, out: TextIO) -> None:
    s = ds.summary()
    out.write(f"{ds.name}: {ds.n_samples} samples, {ds.n_views} views  ({ds.source})\n")
    dtypes = ds.meta.get("dtypes") or [None] * ds.n_views
    for i, (row, dtype) in enumerate(zip(s["views"], dtypes, strict=True)):
        kind = f"{row['storage']}, density {row['density']:.3g}"
        orig = f", stored as {dtype}" if dtype else ""
        ints = ", integer-valued" if row["integer_valued"] else ""
        out.write(
            f"  view {i + 1} {row['name']!r}: {row['shape'][0]} x {row['shape'][1]}{orig}{ints}, "
            f"{kind}, values [{row['min']:.4g}, {row['max']:.4g}], "
            f"{row['zero_rows']} all-zero rows\n"
        )
    if ds.labels is None:
        out.write("  labels: none found\n")
    else:
        var = ds.meta.get("label_variable")
        counts = ", ".join(
            f"{name}: {c}" for name, c in zip(ds.class_names, s["class_counts"], strict=False)
        )
        out.write(f"  labels{f' ({var})' if var else ''}: {ds.n_classes} classes ({counts})\n")
    _print_alignment(ds, s, out)
    problems = list(ds.warnings)
    for i, row in enumerate(s["views"]):
        absent = 0 if ds.observed is None else int(np.count_nonzero(~ds.observed[:, i]))
        if row["zero_rows"] > absent:  # rows of missing views are zeros by design
            problems.append(
                f"view {i + 1} has {row['zero_rows'] - absent} all-zero rows (those samples "
                "carry no information in this view)"
            )
    for p in problems:
        out.write(f"  note: {p}\n")


def _print_alignment(ds: MultiViewDataset, s: dict, out: TextIO) -> None:
    """Ids per view and shared, missing views, metadata columns (data with sample ids)."""
    counts = ds.meta.get("ids_per_view")
    if counts:
        per = ", ".join(f"{c['view']}: {c['ids']}" for c in counts)
        out.write(
            f"  sample ids: {ds.n_samples} in all; per view {per}; in every view: "
            f"{s['complete_samples']}\n"
        )
    elif ds.sample_ids is not None:
        out.write(f"  sample ids: {ds.n_samples} (first {', '.join(ds.ids[:3].tolist())})\n")
    if s["observed_per_view"] is not None:
        miss = ", ".join(
            f"{name}: {ds.n_samples - k}"
            for name, k in zip(ds.view_names, s["observed_per_view"], strict=True)
        )
        out.write(f"  missing views (rows stored as zeros, marked unobserved): {miss}\n")
    if ds.metadata:
        cols = ", ".join(f"{k} ({v})" for k, v in s["metadata_columns"].items())
        out.write(f"  metadata: {cols}\n")


def cmd_info(args: argparse.Namespace) -> int:
    ds = load_data(args)  # too big for memory: streamed, the summary from one pass per view
    if args.json:
        sys.stdout.write(json.dumps(ds.summary(), indent=2, default=str) + "\n")
    else:
        _print_info(ds, sys.stdout)
    return 0


def cmd_methods(args: argparse.Namespace) -> int:
    for cls in method_table():  # from a copy in the cache folder: no solver is imported
        sys.stdout.write(f"{cls.name}: {cls.title}\n    {cls.summary}\n")
        for p in cls.param_spec:
            default = "auto" if p.default is None else p.default
            sys.stdout.write(
                f"    --{p.name.replace('_', '-'):<16} {p.range_text()}, "
                f"default {default}: {p.help}\n"
            )
    return 0


def cmd_run(full: argparse.Namespace) -> int:
    from core.records.runs import RunResult

    cls = REGISTRY[full.method]
    _check_outputs(full)  # refuse a bad output path before a long run, not after
    loaded = load_data(full, cls)  # all views: the HTML report lists the ones left out too
    streamed = loaded.meta.get("opened_as") == "streamed"
    ds = select_views(loaded, full.views)
    params = collect_params(full, cls.param_spec)
    from_labels = "n_clusters" not in params and (ds.n_classes or 0) >= 2
    if "n_clusters" not in params:  # the classes of the reference labels, else estimated
        params["n_clusters"] = ds.n_classes if from_labels else "auto"
    solver = cls.from_params(params)
    if not ds.complete and not cls.supports_incomplete:
        missing = int(np.count_nonzero(~ds.observed.all(axis=1)))
        raise DataError(
            f"--method {full.method} needs every view of every sample, but {missing} sample(s) "
            "miss a view: use --align shared (keep the samples every view has), or a method "
            "that handles incomplete views"
        )
    err = sys.stderr
    if streamed:
        err.write(f"streaming: {loaded.meta.get('stream_reason', '')}\n")
    # incomplete views: statistics from each view's observed samples (missing rows never read)
    views, transforms = prepare(ds, full.preprocess, cls)
    for note in ds.warnings:  # what loading repaired, imputed or left out: never silent
        err.write(f"note: {note}\n")
    if "auto" in full.preprocess.split(","):
        rule = AUTO_RULES[cls.auto_preprocessing][1]
        err.write(f"auto preprocessing for {full.method}: {rule}\n")
    for name, t in zip(ds.view_names, transforms, strict=True):
        err.write(f"preprocessing {name}: {t.label}\n")
    show = ProgressPrinter(err, quiet=full.quiet)
    t0 = time.perf_counter()
    try:
        k_views = views_for_k(ds, full.preprocess, cls)  # every method's estimate alike
        for state in solver.iterate(views, ds.observed, k_views=k_views):
            show(state)
    except (DataError, ParamError) as exc:
        if not from_labels or "n_clusters" not in str(exc):
            raise
        var = ds.meta.get("label_variable")  # say where a k the user never gave came from
        raise type(exc)(
            f"{exc} (n_clusters = {ds.n_classes}: the classes of the reference labels"
            f"{f' ({var})' if var else ''}; --n-clusters K sets another)"
        ) from exc
    _print_resolved(solver, err)
    result = RunResult.from_fit(
        solver,
        loaded,
        view_indices=view_numbers(loaded, full.views),
        transforms=transforms,
        total_seconds=time.perf_counter() - t0,
    )
    _print_summary(result, solver, sys.stdout)
    _write_outputs(full, loaded, ds, result)
    return 0


def _check_outputs(args: argparse.Namespace) -> None:
    """Every output can be written, and none overwrites an input: checked before the run."""
    inputs = {str(p) for p in (args.file, getattr(args, "meta", None)) if p}
    inputs |= {v.split("=", 1)[-1].split("#")[0] for v in getattr(args, "view", None) or []}
    for flag in ("out", "write_back", "report", "html", "profile"):
        path = getattr(args, flag, None)
        if not path:
            continue
        name = "--" + flag.replace("_", "-")
        if path in inputs:
            raise DataError(f"{name} {path}: choose a new file, not an input")
        check_writable(path, name)
    if args.write_back and not _write_back_source(args):
        raise DataError("--write-back needs --meta TABLE, or an .h5ad/.h5mu data file")


def _write_back_source(args: argparse.Namespace) -> str | None:
    """The file whose copy gets the clusters: the metadata table, or an AnnData/MuData file."""
    meta = getattr(args, "meta", None)
    if meta:
        return meta
    file = args.file or ""
    return file if file.lower().endswith((".h5ad", ".h5mu")) else None


def _write_outputs(
    args: argparse.Namespace, loaded: MultiViewDataset, ds: MultiViewDataset, result: RunResult
) -> None:
    from core.records.profiles_table import profile_rows, profiles_html, write_profiles_csv
    from core.records.report import write_report
    from core.records.runs import write_labels_csv, write_run

    out = sys.stdout
    if args.out:
        write_labels_csv(args.out, result.labels, ds.labels, ds.ids.tolist(), ds.class_names)
        out.write(f"labels written to {args.out}\n")
    if args.write_back:
        target = _write_back(args, ds, result)
        out.write(f"clusters added as column 'mvc_cluster' in {target}\n")
    if args.report:
        write_run(args.report, result)
        out.write(f"run record written to {args.report}\n")
        if result.prediction is not None:
            out.write(f"  with what `mvc predict --run {args.report}` needs beside it\n")
        else:
            out.write(f"  note: {result.method} keeps nothing to assign new samples with\n")
    rows = profile_rows(ds, result.labels) if (args.profile or args.html) else []
    if args.profile:
        write_profiles_csv(args.profile, rows)
        out.write(f"cluster profiles written to {args.profile}\n")
    if args.html:
        write_report(args.html, result, loaded.summary(), profiles_section=profiles_html(rows))
        out.write(f"HTML report written to {args.html}\n")


def _write_back(args: argparse.Namespace, ds: MultiViewDataset, result: RunResult):
    from core.records.write_back import write_back

    return write_back(_write_back_source(args), args.write_back, ds.ids.tolist(), result.labels,
                      id_column=getattr(args, "id_column", None))  # fmt: skip


def _print_resolved(solver: object, out: TextIO) -> None:
    """The values automatic parameters took for this data (docs/defaults.md)."""
    auto = {
        k: v
        for k, v in getattr(solver, "resolved_params_", {}).items()
        if getattr(solver, k, None) is None and v is not None
    }
    if auto:
        out.write(
            "automatic parameters: "
            + ", ".join(
                f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in auto.items()
            )
            + "\n"
        )


def _print_summary(result: RunResult, solver: object, out: TextIO) -> None:
    status = "converged" if result.converged else "stopped at max_iter"
    out.write(
        f"{result.method}: {status} after {result.n_iter} iterations in "
        f"{result.timings.get('total', 0):.2f} s\n"
    )
    if result.view_weights is not None:
        w = normalized_weights(result.view_weights)
        out.write(
            "view weights: "
            + ", ".join(f"{n}={x:.3f}" for n, x in zip(result.view_names, w, strict=False))
            + "\n"
        )
    if est := result.n_clusters_estimate:
        from core.numerics.k_estimate import coarse_note, describe_estimate  # not for --help

        out.write(
            f"number of clusters estimated: {describe_estimate(est)} ({est['seconds']:.2f} s)\n"
        )
        if note := coarse_note(est):
            out.write(f"  note: {note}\n")
    sizes = np.bincount(result.labels)
    out.write(f"cluster sizes: {sizes.tolist()}\n")
    if result.metrics:
        m = result.metrics
        out.write(
            f"ACC {m['acc']:.4f}  NMI {m['nmi']:.4f}  purity {m['purity']:.4f}  "
            f"ARI {m['ari']:.4f}  F-score {m['f_score']:.4f}\n"
        )


def build_parser(method: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mvc", description="MVC Studio command line")
    sub = parser.add_subparsers(dest="command", required=True)
    info = sub.add_parser("info", help="describe a multi-view data file")
    info.add_argument("file", nargs="?")
    info.add_argument("--demo", nargs="?", const="handwritten", default=None)
    info.add_argument("--json", action="store_true", help="machine-readable output")
    add_table_args(info)
    info.add_argument(
        "--no-isolate",
        dest="isolate",
        action="store_false",
        help="read the file in this process (by default a child process reads it, so a "
        "damaged file cannot crash the command)",
    )
    add_stream_args(info)
    sub.add_parser("methods", help="list the methods and their parameters")
    add_predict_parser(sub)
    add_explain_parser(sub)
    run = sub.add_parser("run", help="cluster a file with one method")
    run.add_argument("--method", required=True, choices=sorted(REGISTRY))
    add_data_args(run)
    run.add_argument("--out", help="write the labels CSV here (sample_id, cluster[, truth])")
    run.add_argument(
        "--write-back",
        metavar="NEW_PATH",
        help="also write the clusters as a new column of the metadata table (--meta), or of "
        "obs in a copy of the .h5ad/.h5mu input, to NEW_PATH (the input is never modified)",
    )
    run.add_argument("--report", help="write the JSON run record here")
    run.add_argument("--html", help="write an HTML report of the run here (self-contained)")
    run.add_argument("--quiet", action="store_true", help="no progress output")
    add_stream_args(run)
    run.add_argument(
        "--profile",
        help="write the cluster profiles here: per view and cluster the features that set it "
        "apart (effect size, Mann-Whitney test, BH q-values), CSV",
    )
    if method:
        cls = REGISTRY[method]
        add_param_flags(run, cls.param_spec, cls.title)
    add_experiment_parsers(sub, method)
    add_tune_parser(sub, method)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--method")
    known, _ = pre.parse_known_args(argv)
    args = build_parser(known.method if known.method in REGISTRY else None).parse_args(argv)
    try:
        if args.command == "info":
            return cmd_info(args)
        if args.command == "methods":
            return cmd_methods(args)
        with compile_notice.announce_compiles(known.method):  # a first run compiles
            if args.command in ("sweep", "robustness"):
                return run_experiment(args)
            if args.command == "predict":
                return cmd_predict(args)
            if args.command == "explain":
                return cmd_explain(args)
            if args.command == "tune":
                return cmd_tune(args)
            return cmd_run(args)
    except (DataError, ParamError, OSError) as exc:
        sys.stderr.write(f"mvc: error: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write("\nmvc: interrupted; nothing was written\n")
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
