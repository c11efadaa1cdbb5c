"""Cluster profiles at scale: 100,000 samples x 5,000 features (issue 14, item 1).

Times ``core.numerics.profiles.profile_view`` (means, Cohen's d, Mann-Whitney U with tie
correction, BH q-values, every cluster at once) on a sparse text-like view (1 % density,
counts) and on a dense float32 view, next to scipy.stats.mannwhitneyu on a slice of the
features for one cluster (the per-feature library call), scaled to the full size.

    python benchmarks/profiles.py [--n 100000] [--d 5000] [--clusters 10]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sp
from scipy.stats import mannwhitneyu

from core.numerics.profiles import profile_view


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--d", type=int, default=5_000)
    ap.add_argument("--dense-d", type=int, default=1_000)
    ap.add_argument("--clusters", type=int, default=10)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    labels = rng.integers(0, a.clusters, a.n)
    x = sp.random(a.n, a.d, density=0.01, format="csr", random_state=1,
                  data_rvs=lambda k: rng.poisson(2.0, k) + 1.0)  # fmt: skip
    t = time.perf_counter()
    prof = profile_view(x, labels, a.clusters)
    sparse_s = time.perf_counter() - t
    print(f"sparse {a.n} x {a.d} (nnz {x.nnz:,}), {a.clusters} clusters: {sparse_s:.2f} s")
    dense = rng.standard_normal((a.n, a.dense_d)).astype(np.float32)
    t = time.perf_counter()
    profile_view(dense, labels, a.clusters)
    dense_s = time.perf_counter() - t
    print(f"dense float32 {a.n} x {a.dense_d}: {dense_s:.2f} s")
    cols = 50
    xc = x[:, :cols].toarray()
    t = time.perf_counter()
    for j in range(cols):
        mannwhitneyu(xc[labels == 0, j], xc[labels != 0, j], method="asymptotic")
    per = (time.perf_counter() - t) / cols
    est = per * a.d * a.clusters
    print(f"scipy.stats.mannwhitneyu per feature and cluster: {per * 1e3:.1f} ms -> "
          f"{est:.0f} s for all {a.d} features x {a.clusters} clusters "
          f"(ratio {est / sparse_s:.0f}x)")  # fmt: skip
    print(f"features with q < 0.05 (random data: expect few): {(prof.q < 0.05).sum()}")


if __name__ == "__main__":
    main()
