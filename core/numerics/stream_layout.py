"""The layout's representation of views read in row blocks (out-of-core), in one pass each.

In memory, ``core.numerics.layout.representation`` reduces each view by PCA. A row-block view
cannot be decomposed without holding it, so each is projected in one pass on a Gaussian
random matrix to ``n_components`` dimensions (Johnson-Lindenstrauss: distances kept to a few
per cent, which is what the 2-D layout's neighbours need), scaled by its Frobenius norm
(accumulated in the same pass) so every view counts equally; the n x (V * n_components)
result fits in memory and is reduced by PCA as before.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["streamed_parts"]


def streamed_parts(views: Sequence, n_components: int, random_state: int) -> list[np.ndarray]:
    """Per view an ``n x <=n_components`` float64 sketch scaled to unit Frobenius norm."""
    rng = np.random.default_rng(random_state)
    parts = []
    for x in views:
        n, d = x.shape
        k = min(n_components, d)
        proj = None if d <= n_components else rng.standard_normal((d, k)) / np.sqrt(k)
        out, total = np.empty((n, k)), 0.0
        for start, stop, block in x.blocks():
            b = np.asarray(block, dtype=np.float64)
            total += float(np.einsum("ij,ij->", b, b))
            out[start:stop] = b if proj is None else b @ proj
        norm = total**0.5
        parts.append(out / norm if norm > 0 else out)
    return parts
