"""``mvc run --stream``: views read in row blocks (out-of-core) when they would not fit (the
flags; the decision is ``core.data.open.stream_decision``).

Only methods whose every pass over the data goes through ``core.numerics.streaming`` (the
anchors and the anchor graph) accept row-block views: FMDC and DTLL. After the graph they work
on the n x m anchor graph and n x c labels only. The others need the views in memory at every
iteration (ALPC and MVSC-HFD update per-view reconstructions of the data; RG-MVC builds per-view
kNN graphs from the samples; the baselines run k-means on the samples), so they are refused with
the memory estimate, and ``--no-stream`` to try in memory anyway.
"""

from __future__ import annotations

import argparse

from core.cli.catalog import streaming_methods  # from the sources: no solver is imported

__all__ = ["add_stream_args", "streaming_methods"]


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
        "half the available RAM as float64 (methods that read row blocks: "
        + ", ".join(streaming_methods())
        + ")",
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
