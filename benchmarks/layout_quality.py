"""Layout quality and time: k-NN preservation of the large-n layouts against exact t-SNE.

    python benchmarks/layout_quality.py [--n 5000] [--exact-up-to 20000] [--refine 100]

k-NN preservation: the share of each point's 10 nearest neighbours in the representation
(core.numerics.layout.representation of the synthetic views) that stay among its 10 nearest
in 2-D, averaged over 2,000 random points. Layouts: exact openTSNE (FFT gradients), the
subsample-and-place approximation (2,500-sample t-SNE, the rest at their neighbours' mean:
the GUI's current large-n layout), and the same refined in place by openTSNE's ``transform``.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from sklearn.neighbors import NearestNeighbors

from _common import git_rev, machine


def knn_preservation(x: np.ndarray, y: np.ndarray, k: int = 10, probes: int = 2000) -> float:
    rng = np.random.default_rng(0)
    idx = rng.choice(x.shape[0], size=min(probes, x.shape[0]), replace=False)
    near_x = NearestNeighbors(n_neighbors=k + 1).fit(x).kneighbors(x[idx], return_distance=False)
    near_y = NearestNeighbors(n_neighbors=k + 1).fit(y).kneighbors(y[idx], return_distance=False)
    shared = [len(set(a[1:]) & set(b[1:])) for a, b in zip(near_x, near_y, strict=True)]
    return float(np.mean(shared)) / k


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", default="5000")
    ap.add_argument("--exact-up-to", type=int, default=20000)
    ap.add_argument("--refine", type=int, default=100)
    args = ap.parse_args()
    from core.data.demo import make_synthetic
    from core.numerics.layout import approximate_embedding, representation, tsne_embedding

    print(
        f"machine {machine()}, commit {git_rev()}, load {open('/proc/loadavg').read().split()[:3]}"
    )
    print("| n | layout | time (s) | 10-NN preservation |")
    print("|---|---|---|---|")
    for n in [int(v) for v in args.n.split(",")]:
        ds = make_synthetic(n, (100, 300, 600), 10, seed=0)
        x = representation(ds.views)
        runs = {}
        if n <= args.exact_up_to:
            runs["exact t-SNE"] = lambda x=x: tsne_embedding(x)
        runs["subsample + place"] = lambda x=x: approximate_embedding(x)
        runs[f"subsample + place + transform {args.refine}"] = lambda x=x: approximate_embedding(
            x, refine_iter=args.refine
        )
        for name, run in runs.items():
            t0 = time.perf_counter()
            y = run()
            took = time.perf_counter() - t0
            print(f"| {n} | {name} | {took:.1f} | {knn_preservation(x, y):.3f} |", flush=True)
    print(f"load after: {open('/proc/loadavg').read().split()[:3]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
