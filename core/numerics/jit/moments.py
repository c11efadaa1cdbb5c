"""Per-group sums and sums of squares of a dense view, in one pass over its rows.

``indicator @ x`` with a scipy sparse indicator upcast a float32 view to float64 (a copy of
the whole view) and squared it into another: 11 of 12 s of a selection's first comparison
table at 100,000 x 5,000 went there. This kernel reads each row once, adds it to its group's
float64 sums in sample order (the order the sparse product and the row-block accumulation
use, so the sums are bitwise the same) and squares each value in the view's own dtype, as
``x * x`` did.
"""

from __future__ import annotations

import numpy as np

from core.numerics.jit.config import JIT, njit


@njit(**JIT)
def group_moments(x: np.ndarray, groups: np.ndarray, s1: np.ndarray, s2: np.ndarray) -> None:
    """Add each row ``x[i]`` to ``s1[groups[i]]`` and its square to ``s2[groups[i]]``
    (float64, in place); rows whose group is negative are skipped."""
    n, d = x.shape
    for i in range(n):
        g = groups[i]
        if g < 0:
            continue
        for j in range(d):
            v = x[i, j]
            s1[g, j] += v
            s2[g, j] += v * v
