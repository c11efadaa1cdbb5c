"""Synthetic scale data written to .npy files block by block (never whole in memory).

Same model as ``core.data.demo.make_synthetic`` (Gaussian clusters in a c-dim latent space,
a random linear map per view plus unit noise), drawn block by block so that 1M x 1000
float32 values (4 GB) are written with ~100 MB of memory. The draws differ from
``make_synthetic``'s (per-block noise), the distribution is the same.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from core.data.demo import synthetic_streams

#: in every cached file's name: files of an older generator are never reused (version 2: the
#: centres and maps depend on the seed only, not on n)
GENERATOR_VERSION = 2


def write_synthetic(folder: Path, n: int, dims, c: int, dtype: str, seed: int = 0) -> Path:
    """Views ``view<i>.npy`` and ``labels.npy`` in ``<folder>_v<GENERATOR_VERSION>``, which is
    returned; reused when already there."""
    folder = folder.with_name(f"{folder.name}_v{GENERATOR_VERSION}")
    folder.mkdir(parents=True, exist_ok=True)
    stamp = folder / "done.json"
    # "streams": files written before the centres stopped depending on n are rewritten
    spec = {"n": n, "dims": list(dims), "c": c, "dtype": dtype, "seed": seed, "streams": 2}
    if stamp.exists() and json.loads(stamp.read_text()) == spec:
        return folder
    structure, rng = synthetic_streams(seed)  # the centres and maps do not depend on n
    centers = structure.normal(scale=1.5, size=(c, c))
    maps = [structure.standard_normal((c, d)) / np.sqrt(c) for d in dims]
    labels = rng.permutation(np.arange(n) % c).astype(np.int64)
    np.save(folder / "labels.npy", labels)
    outs = [
        np.lib.format.open_memmap(folder / f"view{i}.npy", "w+", np.dtype(dtype), (n, d))
        for i, d in enumerate(dims)
    ]
    step = 16384
    for start in range(0, n, step):
        stop = min(n, start + step)
        latent = centers[labels[start:stop]] + rng.standard_normal((stop - start, c))
        for out, mapping in zip(outs, maps, strict=True):
            noise = rng.standard_normal((stop - start, mapping.shape[1]))
            out[start:stop] = latent @ mapping + noise
    for out in outs:
        out.flush()
    del outs
    stamp.write_text(json.dumps(spec))
    return folder


#: the scale benchmarks' views (benchmarks/scale.py, gui_million.py, stream_cli.py)
SCALE_DIMS = (100, 300, 600)


def load_average() -> list[str]:
    """The 1, 5 and 15 minute load averages (what the timings were measured beside)."""
    return Path("/proc/loadavg").read_text().split()[:3]


def synthetic_file(folder: str | None, prefix: str, n: int, write, *args) -> Path:
    """``write(folder, n, *args)`` once into ``<folder or temp>/<prefix>-<n>`` (kept for the
    next run); prints where the data are, their size, the time it took and the load."""
    import tempfile
    import time

    where = Path(folder or tempfile.gettempdir()) / f"{prefix}-{n}"
    where.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    path = write(where, n, *args)
    size = path.stat().st_size / 2**30
    print(f"data: {path} ({size:.2f} GB), {time.perf_counter() - t0:.0f} s")
    print(f"load average at the start: {load_average()}")
    return path
