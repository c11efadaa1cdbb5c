"""``mvc run --stream`` against the same run in memory, on a MATLAB v7.3 file (issue 13 item 3).

Writes the synthetic scale data (3 views of 100/300/600 features, 10 clusters, float32;
benchmarks/_scale_data.py) as a MATLAB v7.3 file (each n x d view stored as a (d, n) HDF5
dataset, chunked by 16384 samples, as MATLAB writes them), then runs the command line twice
in fresh processes, side by side:

- ``--stream``: the views are read in row blocks for every pass (a statistics pass for the
  summary/preprocessing, the sketch, group means and the graph);
- ``--no-stream``: the file is read whole (in the isolated reader child) and held in memory.

It prints for each the wall time, the peak RSS of the process tree (``wait4``), the ACC and
the agreement of the two label sets (up to renaming).

    python benchmarks/stream_cli.py [--n 1000000] [--method fmdc] [--folder /tmp/mvc-stream]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _scale_data import GENERATOR_VERSION, load_average, synthetic_file, write_synthetic
from _scale_data import SCALE_DIMS as DIMS


def write_mat73(folder: Path, n: int) -> Path:
    """The views as x1..x3 and the labels as gt in MATLAB v7.3 layout (reused when there)."""
    import h5py

    path = folder / f"synthetic_{n}_v{GENERATOR_VERSION}.mat"
    if path.exists():
        return path
    data = write_synthetic(folder / "npy", n, DIMS, 10, "float32")
    tmp = path.with_suffix(".part")
    with h5py.File(tmp, "w", userblock_size=512) as f:
        for i, d in enumerate(DIMS):
            x = np.load(data / f"view{i}.npy", mmap_mode="r")
            dset = f.create_dataset(f"x{i + 1}", (d, n), np.float32, chunks=(d, min(n, 16384)))
            dset.attrs["MATLAB_class"] = np.bytes_("single")
            for s in range(0, n, 65536):
                dset[:, s : s + 65536] = np.asarray(x[s : s + 65536]).T
        f["gt"] = (np.load(data / "labels.npy") + 1.0)[None, :].T
    with open(tmp, "r+b") as fh:
        head = b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: benchmark HDF5 schema 1.00 ."
        fh.write(head.ljust(116) + b"\x00" * 8 + b"\x00\x02IM")
    tmp.rename(path)
    return path


def run(args: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (GB) of the process tree, and stdout of ``mvc`` ``args``."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "core.cli", *args], stdout=subprocess.PIPE, text=True
    )
    out = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    secs = time.perf_counter() - t0
    if status != 0:
        raise SystemExit(f"mvc {' '.join(args)} failed (status {status}):\n{out}")
    return secs, usage.ru_maxrss / 2**20, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--method", default="fmdc")
    ap.add_argument("--folder", default=None, help="where the data are written (kept)")
    args = ap.parse_args()
    path = synthetic_file(args.folder, "mvc-stream", args.n, write_mat73)
    folder = path.parent
    from core.numerics.metrics import accuracy

    rows, labels = [], {}
    for mode in ("--stream", "--no-stream"):
        out_csv = folder / f"labels{mode.replace('-', '_')}.csv"
        secs, rss, out = run(
            ["run", str(path), "--method", args.method, mode, "--quiet", "--out", str(out_csv)]
        )
        acc = out.split("ACC ")[1].split()[0] if "ACC " in out else "-"
        labels[mode] = np.loadtxt(out_csv, delimiter=",", skiprows=1, usecols=1, dtype=np.int64)
        rows.append((mode, secs, rss, acc))
    print(f"load average at the end: {load_average()}")
    print("| mode | wall time (s) | peak RSS (GB) | ACC |")
    print("|---|---|---|---|")
    for mode, secs, rss, acc in rows:
        print(f"| {mode} | {secs:.1f} | {rss:.2f} | {acc} |")
    agree = accuracy(labels["--no-stream"], labels["--stream"])
    print(f"time ratio stream / memory: {rows[0][1] / rows[1][1]:.2f}; RSS ratio "
          f"{rows[0][2] / rows[1][2]:.2f}; labels agree (up to renaming) {agree:.4f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
