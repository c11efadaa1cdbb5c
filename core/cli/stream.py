"""``mvc run --stream``: views read in row blocks (out-of-core) when they would not fit.

Only methods whose every pass over the data goes through ``core.numerics.streaming`` (the
anchors and the anchor graph) accept row-block views: FMDC and DTLL. After the graph they work
on the n x m anchor graph and n x c labels only. The others need the views in memory at every
iteration (ALPC and MVSC-HFD update per-view reconstructions of the data; RG-MVC builds per-view
kNN graphs from the samples; the baselines run k-means on the samples), so they are refused with
the memory estimate, and ``--no-stream`` to try in memory anyway.
"""

from __future__ import annotations

import argparse

from core.data.dataset import DataError

__all__ = ["STREAMING_METHODS", "add_stream_args", "stream_plan"]

#: registry names of the methods that accept row-block views (docs/large_data.md)
STREAMING_METHODS = ("fmdc", "dtll")


def add_stream_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("out-of-core data (views read in row blocks)")
    mode = g.add_mutually_exclusive_group()
    mode.add_argument(
        "--stream",
        dest="stream",
        action="store_const",
        const="on",
        default="auto",
        help="read the views in row blocks for every pass (HDF5: MATLAB v7.3, .h5ad, .h5mu; "
        "an uncompressed .npz; a dataset store); default: only when they would take more than "
        "half the available RAM as float64 (methods: " + ", ".join(STREAMING_METHODS) + ")",
    )
    mode.add_argument(
        "--no-stream",
        dest="stream",
        action="store_const",
        const="off",
        help="always read the views into memory",
    )
    g.add_argument(
        "--stream-above",
        type=float,
        metavar="GB",
        help="stream when the views take more than GB gigabytes as float64 (instead of half "
        "the available RAM)",
    )


def stream_plan(args: argparse.Namespace, method: str | None) -> str | None:
    """Why this run reads its views in row blocks (printed), or None to load them whole.

    ``method`` None (``mvc info``): any command that only makes passes over the data.

    Raises
    ------
    DataError
        ``--stream`` on data that cannot be streamed (table flags, demo, a format read whole),
        or a method that needs the views in memory when they would not fit.
    """
    mode = getattr(args, "stream", "auto")
    if mode == "off":
        return None
    plain_file = bool(getattr(args, "file", None)) and not (
        getattr(args, "demo", None) or getattr(args, "view", None)
    )
    if not plain_file:
        if mode == "on":
            raise DataError("--stream reads one data file (not --demo or --view tables)")
        return None
    from core.data.streamed import estimate_bytes, open_streamed, stream_reason, worth_checking

    if mode == "on":
        ds = open_streamed(args.file)  # a format that cannot be streamed says why here
        reason = f"asked for with --stream ({estimate_bytes(ds) / 2**30:.2f} GB as float64)"
    else:
        above = getattr(args, "stream_above", None)
        threshold = None if above is None else int(above * 2**30)
        # a file far smaller than the limit is not opened here (isolated reader as before)
        small = not worth_checking(args.file, threshold)
        reason = None if small else stream_reason(args.file, threshold=threshold)
        if reason is None:
            return None
    if method is not None and method not in STREAMING_METHODS:
        raise DataError(
            f"{method} needs the views in memory at every iteration, but the data would be "
            f"streamed: {reason}; methods that read row blocks: {', '.join(STREAMING_METHODS)} "
            "(or --no-stream to load the views anyway)"
        )
    return reason
