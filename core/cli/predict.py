"""``mvc predict --run run.json NEW_FILE --out labels.csv``: assign new samples to the
clusters of a finished run (what it needs is stored beside the run record by
``mvc run ... --report run.json``: ``core.records.prediction_file``)."""

from __future__ import annotations

import argparse
import sys

import numpy as np

from core.records.prediction_file import predict_dataset
from core.records.runs import write_labels_csv

__all__ = ["add_predict_parser", "cmd_predict"]


def add_predict_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "predict",
        help="assign the samples of a new file to the clusters of a finished run",
    )
    p.add_argument("file", help="new data with the same views and features as the run's")
    p.add_argument("--run", required=True, help="the run record written by mvc run --report")
    p.add_argument("--out", required=True, help="write the labels CSV here")


def cmd_predict(args: argparse.Namespace) -> int:
    from core.data.io import load_dataset

    ds = load_dataset(args.file)
    labels = predict_dataset(args.run, ds)
    write_labels_csv(args.out, labels, ds.labels, ds.ids.tolist(), ds.class_names)
    sizes = np.bincount(labels).tolist()
    sys.stdout.write(f"{labels.size} samples assigned; cluster sizes {sizes}\n")
    sys.stdout.write(f"labels written to {args.out}\n")
    return 0
