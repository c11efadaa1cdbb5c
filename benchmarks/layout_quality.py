"""Layout quality and time: exact t-SNE against the large-n layouts (and UMAP).

    python benchmarks/layout_quality.py --n 20000            # quality: every layout at 20k
    python benchmarks/layout_quality.py --n 100000 --large-only
    python benchmarks/layout_quality.py --n 1000000 --large-only

Data: ``core.data.demo.make_synthetic(n, (100, 300, 600), 10)`` through
``core.numerics.layout.representation`` (n x 50). 10-NN preservation
(``core.numerics.layout.knn_preservation``): the share of each point's 10 nearest neighbours
in the representation that stay among its 10 nearest in 2-D, over 2,000 random points.

Layouts: exact openTSNE (FFT gradients, perplexity 30, 250 early-exaggeration + 500
iterations: the GUI's layout up to 20,000 samples); subsample + place (2,500-sample t-SNE, the
rest at their neighbours' mean: the large layout's first frames); the large layout
(``large_embedding``: that placement refined by a t-SNE of all samples, the GUI's layout above
20,000); UMAP (umap-learn, when installed). Times: "first frame" is when the layout's first
frame of all n samples reaches the callback (the GUI shows it), "placed" the last frame of the
subsample stage; the representation's time is listed apart. Compilation (UMAP, pynndescent)
is warmed up on small data first and not counted. One thread (OMP_NUM_THREADS=1), as the GUI.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from _common import git_rev, machine


def _load() -> str:
    return " ".join(open("/proc/loadavg").read().split()[:3])


def _timed(fn, x):
    """Run ``fn(x, callback=...)``; return the layout, total, first-frame and placed times."""
    marks: dict[str, float] = {}
    t0 = time.perf_counter()

    def callback(iteration: int, _layout: np.ndarray) -> bool:
        now = time.perf_counter() - t0
        marks.setdefault("first", now)
        if iteration <= 750:
            marks["placed"] = now
        return False

    y = fn(x, callback=callback)
    return y, time.perf_counter() - t0, marks.get("first"), marks.get("placed")


def _fmt(v: float | None) -> str:
    return "" if v is None else f"{v:.1f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", default="20000", help="comma-separated sample counts")
    ap.add_argument("--large-only", action="store_true", help="only the large-n layout")
    ap.add_argument("--no-umap", action="store_true")
    args = ap.parse_args()
    from core.data.demo import make_synthetic
    from core.numerics.layout import (
        _knn_method,
        approximate_embedding,
        knn_preservation,
        large_embedding,
        representation,
        tsne_embedding,
    )
    from core.numerics.layout_umap import umap_available, umap_embedding

    use_umap = umap_available() and not args.no_umap and not args.large_only
    warm = np.random.default_rng(0).normal(size=(5000, 10))  # >= 4096: nndescent
    if use_umap:
        t = time.perf_counter()
        umap_embedding(warm)
        print(f"UMAP warm-up (numba compilation): {time.perf_counter() - t:.1f} s")
    threads = os.environ.get("OMP_NUM_THREADS", "unset")
    print(f"machine {machine()}, commit {git_rev()}, OMP_NUM_THREADS={threads}, load {_load()}")
    print()
    print("| n | layout | representation (s) | first frame (s) | placed (s) | total (s) | 10-NN |")
    print("|---|---|---|---|---|---|---|")
    for n in [int(v) for v in args.n.split(",")]:
        ds = make_synthetic(n, (100, 300, 600), 10, seed=0)
        t = time.perf_counter()
        x = representation(ds.views)
        rep = time.perf_counter() - t
        del ds
        knn = _knn_method(n)
        if knn == "pynndescent":
            t = time.perf_counter()
            large_embedding(np.random.default_rng(0).normal(size=(3000, 10)), knn_method=knn)
            print(f"pynndescent warm-up: {time.perf_counter() - t:.1f} s", flush=True)
        runs = {}
        if not args.large_only:
            runs["exact t-SNE (openTSNE FFT)"] = tsne_embedding
            runs["subsample + place"] = approximate_embedding
        runs[f"large layout (placement + {knn} t-SNE of all)"] = large_embedding
        if use_umap:
            runs["UMAP (umap-learn)"] = umap_embedding
        for name, fn in runs.items():
            y, took, first, placed = _timed(fn, x)
            q = knn_preservation(x, y)
            print(
                f"| {n} | {name} | {rep:.1f} | {_fmt(first)} "
                f"| {_fmt(placed) if fn is large_embedding else ''} | {took:.1f} "
                f"| {q:.3f} |",
                flush=True,
            )
    print(f"\nload after: {_load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
