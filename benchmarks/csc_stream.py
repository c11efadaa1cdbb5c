"""Column-major sparse views read in row blocks: the one-time row-major copy against a column
scan per block (issue 13 item 3; core/data/csc.py).

Writes a sparse n x d count matrix in MATLAB v7.3 layout (CSC: ``data``/``ir``/``jc``), then
in fresh processes, side by side:

- ``convert``: the first pass (the row-major copy is made: two chunked passes over the
  non-zeros), then a second pass over row blocks of the copy;
- ``scan``: what reading by rows without a copy costs: one block's rows taken from a scan over
  all non-zeros (every block of every pass would repeat it);
- ``whole``: the loader reading the matrix into memory (``core.data.io.load_dataset``).

Each prints its wall time and peak private memory (RssAnon, sampled).

    python benchmarks/csc_stream.py [--n 200000] [--d 20000] [--density 0.002]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _anon() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssAnon"):
            return int(line.split()[1]) * 1024
    return 0


def write_file(path: Path, n: int, d: int, density: float) -> None:
    """A sparse n x d MATLAB v7.3 matrix ``X`` (column by column) and labels ``gt``."""
    import h5py

    g = np.random.default_rng(0)
    per_col = g.binomial(n, density, size=d)
    jc = np.zeros(d + 1, dtype=np.uint64)
    np.cumsum(per_col, out=jc[1:])
    nnz = int(jc[-1])
    with h5py.File(path, "w", userblock_size=512) as f:
        grp = f.create_group("X")
        grp.attrs["MATLAB_class"] = np.bytes_("double")
        grp.attrs["MATLAB_sparse"] = np.uint64(n)
        ir = grp.create_dataset("ir", (nnz,), np.uint64, chunks=(min(nnz, 1 << 20),))
        data = grp.create_dataset("data", (nnz,), np.float64, chunks=(min(nnz, 1 << 20),))
        grp["jc"] = jc
        pos = 0
        for lo in range(0, d, 512):
            cols = per_col[lo : lo + 512]
            rows = np.concatenate([np.sort(g.choice(n, k, replace=False)) for k in cols])
            ir[pos : pos + rows.size] = rows
            data[pos : pos + rows.size] = g.integers(1, 6, rows.size)
            pos += rows.size
        f["gt"] = (np.arange(n) % 10 + 1.0)[None, :].T
    with open(path, "r+b") as fh:
        head = b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: benchmark HDF5 schema 1.00 ."
        fh.write(head.ljust(116) + b"\x00" * 8 + b"\x00\x02IM")


def child(mode: str, path: str) -> dict:
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            peak[0] = max(peak[0], _anon())

    threading.Thread(target=sample, daemon=True).start()
    out: dict = {"mode": mode}
    t0 = time.perf_counter()
    if mode == "whole":
        from core.data.io import load_dataset

        ds = load_dataset(path)
        out["nnz"] = int(ds.views[0].nnz)
    else:
        from core.data.streamed import open_streamed

        src = open_streamed(path).views[0]
        rows = src.block_rows()
        out["blocks_per_pass"] = -(-src.shape[0] // rows)
        if mode == "convert":
            src.row_major()
            out["copy_s"] = round(time.perf_counter() - t0, 2)
            t1 = time.perf_counter()
            total = sum(float(b.sum()) for _, _, b in src.blocks())
            out["pass_s"] = round(time.perf_counter() - t1, 2)
            out["sum"] = total
        else:  # one block of rows from a scan over every non-zero, chunk by chunk
            import h5py

            with h5py.File(path, "r") as f:
                ir, data = f["X/ir"], f["X/data"]
                hits = 0
                for a in range(0, ir.shape[0], 1 << 21):
                    r = ir[a : a + (1 << 21)]
                    keep = r < rows
                    hits += int(np.count_nonzero(keep))
                    _ = data[a : a + (1 << 21)][keep]
            out["one_block_s"] = round(time.perf_counter() - t0, 2)
            out["one_pass_estimate_s"] = round(out["one_block_s"] * out["blocks_per_pass"], 1)
    done.set()
    out["seconds"] = round(time.perf_counter() - t0, 2)
    out["peak_anon_gb"] = round(max(peak[0], _anon()) / 2**30, 3)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--d", type=int, default=20_000)
    ap.add_argument("--density", type=float, default=0.002)
    ap.add_argument("--folder", default=tempfile.gettempdir())
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(*args.child)))
        return
    folder = Path(args.folder) / f"mvc-csc-{args.n}x{args.d}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "sparse.mat"
    if not path.exists():
        write_file(path, args.n, args.d, args.density)
    cache = folder / "csr-cache"
    shutil.rmtree(cache, ignore_errors=True)  # the first pass makes the copy again
    env = {**os.environ, "MVC_CSR_CACHE": str(cache)}
    load = Path("/proc/loadavg").read_text().split()[0]
    print(f"{path} ({path.stat().st_size / 2**20:.0f} MB), load {load}")
    for mode in ("convert", "scan", "whole"):
        cmd = [sys.executable, __file__, "--child", mode, str(path)]
        res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        print(res.stdout.strip() or res.stderr[-1500:], flush=True)


if __name__ == "__main__":
    main()
