"""``mvc predict --run run.json DATA --out labels.csv``: assign new samples to the clusters of
a finished run. DATA is given exactly as to ``mvc run`` (a file, or --view/--meta tables); what
the run needs is stored beside its record by ``mvc run ... --report run.json``
(``core.records.prediction_file``)."""

from __future__ import annotations

import argparse
import sys

import numpy as np

from core.cli.data_args import add_data_args, load_data

__all__ = ["add_predict_parser", "cmd_predict"]


def add_predict_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "predict",
        help="assign the samples of new data to the clusters of a finished run",
        description="The new data come as for `mvc run`: FILE, or --view NAME=PATH tables "
        "(with --meta, --id-column...), with the same views and features as the run's.",
    )
    add_data_args(p, preprocess=False)
    p.add_argument("--run", required=True, help="the run record written by mvc run --report")
    p.add_argument("--out", required=True, help="write the labels CSV here")


def cmd_predict(args: argparse.Namespace) -> int:
    # here, not at the top: they import numba (`mvc --help` does without)
    from core.data.atomic import check_writable
    from core.records.prediction_file import read_prediction
    from core.records.runs import write_labels_csv

    check_writable(args.out, "--out")
    model = read_prediction(args.run)  # a missing or foreign record is refused before reading
    ds = load_data(args)
    labels = model.predict(ds)
    write_labels_csv(args.out, labels, ds.labels, ds.ids.tolist(), ds.class_names)
    sizes = np.bincount(labels, minlength=model.assigner.n_clusters).tolist()
    # how far the stored reference reproduces the run's own labels: the trust a user can put in
    # the assignment (weak clusters are reproduced poorly)
    sys.stdout.write(f"reference points: {model.assigner.source}\n")
    sys.stdout.write(f"{labels.size} samples assigned; cluster sizes {sizes}\n")
    sys.stdout.write(f"labels written to {args.out}\n")
    return 0
