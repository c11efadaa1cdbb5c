"""Build ``handwritten.npz`` (the embedded demo) from a copy of the UCI multiple features data.

Source: the six-view ``handwritten.mat`` redistributed in multi-view clustering repositories
(cell ``X`` of 2000 x d views, labels ``Y`` = 1..10 for the digits 0..9, 200 per digit, in
the UCI order). The views are renamed to the UCI names by their dimension and stored in the
UCI order: fou 76, fac 216, kar 64, pix 240, zer 47, mor 6. Integer views keep their integer
dtype so the archive stays small; the loader casts to float64.

Usage::

    python resources/datasets/make_handwritten.py /path/to/Handwritten.mat
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import scipy.io as sio

UCI_VIEWS = {"fou": 76, "fac": 216, "kar": 64, "pix": 240, "zer": 47, "mor": 6}
OUT = Path(__file__).resolve().parent / "handwritten.npz"


def convert(mat_path: Path, out_path: Path = OUT) -> Path:
    """Read the .mat file and write the compressed demo archive; return its path."""
    raw = sio.loadmat(mat_path)
    views = [np.asarray(v) for v in raw["X"].ravel()]
    labels = np.asarray(raw["Y"]).ravel().astype(np.int64) - 1
    if sorted(np.unique(labels).tolist()) != list(range(10)) or labels.size != 2000:
        raise ValueError(f"{mat_path}: expected labels 1..10 for 2000 samples")
    by_dim = {v.shape[1]: v for v in views}
    if sorted(by_dim) != sorted(UCI_VIEWS.values()):
        raise ValueError(f"{mat_path}: view dimensions {sorted(by_dim)} are not the UCI ones")
    arrays: dict[str, np.ndarray] = {}
    for i, dim in enumerate(UCI_VIEWS.values()):
        view = by_dim[dim]
        if view.shape[0] != labels.size:
            raise ValueError(f"view of dimension {dim} has {view.shape[0]} rows")
        arrays[f"X{i}"] = view  # uint8 / uint16 kept compact, float64 as stored
    arrays["y"] = labels.astype(np.uint8)
    arrays["view_names"] = np.asarray(list(UCI_VIEWS), dtype=str)
    arrays["class_names"] = np.asarray([str(d) for d in range(10)], dtype=str)
    arrays["name"] = np.asarray("handwritten")
    np.savez_compressed(out_path, **arrays)
    return out_path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mat", type=Path, help="Handwritten.mat (six-view UCI digits)")
    parser.add_argument("--out", type=Path, default=OUT, help="output archive")
    args = parser.parse_args(argv)
    path = convert(args.mat, args.out)
    sys.stdout.write(f"wrote {path} ({path.stat().st_size} bytes)\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
