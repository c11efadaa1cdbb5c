"""``mvc explain RUN.json DATA --out-dir DIR``: what the clusters of a finished run, or a group
of its samples, mean, written as CSV tables a script reads (what the app's Analysis workbench
shows).

DATA is given exactly as to ``mvc run`` (a file, or --view/--meta tables); the clusters come
from the run record (``mvc run ... --report RUN.json``), matched to the data's samples by id.
In DIR:

* composition.csv: the group (``--group ids.txt``, one sample id per line), the other group
  (``--versus``) and all samples, by cluster and by metadata column; without --group, every
  cluster;
* compare.csv: per view and feature, the group against the rest (or against --versus): means,
  Cohen's d, AUC, p, q, over the samples that have the view; without --group, every cluster
  against the rest (the same statistics as ``mvc run --profile``, every feature);
* association.csv: every metadata column against the clusters (chi-square with Cramér's V,
  Kruskal-Wallis with epsilon²), strongest first, with the log-rank test when
  --time-column/--event-column are given;
* view_agreement.csv: each view clustered alone against the run (ARI, NMI, learned weight);
* survival.csv: Kaplan-Meier curves per cluster (with --time-column/--event-column).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from core.cli.data_args import add_data_args, load_data
from core.cli.stream import add_stream_args
from core.data.dataset import DataError

__all__ = ["add_explain_parser", "cmd_explain"]

OUTPUTS = ("composition.csv", "compare.csv", "association.csv", "view_agreement.csv")


def add_explain_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "explain",
        help="what a group of samples or the clusters of a run mean: comparison, composition, "
        "association with the metadata, survival, view agreement (CSV)",
        description="The data come as for `mvc run`: FILE, or --view NAME=PATH tables (with "
        "--meta for the metadata columns): the data the run was made on.",
    )
    p.add_argument("run_record", metavar="RUN.json", help="the run record of mvc run --report")
    add_data_args(p, preprocess=False)
    add_stream_args(p)
    p.add_argument(
        "--group",
        metavar="IDS.txt",
        help="the group to explain: one sample id per line (without it: every cluster)",
    )
    p.add_argument(
        "--versus",
        metavar="IDS.txt",
        help="compare the group with these samples instead of all the others",
    )
    p.add_argument("--time-column", metavar="NAME", help="survival: the metadata column of times")
    p.add_argument(
        "--event-column",
        metavar="NAME",
        help="survival: the metadata column saying 1 (event) or 0 (censored)",
    )
    p.add_argument(
        "--alpha",
        type=float,
        metavar="Q",
        help="compare.csv: only the features with q < Q (default: every feature)",
    )
    p.add_argument("--out-dir", required=True, metavar="DIR", help="write the CSV tables here")
    p.add_argument("--seed", type=int, default=0, help="seed of the permutations and clusterings")


def _read_record(path: str) -> dict[str, Any]:
    """The run record's fields ``explain`` needs, checked."""
    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(f"{path} not found: write it with `mvc run ... --report {path}`") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"{path} is not a run record ({exc})") from None
    if not isinstance(record, dict) or record.get("format") != "mvc-studio-run/1":
        raise DataError(f"{path} is not an MVC Studio run record (mvc run --report)")
    labels = record.get("labels")
    if not isinstance(labels, list) or not labels:
        raise DataError(f"{path} holds no cluster labels: write it again with mvc run --report")
    return record


def _run_labels(record: dict[str, Any], ds: Any, path: str) -> np.ndarray:
    """The run's cluster of each sample of ``ds``, matched by id; other data is refused."""
    labels = np.asarray(record["labels"], dtype=np.int64)
    where = ds.source or ds.name
    ids = record.get("sample_ids")
    if ids is None:
        if labels.size != ds.n_samples:
            raise DataError(
                f"{path} was made on {labels.size} samples; {where} has {ds.n_samples}: "
                "give the data the run was made on"
            )
        return labels
    position = {s: i for i, s in enumerate(ds.ids.tolist())}
    missing = [s for s in ids if s not in position]
    if missing:
        shown = ", ".join(repr(s) for s in missing[:3])
        raise DataError(
            f"{path} was made on other data: {len(missing)} of its sample ids ({shown}) are "
            f"not in {where}"
        )
    if len(ids) != ds.n_samples:
        raise DataError(
            f"{path} was made on {len(ids)} of the {ds.n_samples} samples of {where}: give the "
            "data flags of the run (--align shared?)"
        )
    out = np.empty(ds.n_samples, dtype=np.int64)
    out[[position[s] for s in ids]] = labels
    return out


