"""The data flags shared by ``run``, ``sweep`` and ``robustness``: FILE or --demo, --views and
--preprocess, and loading what they name."""

from __future__ import annotations

import argparse

from core.data.dataset import DataError, MultiViewDataset
from core.data.preprocessing import PREPROCESSORS

__all__ = ["add_data_args", "load_data", "select_views"]


def load_data(args: argparse.Namespace) -> MultiViewDataset:
    if getattr(args, "demo", None):
        from core.data.demo import load_demo

        return load_demo(args.demo)
    if not args.file:
        raise DataError("give a data file, or --demo for the embedded handwritten digits")
    if getattr(args, "isolate", False):
        from core.data.isolated_load import load_isolated

        return load_isolated(args.file)
    from core.data.io import load_dataset

    return load_dataset(args.file)


def select_views(ds: MultiViewDataset, text: str | None) -> MultiViewDataset:
    if not text:
        return ds
    try:
        idx = [int(t) - 1 for t in text.split(",")]
    except ValueError as exc:
        raise DataError(f"--views takes 1-based view numbers like 1,3; got {text!r}") from exc
    bad = [i + 1 for i in idx if not 0 <= i < ds.n_views]
    if bad:
        raise DataError(f"--views: no view {bad[0]} (the file has {ds.n_views} views)")
    return ds.select_views(idx)


def add_data_args(p: argparse.ArgumentParser) -> None:
    """FILE or --demo, --views and --preprocess (shared by run, sweep and robustness)."""
    p.add_argument("file", nargs="?")
    p.add_argument(
        "--demo",
        nargs="?",
        const="handwritten",
        default=None,
        help="use an embedded demo dataset instead of a file",
    )
    p.add_argument("--views", help="1-based views to use, e.g. 1,3 (default: all)")
    p.add_argument(
        "--isolate",
        action="store_true",
        help="read the file in a child process with time and memory limits, so a damaged "
        "file cannot crash this command (mvc info does this by default)",
    )
    p.add_argument(
        "--preprocess",
        default="auto",
        help=f"one of {', '.join(PREPROCESSORS)}, or one per view separated by commas "
        "(default auto: chosen per view, printed)",
    )
