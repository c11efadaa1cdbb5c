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

from core.data.dataset import FLOAT32_ABOVE, stored_values

__all__ = ["DTYPES", "FLOAT32_ABOVE", "prefer_float32", "resolve_dtype"]

DTYPES = ("auto", "float64", "float32")
# FLOAT32_ABOVE: the size above which a dataset is *held* as float32 (core.data.dataset). A
# solver does not convert float64 input itself on "auto": the float32 copy would sit next to
# the caller's float64 array (peak memory x1.5, not /2).


def prefer_float32(views: Sequence[object]) -> bool:
    """Whether data of this size should be held as float32 (more than FLOAT32_ABOVE values)."""
    return stored_values(views) > FLOAT32_ABOVE


def resolve_dtype(mode: str, views: Sequence[object]) -> type:
    """The working dtype for ``mode``: "float64", "float32", or "auto": float32 when every view
    already is float32 (so it is never copied to float64), else float64."""
    if mode not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {mode!r}")
    if mode == "auto":
        single = len(views) > 0 and all(getattr(x, "dtype", None) == np.float32 for x in views)
        return np.float32 if single else np.float64
    return np.float32 if mode == "float32" else np.float64
