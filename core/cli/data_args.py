"""The data flags shared by ``run``, ``sweep`` and ``robustness``: FILE or --demo, --views and
--preprocess, the table flags (--view NAME=PATH, --meta, --id-column, --label-column,
--missing-values, --align; also on ``info``), and loading what they name."""

from __future__ import annotations

import argparse
import tempfile
from dataclasses import replace
from pathlib import Path

from core.data.dataset import DataError, MultiViewDataset
from core.data.io.aligned import ALIGN_MODES, DataSpec, ViewSource
from core.data.io.missing import DEFAULT_MISSING, MISSING_POLICIES
from core.data.preprocessing import PREPROCESSORS

__all__ = ["add_data_args", "add_table_args", "load_data", "select_views", "table_spec"]


def table_spec(args: argparse.Namespace) -> DataSpec | None:
    """The :class:`DataSpec` the table flags describe, or None without ``--view``."""
    views = getattr(args, "view", None)
    if not views:
        for flag in ("meta", "id_column", "missing_values"):
            if getattr(args, flag, None):
                name = "--" + flag.replace("_", "-")
                raise DataError(f"{name} goes with --view NAME=PATH (one per view file)")
        return None
    if getattr(args, "file", None):
        raise DataError(f"give either a data file ({args.file}) or --view files, not both")
    return DataSpec(
        views=[ViewSource.parse(v) for v in views],
        meta=args.meta,
        id_column=args.id_column,
        label_column=args.label_column,
        missing=list(args.missing_values or []),
        align=args.align,
    )


def load_data(args: argparse.Namespace) -> MultiViewDataset:
    if getattr(args, "demo", None):
        from core.data.demo import load_demo

        return load_demo(args.demo)
    spec = table_spec(args)
    if spec is None and not args.file:
        raise DataError("give a data file, or --demo for the embedded handwritten digits")
    if _should_isolate(getattr(args, "isolate", False), args.file, spec):
        from core.data.isolated_load import load_isolated

        if spec is None:
            ds = load_isolated(args.file)
        else:  # the child reads a description file naming the tables
            with tempfile.TemporaryDirectory(prefix="mvc-spec-") as tmp:
                for v in spec.views:
                    v.path = str(Path(v.path).resolve())
                spec.meta = spec.meta and str(Path(spec.meta).resolve())
                path = Path(tmp) / "tables.json"
                path.write_text(spec.to_json(), encoding="utf-8")
                ds = replace(load_isolated(path), source=", ".join(v.path for v in spec.views))
    else:
        from core.data.io import load_dataset, load_spec

        ds = load_dataset(args.file) if spec is None else load_spec(spec)
    label = getattr(args, "label_column", None)
    if spec is None and label:
        ds = ds.with_reference_labels(label)
    return ds


def _should_isolate(choice: bool | None, file: str | None, spec: object) -> bool:
    """None (run/sweep/robustness by default): isolate HDF5 files (MATLAB v7.3, .h5ad,
    .h5mu). Their reader is C code we cannot check ahead, and damaged ones were seen to loop
    inside libhdf5 (docs/benchmarks/fuzz_loaders.md); a child with a time limit ends that.
    MATLAB v5 elements are checked before scipy reads them, so those stay in process (no
    child start, no copy of the data through a store)."""
    if choice is not None:
        return choice
    paths = [file] if spec is None else [v.path.split("#")[0] for v in spec.views]
    from core.data.io.matlab import is_hdf5

    return any(p and Path(p).is_file() and is_hdf5(Path(p)) for p in paths)


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
