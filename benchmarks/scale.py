"""Scale benchmark: a method on synthetic 3-view data of growing n.

    python benchmarks/scale.py --method fmdc [--n 10000,30000,100000]
    python benchmarks/scale.py --method fmdc,dtll --n 100000,1000000 --dtype float32 \
        --stream --baseline --out scale_1m

With ``--dtype``/``--stream`` the data are written once per n to .npy files block by block
(benchmarks/_scale_data.py) and each run reads them: whole into memory, or, with
``--stream``, as row-block sources (core.data.blocks.NpySource: the anchor and graph passes
read the file block by block; only the anchor graph and labels are held). ``--baseline``
adds scikit-learn MiniBatchKMeans on the concatenated views (in memory) in the same run.

Each n runs in a fresh subprocess (so peak RSS is that run's own). Reported per n: wall time
per stage and in total, peak RSS and the RSS of the data alone, and, in the same process, the
time of the bare BLAS products X_v U_vᵀ for all views with m anchors: the distance floor that
no anchor method can beat. Prints total/floor and the time ratio between the largest and the
smallest n; writes docs/benchmarks/scale_<method>.md.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from datetime import date

import numpy as np

from _common import DOCS, ROOT, cases_module, git_rev, machine

DIMS = (100, 300, 600)
CLUSTERS = 10


def _rss_mb() -> float:
    """Peak RSS of this process (VmHWM: unlike ru_maxrss, not inherited from the parent)."""
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _data(n: int, data_dir: str | None, stream: bool):
    """(views, labels): generated in memory, or read from ``data_dir`` (whole or streamed)."""
    if data_dir is None:
        from core.data.demo import make_synthetic

        ds = make_synthetic(n, DIMS, CLUSTERS, seed=0)
        return ds.views, ds.labels
    from pathlib import Path

    from core.data.blocks import npy_source

    root = Path(data_dir)
    files = [root / f"view{i}.npy" for i in range(len(DIMS))]
    views = [npy_source(f) if stream else np.load(f) for f in files]
    return views, np.load(root / "labels.npy")


def _floor_once(views, n: int, m: int) -> float:
    """Bare BLAS products X_v U_vᵀ in row blocks (data already in memory, or per block)."""
    from core.data.blocks import is_source
    from core.numerics.graphs import block_rows

    rng = np.random.default_rng(0)
    floor = 0.0
    for x in views:
        dtype = x.compute_dtype if is_source(x) else x.dtype
        u = rng.normal(size=(m, x.shape[1])).astype(dtype)
        if is_source(x):
            for _, _, block in x.blocks():
                t1 = time.perf_counter()
                block @ u.T
                floor += time.perf_counter() - t1
            continue
        step = block_rows(n, m)
        t1 = time.perf_counter()
        for start in range(0, n, step):
            x[start : start + step] @ u.T
        floor += time.perf_counter() - t1
    return floor


FLOOR_REPEAT_BELOW = 5.0  # seconds: shorter floors are timed three times, the best kept


def _floor(views, n: int, m: int) -> float:
    """The floor: the best of three timings when one takes under FLOOR_REPEAT_BELOW seconds
    (one timing of the 10k floor ranged 0.2-0.7 s on a quiet machine: two DGEMM blocks)."""
    first = _floor_once(views, n, m)
    if first >= FLOOR_REPEAT_BELOW:
        return first
    return min(first, _floor_once(views, n, m), _floor_once(views, n, m))


def baseline_child(n: int, data_dir: str | None) -> dict:
    """scikit-learn MiniBatchKMeans on the concatenated views (what a user would try)."""
    from sklearn.cluster import MiniBatchKMeans

    from core.numerics.metrics import accuracy

    views, labels = _data(n, data_dir, stream=False)
    data_rss = _rss_mb()
    t0 = time.perf_counter()
    x = np.hstack(views)
    km = MiniBatchKMeans(CLUSTERS, batch_size=4096, n_init=3, random_state=0).fit(x)
    total = time.perf_counter() - t0
    return {
        "n": n,
        "total": total,
        "stages": {"concat+fit": total},
        "peak_mb": _rss_mb(),
        "data_mb": data_rss,
        "floor": _floor(views, n, 1024),
        "m": 0,
        "n_iter": int(km.n_iter_),
        "acc": accuracy(labels, km.labels_),
    }


WARM_ROWS = 6000  # --warm: rows of the warm-up fits (above FMDC's 5e6-value PCA-sketch rule)


def _start_up(method: str, params: dict, views) -> float:
    """Seconds the first fit in a fresh process pays on top of a later one (loading the cached
    numba kernels, LAPACK/ARPACK and thread-pool start-up): two fits on the first WARM_ROWS rows,
    first minus second. Afterwards the process is warm, as the floor's BLAS is when it is timed.
    """
    from core.methods import REGISTRY

    part = [x[:WARM_ROWS] for x in views]
    times = []
    for _ in range(2):
        t0 = time.perf_counter()
        REGISTRY[method].from_params(params).fit(part)
        times.append(time.perf_counter() - t0)
    return max(times[0] - times[1], 0.0)


def child(
    method: str, n: int, data_dir: str | None = None, stream: bool = False, warm: bool = False
) -> dict:
    if method == "minibatch-kmeans":
        return baseline_child(n, data_dir)
    from core.methods import REGISTRY
    from core.numerics.metrics import accuracy

    views, labels = _data(n, data_dir, stream)
    data_rss = _rss_mb()
    params = {"n_clusters": CLUSTERS, **getattr(cases_module(method), "SCALE_PARAMS", {})}
    start_up = _start_up(method, params, views) if warm and not stream else None
    solver = REGISTRY[method].from_params(params)
    t0 = time.perf_counter()
    solver.fit(views)
    total = time.perf_counter() - t0
    peak = _rss_mb()
    m = int(params.get("n_anchors") or 1024)
    floor = _floor(views, n, m)
    return {
        "n": n,
        "total": total,
        "stages": solver.stage_times_,
        "peak_mb": peak,
        "data_mb": data_rss,
        "floor": floor,
        "m": m,
        "n_iter": solver.n_iter_,
        "acc": accuracy(labels, solver.labels_),
        "start_up": start_up,
        # the views as fitted: in memory, data above FLOAT32_ABOVE values are held as float32
        "dtype": str(getattr(views[0], "compute_dtype", getattr(views[0], "dtype", ""))),
    }


def _run_child(method: str, n: int, args, data_dir: str | None) -> dict:
    cmd = [sys.executable, __file__, "--method", method, "--child", str(n)]
    if data_dir:
        cmd += ["--data-dir", data_dir] + (["--stream"] if args.stream else [])
    if args.warm:
        cmd += ["--warm"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT / "benchmarks")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _row(method: str, r: dict) -> str:
    stages = ", ".join(f"{k} {v:.1f}" for k, v in r["stages"].items())
    if r.get("start_up") is not None:  # --warm: the one-time cost and the cold ratio too
        cold = (r["total"] + r["start_up"]) / r["floor"]
        stages += f"; start-up {r['start_up']:.2f} (cold total / floor {cold:.2f})"
    n = f"{r['n']} ({r['dtype']})" if r.get("dtype") else str(r["n"])
    return (
        f"| {method} | {n} | {r['total']:.1f} | {stages} | {r['n_iter']} | "
        f"{r['floor']:.1f} | {r['total'] / r['floor']:.2f} | {r['peak_mb']:.0f} | "
        f"{r['data_mb']:.0f} | {r['acc']:.3f} |"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--method", default="fmdc", help="one method or a comma-separated list")
    ap.add_argument("--n", default="10000,30000,100000")
    ap.add_argument("--dtype", choices=("float32", "float64"), help="data written to .npy")
    ap.add_argument("--stream", action="store_true", help="read the .npy views in row blocks")
    ap.add_argument("--baseline", action="store_true", help="add MiniBatchKMeans on the concat")
    ap.add_argument("--data-root", default="/tmp/mvc_scale_data")
    ap.add_argument("--out", help="docs/benchmarks/<out>.md (default scale_<method>)")
    ap.add_argument(
        "--warm",
        action="store_true",
        help="time the fit in a warm process (two fits on the first rows first); the first "
        "fit's extra cost is reported as start-up, with the cold ratio",
    )
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--data-dir", help=argparse.SUPPRESS)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.method, args.child, args.data_dir, args.stream, args.warm)))
        return 0
    methods = args.method.split(",") + (["minibatch-kmeans"] if args.baseline else [])
    files = bool(args.dtype or args.stream)
    sizes = [int(v) for v in args.n.split(",")]
    data_dirs: dict[int, str | None] = {}
    for n in sizes:
        if not files:
            data_dirs[n] = None
            continue
        from pathlib import Path

        from _scale_data import write_synthetic

        folder = Path(args.data_root) / f"n{n}_{args.dtype or 'float64'}"
        data_dirs[n] = str(write_synthetic(folder, n, DIMS, CLUSTERS, args.dtype or "float64"))
    # compile the kernels once so no measured run pays for it
    for method in methods:
        _run_child(method, 2000, args, None)
    cmd = " ".join(["python benchmarks/scale.py", *sys.argv[1:]])
    lines = [
        f"# Scale: {args.method}",
        "",
        f"Command: `{cmd}`  ",
        f"Run {date.today()} on {machine()}, commit {git_rev()}, load before the run "
        f"{_loadavg()}. Synthetic data: 3 views of dims {'/'.join(map(str, DIMS))}, "
        f"{CLUSTERS} clusters, "
        + (
            args.dtype
            or "generated in float64 (held as float32 above 5e7 values: the dtype next to n)"
        )
        + (", streamed from .npy in row blocks" if args.stream else "")
        + ". The floor is the bare BLAS product X_v U_vᵀ for all views with m anchors, "
        "timed in the same process (in row blocks, product only; best of three timings "
        f"when one takes under {FLOOR_REPEAT_BELOW:.0f} s)."
        + (
            " --warm: the fit is timed after two fits on the first rows in the same process "
            "(the floor, timed after the fit, is warm too); start-up = the first of those fits "
            "minus the second, and the cold ratio adds it back."
            if args.warm
            else ""
        ),
        "",
        "| method | n | total (s) | stages (s) | iterations | BLAS floor (s) | total / floor "
        "| peak RSS (MB) | data alone (MB) | ACC |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    results: dict[str, list[dict]] = {}
    for method in methods:
        for n in sizes:
            r = _run_child(method, n, args, data_dirs[n])
            results.setdefault(method, []).append(r)
            lines.append(_row(method, r))
            print(lines[-1], flush=True)
    lines.append("")
    for method, rows in results.items():
        if len(rows) > 1:
            ratio = rows[-1]["total"] / rows[0]["total"]
            lines.append(
                f"- {method}: time ratio n={rows[-1]['n']} / n={rows[0]['n']}: {ratio:.1f} "
                f"(n ratio {rows[-1]['n'] / rows[0]['n']:.0f})"
            )
            print(lines[-1])
    lines.append(f"\nLoad after the run: {_loadavg()}.")
    if not args.no_write:
        name = args.out or f"scale_{args.method.replace('-', '_')}"
        out_path = DOCS / f"{name}.md"
        DOCS.mkdir(parents=True, exist_ok=True)
        out_path.write_text("\n".join(lines) + "\n")
        print(f"written to {out_path}")
    return 0


def _loadavg() -> str:
    try:
        return open("/proc/loadavg").read().split()[0:3].__str__()
    except OSError:
        return "unknown"


if __name__ == "__main__":
    sys.exit(main())
