"""Working precision of the data passes: float64, or float32 for large inputs.

In float32 the views (the only O(n·d) objects) are held and multiplied in single precision:
half the memory, and the memory-bound BLAS products with the data run about twice as fast.
Everything small (anchors' solves, SVDs of m x m or n x c matrices, k-means, objectives) stays
in float64, and every kernel accumulates in float64, so results match float64 to the
accuracy measured in docs/benchmarks/float32.md.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

__all__ = ["DTYPES", "FLOAT32_ABOVE", "resolve_dtype"]

DTYPES = ("auto", "float64", "float32")
# "auto" switches to float32 above this many stored values (n x Σ d_v dense, nnz sparse):
# 5e7 values are 400 MB as float64, where the data passes dominate the time (the same size
# above which FMDC's BKHK sketches, docs/benchmarks/float32.md)
FLOAT32_ABOVE = 50_000_000


def _stored(x: object) -> int:
    if sp.issparse(x):
        return int(x.nnz)
    shape = getattr(x, "shape", None) or np.shape(x)
    return int(np.prod(shape))


def _is_float32(x: object) -> bool:
    return getattr(x, "dtype", None) == np.float32


def resolve_dtype(mode: str, views: Sequence[object]) -> type:
    """The working dtype for ``mode``: "float64", "float32", or "auto" (float32 when the views
    already are float32, so they are never copied to float64, or hold more than
    FLOAT32_ABOVE values; else float64)."""
    if mode not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {mode!r}")
    if mode == "auto":
        big = sum(_stored(x) for x in views) > FLOAT32_ABOVE
        single = len(views) > 0 and all(_is_float32(x) for x in views)
        return np.float32 if big or single else np.float64
    return np.float32 if mode == "float32" else np.float64
