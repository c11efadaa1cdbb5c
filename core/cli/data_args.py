"""The data flags shared by ``run``, ``predict``, ``tune``, ``sweep`` and ``robustness``: FILE
or --demo, --views and --preprocess, the table flags (--view NAME=PATH, --meta, --id-column,
--label-column, --missing-values, --align; also on ``info``), and opening what they name
through ``core.data.open.open_dataset`` (every command the same way)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np

from core.cli.catalog import streaming_methods
from core.data.dataset import DataError, MultiViewDataset
from core.data.io.aligned import ALIGN_MODES, DataSpec, ViewSource
from core.data.io.missing import DEFAULT_MISSING, MISSING_POLICIES
from core.data.open import DataSource, OpenPolicy, open_dataset
from core.data.prepare import estimate_views, prepare_views
from core.data.preprocessing import PREPROCESSORS, ViewTransform

__all__ = [
    "add_data_args",
    "add_table_args",
    "data_source",
    "load_data",
    "open_policy",
    "prepare",
    "select_views",
    "table_spec",
    "view_numbers",
]


def table_spec(args: argparse.Namespace) -> DataSpec | None:
    """The :class:`DataSpec` the table flags describe, or None without ``--view``."""
    views = getattr(args, "view", None)
    if not views:
        for flag in ("meta", "id_column", "missing_values"):
            if getattr(args, flag, None):
                name = "--" + flag.replace("_", "-")
                raise DataError(f"{name} goes with --view NAME=PATH (one per view file)")
        return None
    return DataSpec(
        views=[ViewSource.parse(v) for v in views],
        meta=args.meta,
        id_column=args.id_column,
        label_column=args.label_column,
        missing=list(args.missing_values or []),
        align=args.align,
    )


def data_source(args: argparse.Namespace) -> DataSource:
    """What the data flags name: FILE, --view tables or --demo (and --label-column)."""
    return DataSource(
        file=getattr(args, "file", None),
        tables=table_spec(args),
        demo=getattr(args, "demo", None),
        label_column=getattr(args, "label_column", None),
    )


def open_policy(args: argparse.Namespace, method: type | None = None) -> OpenPolicy:
    """How the flags say to open it (--isolate, --stream, --stream-above) for ``method``."""
    above = getattr(args, "stream_above", None)
    return OpenPolicy(
        isolate=getattr(args, "isolate", None),
        stream=getattr(args, "stream", "off"),
        stream_above=None if above is None else int(above * 2**30),
        streams=None if method is None else bool(method.streams),
        method_name=getattr(method, "name", ""),
        streaming_methods=tuple(streaming_methods()),
    )


def load_data(
    args: argparse.Namespace, method: type | None = None, complete: str = ""
) -> MultiViewDataset:
    """The dataset the data flags name, opened by the one road (``core.data.open``).

    ``complete``: the command (e.g. ``mvc tune``) needs every view of every sample: samples
    missing a view are refused by count, with what to do."""
    ds = open_dataset(data_source(args), open_policy(args, method))
    if complete and not ds.complete:
        missing = int(np.count_nonzero(~ds.observed.all(axis=1)))
        raise DataError(
            f"{complete} needs every view of every sample, but {missing} sample(s) miss a "
            "view: add --align shared (keep the samples every view has)"
        )
    return ds


def _choice(text: str) -> str | list[str]:
    """``--preprocess``: one method for every view, or one per view (comma-separated)."""
    return text.split(",") if "," in text else text


def prepare(
    ds: MultiViewDataset, text: str, method: type
) -> tuple[list[object], list[ViewTransform]]:
    """The views as ``method`` reads them after ``--preprocess`` (``auto``: the method's own
    rule; each view's statistics from the samples that have it)."""
    return prepare_views(
        ds.views, _choice(text), method.auto_preprocessing, ds.observed, row_blocks=method.streams
    )


def views_for_k(ds: MultiViewDataset, text: str, method: type) -> Callable[[], list[object]] | None:
    """What ``--n-clusters auto`` is estimated on for ``method`` after ``--preprocess``
    (``core.data.prepare.estimate_views``; None: the method's own views)."""
    return estimate_views(
        ds.views, _choice(text), method.auto_preprocessing, ds.observed, row_blocks=method.streams
    )


def view_numbers(ds: MultiViewDataset, text: str | None) -> list[int]:
    """The 0-based views ``--views`` names (all without it), checked against ``ds``."""
    if not text:
        return list(range(ds.n_views))
    try:
        idx = [int(t) - 1 for t in text.split(",")]
    except ValueError as exc:
        raise DataError(f"--views takes 1-based view numbers like 1,3; got {text!r}") from exc
    bad = [i + 1 for i in idx if not 0 <= i < ds.n_views]
    if bad:
        raise DataError(f"--views: no view {bad[0]} (the data has {ds.n_views} views)")
    return idx


def select_views(ds: MultiViewDataset, text: str | None) -> MultiViewDataset:
    if not text:
        return ds
    try:
        return ds.select_views(view_numbers(ds, text))
    except DataError as exc:
        raise DataError(f"--views {text}: {exc}") from exc


def add_data_args(p: argparse.ArgumentParser, preprocess: bool = True) -> None:
    """FILE or --demo, the table and isolation flags and (``preprocess``: not for predict,
    whose run record says which views and preprocessing) --views and --preprocess: shared by
    run, predict, tune, sweep and robustness."""
    p.add_argument("file", nargs="?")
    p.add_argument(
        "--demo",
        nargs="?",
        const="handwritten",
        default=None,
        help="use an embedded demo dataset instead of a file",
    )
    if preprocess:
        p.add_argument("--views", help="1-based views to use, e.g. 1,3 (default: all)")
    add_table_args(p)
    isolate = p.add_mutually_exclusive_group()
    isolate.add_argument(
        "--isolate",
        action="store_const",
        const=True,
        default=None,
        help="read the file in a child process with time and memory limits, so a damaged "
        "file cannot crash or hang this command (default: HDF5 files only, i.e. MATLAB v7.3, "
        ".h5ad, .h5mu; mvc info always)",
    )
    isolate.add_argument(
        "--no-isolate",
        dest="isolate",
        action="store_const",
        const=False,
        help="read every file in this process",
    )
    if not preprocess:
        return
    p.add_argument(
        "--preprocess",
        default="auto",
        help=f"one of {', '.join(PREPROCESSORS)}, or one per view separated by commas "
        "(default auto: chosen per view, printed)",
    )


def add_table_args(p: argparse.ArgumentParser) -> None:
    """Views from table files aligned by sample id, metadata and missing values."""
    g = p.add_argument_group("views from table files (aligned by sample id)")
    g.add_argument(
        "--view",
        action="append",
        metavar="NAME=PATH[#KEY]",
        help="a view: a CSV/TSV file keyed by a sample-id column, or a matrix of an .h5ad/.h5mu "
        "file (#X, #layers/counts, #obsm/X_pca; in .h5mu #<modality>/X); repeat per view",
    )
    g.add_argument("--meta", metavar="PATH", help="metadata table (CSV/TSV, or .h5ad/.h5mu obs)")
    g.add_argument(
        "--id-column",
        metavar="NAME|N",
        help="the sample-id column, by name or 1-based position (default: a first column "
        "named like sample/id, or holding text)",
    )
    g.add_argument(
        "--label-column",
        metavar="NAME",
        help="metadata column used as the reference labels for the metrics (text is fine)",
    )
    g.add_argument(
        "--missing-values",
        action="append",
        metavar="[VIEW=]POLICY",
        help=f"empty/NA cells: one of {', '.join(MISSING_POLICIES)} (default {DEFAULT_MISSING}; "
        "a sample with no value at all in a view gets that view marked missing); per view "
        "as VIEW=POLICY, repeatable",
    )
    g.add_argument(
        "--align",
        choices=ALIGN_MODES,
        default="all",
        help="all: every sample of any view, absent views marked missing (default); "
        "shared: only the samples every view has",
    )
