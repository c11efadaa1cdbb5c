"""Memory of the GUI's solver child on a memory-mapped file (issue 13 item 5).

The app maps a large uncompressed ``.npz`` in place (``core.data.mapped.open_mapped``) and
hands the solver child the maps; the child preprocesses the views
(``core.data.prepare.prepare_views``) and runs the solver. This script does the
same in a fresh process and samples, every 50 ms, its anonymous (private) resident memory
(``RssAnon``: what the child holds of its own, the mapped file's pages excluded; they are
the page cache, shared with the window and the other children) and its whole RSS.

    python benchmarks/solver_child_memory.py FILE.npz [--method fmdc] [--code DIR ...]

``--code`` runs the child with another checkout on PYTHONPATH (e.g. an export of an earlier
commit), so the two are measured side by side in one run. Files of >= 300k samples: wrap the
command in ``flock /tmp/mvc_big.lock``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _status() -> dict[str, int]:
    out = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("RssAnon", "VmRSS", "VmHWM"):
            out[key] = int(rest.split()[0]) * 1024
    return out


def _cpu() -> float:
    """CPU seconds (user + system) of this process so far, all threads."""
    import resource

    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def child(path: str, method: str, seed: int, copy_above: float | None, mode: str) -> None:
    """What the solver child does with a mapped dataset; prints one JSON line."""
    peaks = {"RssAnon": 0, "VmRSS": 0}
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.05):
            s = _status()
            for k in peaks:
                peaks[k] = max(peaks[k], s[k])

    import numpy as np

    import core.methods
    from core.data.mapped import open_mapped
    from core.data.prepare import prepare_views
    from core.numerics.metrics import accuracy

    ds = open_mapped(path)
    raw = list(ds.views)
    if copy_above is not None:
        import core.data.stream_stats as stream_stats

        stream_stats.COPY_ABOVE = int(copy_above * 2**30)
    if mode == "memory":  # the data read whole into memory first (the command line's case)
        raw = [np.array(v) for v in raw]
    elif mode == "blocks":  # the path before 2026-11-27: row blocks preprocessed at every pass
        import core.data.stream_stats

        core.data.stream_stats.SPILL_MARGIN = 1 << 60
    threading.Thread(target=sample, daemon=True).start()
    t0, cpu0 = time.perf_counter(), _cpu()
    cls = core.methods.REGISTRY[method]
    solver = cls.from_params({"n_clusters": ds.n_classes or 10, "random_state": seed})
    blocks = cls.streams
    args = (raw, ["auto"] * ds.n_views, cls.auto_preprocessing, None)
    # as mvc_gui.run.solver_process.serve calls it
    views, fitted = prepare_views(*args, row_blocks=blocks, spill=True)
    chosen = [t.label for t in fitted]
    t_prep = time.perf_counter() - t0
    after_prep = _status()["RssAnon"]
    for state in solver.iterate(views, None):
        if state.final:
            break
    done.set()
    s = _status()
    labels = np.asarray(solver.labels_)
    print(json.dumps({
        "seconds": round(time.perf_counter() - t0, 1), "preprocess_s": round(t_prep, 1),
        "cpu_s": round(_cpu() - cpu0, 1),
        "peak_anon_gb": round(max(peaks["RssAnon"], s["RssAnon"]) / 2**30, 2),
        "anon_after_preprocessing_gb": round(after_prep / 2**30, 2),
        "peak_rss_gb": round(s["VmHWM"] / 2**30, 2),
        "views": sorted({type(v).__name__ for v in views}),
        "preprocessing": chosen,
        "acc": None if ds.labels is None else round(accuracy(ds.labels, labels), 4),
        "stages_s": {k: round(v, 1) for k, v in (getattr(solver, "stage_times_", {})).items()},
    }))  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("--method", default="fmdc")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--code", action="append", help="checkout to run the child from (repeat)")
    ap.add_argument(
        "--copy-above",
        type=float,
        metavar="GB",
        help="core.data.stream_stats.COPY_ABOVE for the run (default 1 GB)",
    )
    ap.add_argument("--mode", choices=("spill", "blocks", "memory"), default="spill",
                    help="spill: the preprocessed copy on disk (default); blocks: row blocks "
                    "preprocessed at every pass (before 2026-11-27); memory: the data read whole "
                    "first")  # fmt: skip
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.file, args.method, args.seed, args.copy_above, args.mode)
        return
    for code in args.code or [str(ROOT)]:
        env = {**os.environ, "PYTHONPATH": code}
        cmd = [sys.executable, __file__, args.file, "--method", args.method, "--child"]
        cmd += ["--seed", str(args.seed)]
        if args.copy_above is not None:
            cmd += ["--copy-above", str(args.copy_above)]
        cmd += ["--mode", args.mode]
        load = Path("/proc/loadavg").read_text().split()[0]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else out.stderr[-2000:]
        print(f"code={code} load={load}: {line}", flush=True)


if __name__ == "__main__":
    main()
