"""The layout child's input: large dense views preprocessed lazily, one row block at a time.

The layout needs each preprocessed view only to reduce it to 50 dimensions
(:func:`core.numerics.layout.representation`, which reads row blocks). Preprocessing a 1M-row
float32 view whole made the layout child hold its own z-scored copy of all the data (4 GB for
1M x 1000) next to the shared store, and ``x.std`` / ``x - mean`` / ``* inv`` made two more
transient copies of the largest view. Here the column-wise rules (z-score, min-max, max-scale,
none) become a :class:`ColumnAffine` view of the shared data: statistics in float64 over row
blocks, each block shifted and scaled when it is read. Row-wise rules (l2, tf-idf), sparse and
small views and incomplete data are preprocessed as before; views read in row blocks (a
streamed dataset) go through :func:`~core.data.prepare.prepare_views`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import scipy.sparse as sp

from core.data.blocks import is_source
from core.data.prepare import prepare_views
from core.data.preprocessing import PREPROCESSORS, choose_auto, preprocess_view

__all__ = ["LAZY_FROM", "ColumnAffine", "between_blocks", "layout_views"]

#: views with at least this many values are preprocessed lazily
LAZY_FROM = 5_000_000
BLOCK = 65536
_TINY = 1e-12  # as core.data.preprocessing: columns this flat are set to zero
#: called before each row block is read (the layout child: wait while held, or cancel)
_hooks: list[Callable[[], None]] = []


def between_blocks(hook: Callable[[], None] | None) -> None:
    """Call ``hook`` before every row block the lazy views read (None: no hook). The layout
    child's passes over 1M rows take minutes of CPU before its first frame: this is where
    a stop acts (it raised only at the first frame before)."""
    _hooks[:] = [] if hook is None else [hook]


def _checkpoint() -> None:
    for hook in _hooks:
        hook()


class ColumnAffine:
    """``(x - shift) * scale`` per column, computed in float64 when a row block is read.

    Offers what the layout's representation reads: ``shape``, ``x[a:b]`` or ``x[rows]``
    (a float64 block),
    ``mean(axis=0)`` and ``np.asarray`` (the whole, for small or very wide views).
    """

    def __init__(self, x: np.ndarray, shift: np.ndarray, scale: np.ndarray) -> None:
        self.x, self.shift, self.scale = x, shift, scale
        self.shape = x.shape
        self.ndim = 2
        self.dtype = np.dtype(np.float64)

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, rows: slice | np.ndarray) -> np.ndarray:
        if not isinstance(rows, slice) and np.asarray(rows).ndim != 1:
            raise TypeError("a ColumnAffine view is read by rows (a slice or row indices)")
        _checkpoint()
        block = np.array(self.x[rows], dtype=np.float64)
        block -= self.shift
        block *= self.scale
        return block

    def mean(self, axis: int = 0, dtype=None) -> np.ndarray:
        if axis != 0:
            raise ValueError("only column means")
        return (_column_mean(self.x) - self.shift) * self.scale

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        out = self[:]
        return out if dtype is None else out.astype(dtype, copy=False)


def _blocks(n: int):
    return (slice(s, min(s + BLOCK, n)) for s in range(0, n, BLOCK))


def _column_mean(x: np.ndarray) -> np.ndarray:
    total = np.zeros(x.shape[1])
    for rows in _blocks(x.shape[0]):
        _checkpoint()
        total += np.asarray(x[rows], dtype=np.float64).sum(axis=0)
    return total / max(x.shape[0], 1)


def _column_std(x: np.ndarray, mean: np.ndarray) -> np.ndarray:
    n = x.shape[0]
    if n < 2:
        return np.zeros(x.shape[1])
    ss = np.zeros(x.shape[1])
    for rows in _blocks(n):
        _checkpoint()
        b = np.asarray(x[rows], dtype=np.float64) - mean
        ss += np.einsum("ij,ij->j", b, b)
    return np.sqrt(ss / (n - 1))


def _inverse(spread: np.ndarray) -> np.ndarray:
    return np.where(spread > _TINY, 1.0 / np.where(spread > _TINY, spread, 1.0), 0.0)


def lazy_view(x, method: str, auto_rule: str = "general") -> tuple[object, str] | None:
    """``x`` preprocessed by ``method`` as a :class:`ColumnAffine` (with the name
    :func:`~core.data.preprocessing.preprocess_view` gives), or None when this view is not
    preprocessed lazily (sparse, small, or a row-wise rule)."""
    if sp.issparse(x) or np.ndim(x) != 2 or np.size(x) < LAZY_FROM or method not in PREPROCESSORS:
        return None
    prefix = ""
    if method == "auto":
        method, prefix = choose_auto(x, auto_rule), "auto: "
    d = x.shape[1]
    if method == "none":
        return x, prefix + "none"
    if method == "zscore":
        mean = _column_mean(x)
        return ColumnAffine(x, mean, _inverse(_column_std(x, mean))), prefix + "zscore"
    if method == "minmax":
        lo, hi = np.full(d, np.inf), np.full(d, -np.inf)
        for rows in _blocks(x.shape[0]):
            b = np.asarray(x[rows])
            lo, hi = np.minimum(lo, b.min(axis=0)), np.maximum(hi, b.max(axis=0))
        return ColumnAffine(x, lo, _inverse(hi - lo)), prefix + "minmax"
    if method == "maxscale":
        top = float(x.max())
        if top <= 0:
            top = float(max(-float(x.min()), top))
        if top == 0:
            return x, prefix + "maxscale (all-zero view left unchanged)"
        return ColumnAffine(x, np.zeros(d), np.full(d, 1.0 / top)), prefix + "maxscale"
    return None


def layout_views(
    views: Sequence,
    methods: Sequence[str],
    auto_rule: str = "general",
    observed: np.ndarray | None = None,
) -> tuple[list, list[str]]:
    """The views the layout is computed from and the preprocessing each got, as
    :func:`~core.data.prepare.prepare_views` gives them, large dense views as
    lazy :class:`ColumnAffine` views of the (shared) data instead of copies."""
    if (observed is not None and not np.all(observed)) or any(is_source(v) for v in views):
        out, fitted = prepare_views(views, methods, auto_rule, observed)  # incomplete, streamed
        return out, [t.label for t in fitted]
    out, chosen = [], []
    for x, method in zip(views, methods, strict=True):
        lazy = lazy_view(x, method, auto_rule)
        y, how = lazy if lazy is not None else preprocess_view(x, method, auto_rule)
        out.append(y)
        chosen.append(how)
    return out, chosen