def _run_views(record: dict[str, Any], ds: Any, path: str) -> list[int]:
    """The data's views the run used, checked against their feature counts."""
    data = record.get("dataset") or {}
    idx = [int(i) for i in data.get("view_indices", range(ds.n_views))]
    dims = data.get("dims")
    if max(idx, default=0) >= ds.n_views:
        raise DataError(f"{path} used {max(idx) + 1} views; the data has {ds.n_views}")
    for k, i in enumerate(idx):
        if dims is not None and int(ds.views[i].shape[1]) != int(dims[k]):
            raise DataError(
                f"view {i + 1} ({ds.view_names[i]!r}) has {ds.views[i].shape[1]} features; "
                f"{path} was made on {dims[k]}"
            )
    return idx


def _column(ds: Any, flag: str, name: str) -> np.ndarray:
    if not ds.metadata:
        raise DataError(f"{flag} {name}: the data has no metadata columns (give --meta TABLE)")
    return ds.metadata_column(name)


def _check_args(args: argparse.Namespace) -> Path:
    if args.versus and not args.group:
        raise DataError("--versus goes with --group (the group to compare with it)")
    if bool(args.time_column) != bool(args.event_column):
        given = "--time-column" if args.time_column else "--event-column"
        raise DataError(f"{given} goes with --time-column and --event-column both given")
    if args.alpha is not None and not 0 < args.alpha <= 1:
        raise DataError(f"--alpha {args.alpha:g}: give a q threshold between 0 and 1")
    from core.data.atomic import check_writable

    out = Path(args.out_dir)
    if out.exists() and not out.is_dir():
        raise DataError(f"--out-dir {out} is a file: give a folder")
    check_writable(out / OUTPUTS[0], "--out-dir")
    return out


