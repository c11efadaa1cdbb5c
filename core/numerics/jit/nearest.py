"""The k nearest reference rows of each row of a block, from their inner products.

Placing a million points next to their nearest embedded samples ranked 2,500 distances per
row with ``np.argpartition``: ~10 ns an entry (8.7 s of CPU for 200k rows), the largest step
before the first frame of the large layout. One pass that keeps the k smallest (most entries
fail one comparison with a bound on the k-th, :mod:`core.numerics.jit.select`) costs a fraction.
"""

from __future__ import annotations

import numpy as np

from core.numerics.jit.config import JIT, njit
from core.numerics.jit.select import pkn_select, scratch_size


@njit(**JIT)
def nearest_rows_into(
    gram: np.ndarray,
    row_sq: np.ndarray,
    ref_sq: np.ndarray,
    out_idx: np.ndarray,
    out_d2: np.ndarray,
) -> None:
    """For each row i of ``gram`` (gram[i, j] = x_i . r_j): the k = out_idx.shape[1] nearest
    j by squared distance row_sq[i] + ref_sq[j] - 2 gram[i, j] (clipped at 0), ascending,
    equal distances in index order; written into ``out_idx`` / ``out_d2`` (b x k)."""
    scratch = np.empty(scratch_size(gram.shape[1]))
    for i in range(gram.shape[0]):
        pkn_select(gram, i, row_sq[i], ref_sq, out_d2[i], out_idx[i], scratch)
