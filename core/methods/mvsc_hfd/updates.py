"""MVSC-HFD update steps (spec ``mvsc_hfd.md`` §3-§9) for the library's n x d_v views.

Paper/code notation -> code names (samples in rows here, columns in the paper):

* ``X_v`` (d_v x n)                 -> ``x`` (n x d_v, dense or CSR; never densified)
* ``W_i^(v)`` (l_{i−1} x l_i)       -> ``w[v][i-1]``; ``P_v = W_1⋯W_δ`` is never formed
* ``A`` (l_δ x m), ``α`` (V)        -> ``a``, ``alpha``
* ``Z`` (m x n)                     -> ``zt = Zᵀ`` (n x m), rows on the simplex
* ``X_vZᵀ`` (d_v x m)               -> ``xz[v]`` (zero-padded to the padded width, §3)

Views with fewer than l_δ features are padded with zero features (spec §3) implicitly:
only ``xz`` gets zero rows, the data is untouched.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from core.data.dataset import View
from core.methods.params import ParamError
from core.numerics.linalg import polar, project_simplex_rows, project_simplex_rows_into
from core.numerics.view_products import data_dot, xt_dot

__all__ = [
    "HFDState",
    "a_step",
    "embedding",
    "init_state",
    "layer_widths",
    "padded_xz",
    "view_weights",
    "w_sweep",
    "w_sweep_code_cache",
    "z_step",
    "z_xz_step",
]

WIDTH_CAP = 1024  # spec §14: a d_v x l_1 layer must stay small for very wide sparse views


def layer_widths(
    dims: Sequence[int],
    last: int,
    depth: int,
    rule: str = "shared",
    first_width: int | None = None,
) -> list[list[int]]:
    """Widths ``[l_1, …, l_δ]`` for every view (``l_0`` is the padded d_v).

    ``rule="shared"`` (authors' code): one set of widths descending in equal steps from the
    smallest view dimension, ``l_i = l_δ + (δ−i)·⌊(d_min − l_δ)/δ⌋``. ``"per_view"`` (paper):
    ``l_i = l_δ + round((δ−i)(d_v − l_δ)/δ)`` per view. ``first_width`` overrides ``l_1``
    (the others then descend linearly to ``l_δ``). Widths are capped at ``WIDTH_CAP``.
    """
    padded = [max(int(d), last) for d in dims]
    if first_width is not None:
        if depth > 1 and not last <= first_width <= min(padded):
            raise ParamError(
                f"'first_width' = {first_width} must lie between the last width l_δ = {last} "
                f"and the smallest view dimension {min(padded)}"
            )
        hidden = [
            last + round((depth - i) * (first_width - last) / max(depth - 1, 1))
            for i in range(1, depth)
        ]
        return [[*hidden, last] for _ in padded]
    out = []
    dmin = min(padded)
    for d in padded:
        if rule == "shared":
            step = (dmin - last) // depth
            hidden = [last + (depth - i) * step for i in range(1, depth)]
        else:
            hidden = [last + round((depth - i) * (d - last) / depth) for i in range(1, depth)]
        out.append([min(w, WIDTH_CAP) if w > last else last for w in hidden] + [last])
    return out


class HFDState:
    """The iterate: layers ``w`` (per view, list of δ matrices), anchors ``a``, ``zt``,
    view weights ``alpha``, ``xz`` (per view X_vZᵀ, padded) and ``pa`` (per view P_vA)."""

    def __init__(self, w, a, zt, alpha) -> None:
        self.w: list[list[np.ndarray]] = w
        self.a: np.ndarray = a
        self.zt: np.ndarray = zt
        self.alpha: np.ndarray = alpha
        self.xz: list[np.ndarray] = []
        self.pa: list[np.ndarray] = []
        self.cache: list[np.ndarray] = []


def init_state(
    dims: Sequence[int],
    widths: list[list[int]],
    n: int,
    m: int,
    start: np.ndarray,
    code_cache: bool = False,
) -> HFDState:
    """W_i = truncated identity, A = I_{l_δ×m}, Z = one-hot columns at ``start`` (spec §5).

    ``code_cache``: the authors' start instead (W_i = 0, product cache = [0, …, 0, A]).
    """
    w = []
    for d, ws in zip(dims, widths, strict=True):
        sizes = [max(d, ws[-1]), *ws]
        make = np.zeros if code_cache else np.eye
        w.append(
            [
                make((sizes[i], sizes[i + 1])) if code_cache else make(sizes[i], sizes[i + 1])
                for i in range(len(ws))
            ]
        )
    zt = np.zeros((n, m))
    zt[start, np.arange(m)] = 1.0
    a = np.eye(widths[0][-1], m)
    st = HFDState(w, a, zt, np.full(len(dims), 1.0 / len(dims)))
    st.cache = [np.zeros((wd, m)) for wd in widths[0][:-1]] + [a]
    return st


def padded_xz(x: View, zt: np.ndarray, rows: int, scale: float = 1.0) -> np.ndarray:
    """(scale·X_v)Zᵀ (d_v x m) with zero rows appended up to ``rows`` (implicit zero
    features)."""
    xz = xt_dot(x, zt)
    if scale != 1.0:
        xz *= scale
    if xz.shape[0] < rows:
        xz = np.vstack([xz, np.zeros((rows - xz.shape[0], xz.shape[1]))])
    return xz


#: a polar factor: :func:`core.numerics.linalg.polar` (the authors' SVD completion) or
#: :func:`core.numerics.linalg.polar_stable`
PolarFn = Callable[[np.ndarray], np.ndarray]


def w_sweep(
    layers: list[np.ndarray], a: np.ndarray, xz: np.ndarray, factor: PolarFn = polar
) -> np.ndarray:
    """Gauss–Seidel update of W_1 … W_δ of one view (spec §6.1); returns P_vᵀX_vZᵀ.

    Layer o maximises tr(W_oᵀ Ωᵀ X_vZᵀ Â_oᵀ) with Ω = W_1⋯W_{o−1} (already updated) and
    Â_o = W_{o+1}⋯W_δ A (not yet updated, so all suffixes are computed up front).
    """
    depth = len(layers)
    suffix = [a] * depth
    for o in range(depth - 2, -1, -1):
        suffix[o] = layers[o + 1] @ suffix[o + 1]
    b = xz  # Ωᵀ X_vZᵀ, carried down the layers
    for o in range(depth):
        layers[o] = factor(b @ suffix[o].T)
        b = layers[o].T @ b
    return b


def w_sweep_code_cache(
    layers: list[np.ndarray],
    a: np.ndarray,
    xz: np.ndarray,
    cache: list[np.ndarray],
    factor: PolarFn = polar,
) -> np.ndarray:
    """The authors' W-sweep, stale cache included (spec §6.1, compat only).

    ``cache[o]`` should be W_{o+1}⋯W_δ A but is refreshed lazily from the *previous* view's
    (or iteration's) entry ``cache[o+1]``; it is shared across views and iterations.
    """
    depth = len(layers)
    b = xz
    for o in range(depth):
        cache[o] = a if o == depth - 1 else layers[o + 1] @ cache[o + 1]
        layers[o] = factor(b @ cache[o].T)
        b = layers[o].T @ b
    return b


def a_step(st: HFDState, proj_xz: Sequence[np.ndarray], factor: PolarFn = polar) -> None:
    """A = polar(Σ α_v² P_vᵀX_vZᵀ) (spec §6.2); then caches P_vA for every view."""
    w2 = st.alpha**2
    st.a = factor(sum(wv * b for wv, b in zip(w2, proj_xz, strict=True)))
    st.pa = []
    for layers in st.w:
        pa = st.a
        for layer in reversed(layers):
            pa = layer @ pa
        st.pa.append(pa)


def z_step(views: Sequence[View], st: HFDState, scale: float = 1.0) -> np.ndarray:
    """Z[:, j] = proj_simplex(Σ α_v² (P_vA)ᵀ x_j / Σ α_v²) (spec §6.3; exact because P_vA
    has orthonormal columns)."""
    w2 = st.alpha**2
    t = np.zeros_like(st.zt)
    for wv, x, pa in zip(w2, views, st.pa, strict=True):
        t += wv * data_dot(x, scale * pa[: x.shape[1]])
    t /= w2.sum()
    return project_simplex_rows(t)


#: rows per block of :func:`z_xz_step`; below this many samples the two separate products
FUSED_ROWS = 4096


def z_xz_step(
    views: Sequence[View],
    st: HFDState,
    rows_padded: Sequence[int],
    workers: int = 2,
    scale: float = 1.0,
) -> tuple[np.ndarray, list[np.ndarray]]:
    """:func:`z_step`, then :func:`padded_xz` of the new Z, in one pass over the data.

    Each block of rows is read once for both products while it is still in cache (the two
    separate passes over a 100k x 1000 float32 view were memory-bound: 0.32 s CPU per
    iteration against 0.24 s fused, under load). Blocks run in ``workers`` threads with
    BLAS on one thread each; the partial X_vᵀZ sums are added in block order, so the result
    does not depend on the threads. Up to FUSED_ROWS samples: exactly the separate steps.
    ``scale`` multiplies the views (applied to the small factors, never to the data).
    """
    n, m = st.zt.shape
    if n <= FUSED_ROWS:
        zt = z_step(views, st, scale)
        return zt, [padded_xz(x, zt, r, scale) for x, r in zip(views, rows_padded, strict=True)]
    w2 = st.alpha**2
    pas = [scale * pa[: x.shape[1]] for x, pa in zip(views, st.pa, strict=True)]
    zt = np.empty((n, m))

    def block(start: int) -> list[np.ndarray]:
        rows = slice(start, min(start + FUSED_ROWS, n))
        xb = [x[rows] for x in views]
        t = np.zeros((rows.stop - rows.start, m))
        for wv, x, pa in zip(w2, xb, pas, strict=True):
            t += wv * data_dot(x, pa)
        t /= w2.sum()
        project_simplex_rows_into(t, zt[rows])  # one thread: the blocks are the parallelism
        return [xt_dot(x, zt[rows]) for x in xb]

    with ThreadPoolExecutor(max(1, workers)) as pool:
        parts = list(pool.map(block, range(0, n, FUSED_ROWS)))
    xz = []
    for i, r in enumerate(rows_padded):
        acc = parts[0][i].copy()
        for part in parts[1:]:
            acc += part[i]
        if scale != 1.0:
            acc *= scale
        if acc.shape[0] < r:
            acc = np.vstack([acc, np.zeros((r - acc.shape[0], m))])
        xz.append(acc)
    return zt, xz


def residual_norms(sq_norms: Sequence[float], st: HFDState) -> np.ndarray:
    """f_v = ‖X_v − P_vAZ‖_F by the trace identity (P_vA orthonormal: ‖P_vAZ‖ = ‖Z‖)."""
    zz = float(np.vdot(st.zt, st.zt))
    f2 = [s - 2 * np.vdot(pa, xz) + zz for s, pa, xz in zip(sq_norms, st.pa, st.xz, strict=True)]
    return np.sqrt(np.maximum(np.array(f2), 0.0))


def view_weights(f: np.ndarray, rule: str) -> np.ndarray:
    """α on the simplex: ``inverse_norm`` α ∝ 1/f (code, paper Eq. 17) or ``exact`` α ∝ 1/f²
    (the minimiser of Σ α_v² f_v²). f is floored at 1e-12·max f (spec §14)."""
    f = np.maximum(f, 1e-12 * max(float(f.max()), 1e-300))
    inv = 1.0 / f if rule == "inverse_norm" else 1.0 / f**2
    return inv / inv.sum()


def embedding(zt: np.ndarray, kind: str, k: int) -> np.ndarray:
    """Spectral embedding for k-means (spec §9), signs fixed for determinism.

    ``svd_Z``: all left singular vectors of Zᵀ (code); ``normalized``: the top-k left singular
    vectors of Zᵀ Δ^{-1/2}, Δ = anchor degrees. Directions with zero singular value are
    dropped (LAPACK/MATLAB would return an arbitrary orthonormal completion there).
    """
    if kind == "normalized":
        deg = zt.sum(axis=0)
        zt = zt * np.where(deg > 0, 1.0 / np.sqrt(np.where(deg > 0, deg, 1.0)), 0.0)
    u, s, _ = np.linalg.svd(zt, full_matrices=False)
    keep = s > 1e-10 * max(float(s[0]), 1e-300)
    if kind == "normalized":
        keep[k:] = False
    u = u[:, keep]
    signs = np.sign(u[np.argmax(np.abs(u), axis=0), np.arange(u.shape[1])])
    return u * np.where(signs == 0, 1.0, signs)
