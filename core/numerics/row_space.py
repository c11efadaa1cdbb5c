"""Wide views (few samples, many features) in the n-dimensional sample space.

A view ``X`` (n x d) with d > n spans at most n directions. Its coordinates in its row
space, ``Y = U Λ^{1/2}`` (n x r, r = rank <= n) from the eigendecomposition of the Gram
matrix ``X Xᵀ = U Λ Uᵀ``, satisfy ``Y Yᵀ = X Xᵀ``: every inner product and distance among
samples, and between samples and points that are combinations of samples (k-means centres,
BKHK group means, anchor samples), is the same in ``Y`` as in ``X``. A method that sees the
data only through those (k-means, BKHK, PKN anchor graphs, Gaussian and cosine kernels)
therefore gives the same result on ``Y`` up to float rounding, and each later pass costs
O(n·r) instead of O(n·d). The reduction itself is one Gram product, O(n²·d) in BLAS, plus an
n x n eigendecomposition.

It is NOT exact for steps that look at individual features: per-feature scaling (apply the
reduction after preprocessing), per-sample statistics over features such as DTLL's VDA
variance (compute them on ``X`` first), starts such as ``U = I_{d×c}`` (the first c
features; ALPC stays exact in the row space plus those axes, :func:`with_axes`), arbitrary
completions of rank-deficient polar factors (MVSC-HFD's layers), or scikit-learn's k-means
tolerance, which is relative to the mean feature variance (:func:`tolerance_scale`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.linalg.blas import dsyrk

from core.data.dataset import View
from core.numerics.threads import blas_full, blas_single

__all__ = [
    "ROW_SPACE_MAX_N",
    "AxesRowSpace",
    "RowSpace",
    "describe",
    "has_more_features",
    "is_wide",
    "lift_all",
    "reduce_wide",
    "row_space",
    "tolerance_scale",
    "with_axes",
]

#: above this many samples the n x n Gram matrix and its eigendecomposition cost more than
#: they save (eigh of 3000 x 3000: ~3 s on 2 cores) and the reduction is not applied
ROW_SPACE_MAX_N = 3000


def _in_memory(x: View) -> bool:
    """Dense or sparse arrays only: out-of-core row-block sources are streamed as they are."""
    return isinstance(x, np.ndarray) or sp.issparse(x)


def _stored(x: View) -> int:
    return int(x.nnz) if sp.issparse(x) else int(x.shape[0] * x.shape[1])


def is_wide(x: View) -> bool:
    """Whether working in the sample space pays off: the view stores at least 2n² values
    (dense: d >= 2n; sparse: nnz >= 2n², so very sparse text stays as it is),
    n <= ROW_SPACE_MAX_N, and it is in memory (out-of-core sources are streamed as they are)."""
    n = x.shape[0]
    return _in_memory(x) and 2 <= n <= ROW_SPACE_MAX_N and _stored(x) >= 2 * n * n


def has_more_features(x: View) -> bool:
    """Whether a view has more features than samples (and n <= ROW_SPACE_MAX_N): the rule
    for methods whose cost grows with d itself rather than with the stored values."""
    n = x.shape[0]
    return _in_memory(x) and 2 <= n <= ROW_SPACE_MAX_N and x.shape[1] > n


@dataclass(frozen=True)
class RowSpace:
    """A view in its row-space coordinates: ``coords`` (n x r) with coords coordsᵀ = X Xᵀ.

    ``vecs`` (n x r) and ``scale`` (r,) are the kept eigenvectors and the square roots of the
    eigenvalues of X Xᵀ; ``source`` is X, kept for :meth:`lift`.
    """

    coords: np.ndarray
    vecs: np.ndarray
    scale: np.ndarray
    source: View

    @property
    def n_features(self) -> int:
        return int(self.source.shape[1])

    def lift(self, points: np.ndarray) -> np.ndarray:
        """Feature-space points (k x d) of points given in row-space coordinates (k x r).

        With X = U S Qᵀ (thin SVD), coordinates p are the point p Qᵀ of the row space, and
        (p S⁻¹) Uᵀ X = p Qᵀ: exact for every point of the row space (means, anchors,
        centres, orthonormal bases computed from the reduced data).
        """
        w = (np.asarray(points, dtype=np.float64) / self.scale) @ self.vecs.T  # k x n weights
        x = self.source
        out = (x.T @ w.T).T if sp.issparse(x) else w @ x
        return np.ascontiguousarray(out, dtype=self.coords.dtype)


@dataclass(frozen=True)
class AxesRowSpace:
    """The row space of X plus the first c coordinate axes e_1 … e_c of the feature space,
    in an orthonormal basis [Q, Q_E] (Q: the row space; Q_E: the parts of the axes outside it).

    For methods that start from ``U = I_{d×c}`` (ALPC) and otherwise see X only through
    products with combinations of samples and of U: every iterate then stays in this
    (r + k)-dimensional subspace, k <= c, so running on ``coords`` = [Y, 0] from ``start`` (the
    axes in the new basis, orthonormal columns) reproduces the feature-space run up to
    rounding. ``lift`` maps the results back.
    """

    base: RowSpace
    a: np.ndarray  # r x c: Qᵀ E
    proj: np.ndarray  # c x k: Q_E = (E − Q a) proj
    start: np.ndarray  # (r + k) x c: E in the basis [Q, Q_E]

    @property
    def coords(self) -> np.ndarray:
        y = self.base.coords
        return np.hstack([y, np.zeros((y.shape[0], self.proj.shape[1]), dtype=y.dtype)])

    @property
    def n_features(self) -> int:
        return self.base.n_features

    def lift(self, points: np.ndarray) -> np.ndarray:
        """Feature-space points (K x d) of points in the [Q, Q_E] coordinates (K x (r + k)):
        p = [p1, p2] is p1 Qᵀ + p2 Q_Eᵀ = (p1 − w aᵀ) Qᵀ + w Eᵀ with w = p2 projᵀ."""
        p = np.asarray(points, dtype=np.float64)
        r = self.a.shape[0]
        w = p[:, r:] @ self.proj.T
        out = self.base.lift(p[:, :r] - w @ self.a.T).astype(np.float64)
        out[:, : w.shape[1]] += w
        return out.astype(self.base.coords.dtype)


def with_axes(space: RowSpace, c: int) -> AxesRowSpace:
    """``space`` extended by the first ``c`` coordinate axes (see :class:`AxesRowSpace`).

    Parts of the axes inside the row space up to 1e-10 (squared norm) are not added."""
    x = space.source
    first = x[:, :c].toarray() if sp.issparse(x) else np.asarray(x[:, :c], dtype=np.float64)
    # one BLAS thread: OpenBLAS splits this r x n x c product by its thread count, and the
    # rounding moved ALPC's start U and then its labels (NGs: ARI 0.845 between 1 and 2
    # threads, docs/benchmarks/determinism.md)
    with blas_single():
        a = (space.vecs / space.scale).T @ first  # Qᵀ E, with Q = Xᵀ U S⁻¹
        mu, v = np.linalg.eigh(np.eye(c) - a.T @ a)  # Gram of E − Q a
    keep = mu > 1e-10
    proj = v[:, keep] / np.sqrt(mu[keep])
    b = np.sqrt(mu[keep])[:, None] * v[:, keep].T  # k x c: (E − Q a) in the Q_E basis
    return AxesRowSpace(space, a, proj, np.vstack([a, b]))


def row_space(x: View) -> RowSpace:
    """The row-space coordinates of one view (see the module docstring).

    Eigenvalues below n·eps·λ_max (rounding noise of the Gram matrix) are dropped, so the
    kept rank r can be below min(n, d). The Gram matrix is accumulated in float64; the
    coordinates take the view's dtype.
    """
    n, d = x.shape
    with blas_full(float(n) * n * d):
        if sp.issparse(x):
            xx = x.astype(np.float64)
            gram = (xx @ xx.T).toarray()
        else:
            # syrk on the transposed (Fortran-ordered) view: half of a general product's
            # flops and no copy; only the upper triangle is filled, which eigh reads
            xx = np.asarray(x, dtype=np.float64)
            gram = dsyrk(1.0, xx.T, trans=1)
    # one thread: a 500 x 500 eigh took 4-6 s with two BLAS threads on a loaded 2-core
    # machine (threads.py), against 0.1 s on one
    with blas_single():
        vals, vecs = scipy.linalg.eigh(gram, lower=False, check_finite=False, driver="evd")
    vals, vecs = vals[::-1], vecs[:, ::-1]  # largest first
    top = max(float(vals[0]), 0.0)
    keep = vals > n * np.finfo(np.float64).eps * top if top > 0 else np.zeros(n, bool)
    keep[0] = True  # at least one coordinate (a zero view stays a zero column)
    scale = np.sqrt(np.maximum(vals[keep], 0.0))
    vecs = np.ascontiguousarray(vecs[:, keep])
    coords = np.ascontiguousarray(vecs * scale, dtype=x.dtype)
    return RowSpace(coords, vecs, np.where(scale > 0, scale, 1.0), x)


def reduce_wide(
    views: Sequence[View],
    which: Sequence[int] | None = None,
    rule: Callable[[View], bool] = is_wide,
) -> tuple[list[View], list[RowSpace | None]]:
    """Each view for which ``rule`` holds (default :func:`is_wide`) replaced by its row-space
    coordinates.

    ``which`` limits the reduction to those view indices (default all). Returns the views to
    work on and, per view, its :class:`RowSpace` or None where the view was kept.
    """
    which = range(len(views)) if which is None else which
    spaces = [row_space(x) if i in which and rule(x) else None for i, x in enumerate(views)]
    out = [x if s is None else s.coords for x, s in zip(views, spaces, strict=True)]
    return out, spaces


def describe(spaces: Sequence[RowSpace | None]) -> str | None:
    """A one-line note of what was reduced ("view 1: 20000 -> 500 dims, ..."), or None."""
    parts = [
        f"view {i + 1}: {s.n_features} -> {s.coords.shape[1]} dims"
        for i, s in enumerate(spaces)
        if s is not None
    ]
    return ", ".join(parts) if parts else None


def lift_all(
    spaces: Sequence[RowSpace | AxesRowSpace | None], points: Sequence[np.ndarray]
) -> list[np.ndarray]:
    """Per-view points (k x r_v) lifted to their feature spaces where the view was reduced."""
    return [p if s is None else s.lift(p) for s, p in zip(spaces, points, strict=True)]


def tolerance_scale(views: Sequence[View], reduced: Sequence[View]) -> float:
    """Factor for scikit-learn's k-means ``tol`` on reduced views: its tolerance is ``tol``
    times the mean feature variance, i.e. the total variance / number of features, so the
    same absolute tolerance needs tol · (reduced features) / (original features)."""
    return sum(x.shape[1] for x in reduced) / max(sum(x.shape[1] for x in views), 1)