def cmd_explain(args: argparse.Namespace) -> int:
    # here, not at the top: the analyses import numba and scikit-learn (`mvc --help` does without)
    from core.analysis.association import (
        associate,
        survival,
        write_association_csv,
        write_survival_csv,
    )
    from core.analysis.compare import compare_csv_text, compare_groups
    from core.analysis.groups import composition, read_ids, write_composition_csv
    from core.analysis.view_agreement import write_view_agreement_csv
    from core.data.atomic import atomic_write
    from core.records.profiles_table import feature_names_of

    out_dir = _check_args(args)
    record = _read_record(args.run_record)
    ds = load_data(args)
    labels = _run_labels(record, ds, args.run_record)
    idx = _run_views(record, ds, args.run_record)
    ids = ds.ids
    group = read_ids(args.group, ids) if args.group else None
    versus = read_ids(args.versus, ids) if args.versus else None
    time = event = None
    if args.time_column:
        time = _column(ds, "--time-column", args.time_column)
        event = _column(ds, "--event-column", args.event_column)
    views = [ds.views[i] for i in idx]
    names = [ds.view_names[i] for i in idx]
    observed = None if ds.observed is None else ds.observed[:, idx]
    features = [feature_names_of(ds, i, ds.views[i].shape[1]) for i in idx]
    columns = dict(ds.metadata)
    kinds = ds.metadata_columns()
    n = ds.n_samples
    say = sys.stdout.write

    # survival first: a bad time or event column is refused before any work
    surv = None
    if time is not None:
        try:
            surv = survival(labels, time, event)
        except DataError as exc:
            raise DataError(f"--event-column {args.event_column}: {exc}") from None

    # composition and comparison: the group (against --versus or the rest), else each cluster
    if group is not None:
        parts = {"group": group} | ({"versus": versus} if versus is not None else {})
        comparisons = [("group", group, versus)]
    else:
        clusters = np.unique(labels)
        parts = {f"cluster {k}": np.flatnonzero(labels == k) for k in clusters.tolist()}
        comparisons = [(name, rows, None) for name, rows in parts.items()]
    comps = {name: composition(rows, labels, columns, n=n, kinds=kinds)
             for name, rows in {**parts, "all": np.arange(n)}.items()}  # fmt: skip
    text, firsts = [], []
    for name, a, b in comparisons:
        if len(comparisons) > 1 and (a.size == 0 or a.size == n):
            continue  # a cluster that is everything has no rest to compare with
        tables = compare_groups(views, a, b, observed=observed, feature_names=features,
                                view_names=names)  # fmt: skip
        text.append(compare_csv_text(tables, args.alpha, name, header=not text))
        firsts.append((name, tables))

    # clusters against the metadata (with the log-rank test), each view alone against the run
    rows = associate(labels, columns, seed=args.seed, kinds=kinds)
    if surv is not None:
        rows = sorted([*rows, surv.as_association(f"{args.time_column}/{args.event_column}")],
                      key=lambda r: r.strength)  # fmt: skip
    va = _view_agreement(args, record, ds, idx, labels, observed, names)

    # written together at the end: a refusal or a failure leaves no partial set of tables
    out_dir.mkdir(parents=True, exist_ok=True)
    write_composition_csv(out_dir / "composition.csv", comps)
    atomic_write(out_dir / "compare.csv", "".join(text) or compare_csv_text([], group=""))
    write_association_csv(out_dir / "association.csv", rows)
    write_view_agreement_csv(out_dir / "view_agreement.csv", va)
    if surv is not None:
        write_survival_csv(out_dir / "survival.csv", surv)

    if group is not None:
        other = "the samples of --versus" if versus is not None else "the rest"
        say(f"group: {group.size} of {n} samples; compared with {other}\n")
    else:
        say(f"no --group: each of the {len(parts)} clusters compared with the rest\n")
    for _, tables in firsts[:1] if group is not None else []:
        for t in tables:
            sig = int(t.significant(0.05).sum())
            say(f"  {t.view_name}: {sig} feature(s) with q < 0.05 (n = {t.n_a} vs {t.n_b})\n")
    tested = [r for r in rows if r.p_method != "none"]
    if not columns:
        say("no metadata columns: association.csv lists none (--meta TABLE adds them)\n")
    if tested:
        best = tested[0]
        say(f"strongest association: {best.column} ({best.test}, p = {best.p:.3g})\n")
    if surv is not None:
        say(f"log-rank across clusters: chi2 = {surv.statistic:.3g}, p = {surv.p:.3g}\n")
    files = [*OUTPUTS, *(["survival.csv"] if surv is not None else [])]
    say(f"written to {out_dir}: {', '.join(files)}\n")
    return 0


def _view_agreement(args, record, ds, idx, labels, observed, names):
    """Each used view, preprocessed as the run did (its stored transforms; the automatic
    rule when the run kept none), clustered alone and compared with the run."""
    from core.analysis.view_agreement import view_agreement
    from core.data.blocks import is_source
    from core.data.prepare import prepare_views
    from core.data.stream_stats import PreprocessedSource
    from core.records.prediction_file import prediction_path, read_prediction

    views = [ds.views[i] for i in idx]
    if prediction_path(args.run_record).exists():
        model = read_prediction(args.run_record)
        prepared = []
        for v, (x, t) in enumerate(zip(views, model.transforms, strict=True)):
            keep = None if observed is None else observed[:, v]
            # a view read in row blocks stays so: the transform is applied block by block
            prepared.append(PreprocessedSource(x, t, keep) if is_source(x) else t.apply(x, keep))
    else:
        prepared, _ = prepare_views(views, "auto", observed=observed)
    k = int(labels.max()) + 1
    return view_agreement(prepared, labels, k, weights=record.get("view_weights"),
                          observed=observed, seed=args.seed, view_names=names)  # fmt: skip
