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


def write_synthetic(folder: Path, n: int, dims, c: int, dtype: str, seed: int = 0) -> Path:
    """Views ``view<i>.npy`` and ``labels.npy`` in ``folder``; reused when already there."""
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
