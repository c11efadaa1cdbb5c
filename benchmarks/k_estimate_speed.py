"""Time of the number-of-clusters estimate (``--n-clusters auto``, the app's "Estimate now")
at n = 100,000, for one or more checkouts side by side.

    python benchmarks/k_estimate_speed.py [--code DIR ...] [--n 100000] [--rounds 2]

Each ``--code`` directory (default: this checkout) runs in a fresh process with that checkout
first on ``sys.path``: make_synthetic(n samples, views of 100/300/600 features, 10 clusters),
``auto`` preprocessing, one small estimate to compile the kernels, then three timed estimates.
The checkouts alternate for ``--rounds`` rounds, so machine load falls on both alike; the
table gives each one's median and the ratio to the first. An earlier commit to compare with:
``git worktree add /tmp/old COMMIT``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import core
assert core.__file__.startswith(sys.argv[1]), core.__file__
from core.data.demo import make_synthetic
from core.data.preprocessing import preprocess
from core.numerics.n_clusters import estimate_n_clusters
views = preprocess(make_synthetic(int(sys.argv[2]), (100, 300, 600), 10, 0).views, "auto")[0]
estimate_n_clusters(views, 0, graph_rows=3000)  # compile the kernels
times = []
for _ in range(3):
    t0 = time.perf_counter()
    est = estimate_n_clusters(views, 0)
    times.append(time.perf_counter() - t0)
print(json.dumps({"times": times, "ranked": [int(k) for k in est.ranked[:3]]}))
"""


def run(code: Path, n: int) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(code), str(n)],
        capture_output=True,
        text=True,
        check=True,
        cwd="/",  # no checkout on the path but the one asked for
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--code", action="append", help="checkout directories (default: this one)")
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    codes = [Path(c).resolve() for c in (args.code or [str(ROOT)])]
    times: dict[Path, list[float]] = {c: [] for c in codes}
    ranked: dict[Path, list[int]] = {}
    for _ in range(args.rounds):
        for code in codes:
            got = run(code, args.n)
            times[code] += got["times"]
            ranked[code] = got["ranked"]
    base = statistics.median(times[codes[0]])
    head = f"estimate at n = {args.n:,} (median of {3 * args.rounds})"
    print(f"| checkout | {head} | ratio | k shown |")
    print("|---|---|---|---|")
    for code in codes:
        med = statistics.median(times[code])
        print(f"| {code} | {med:.2f} s | {med / base:.2f} | {ranked[code]} |")
    print(f"\nload {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
