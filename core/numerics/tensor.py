"""Tensor Schatten-p norm and its proximal operator through the t-SVD (real FFT).

A 3-way tensor 𝒯 (here N × C × V: samples × clusters × views) is transformed by a real FFT
along one axis; every Fourier slice's singular values are shrunk by GST (dtll spec §6.2):

* ``"per_sample"`` (default): FFT along the sample axis, N//2 + 1 slices of size C × V (the
  TBGL code convention, ``wshrinkObj_weight_lp(..., mode=3)``);
* ``"per_cluster"``: FFT along the cluster axis, C//2 + 1 slices of size N × V (the paper's
  text; kept for experiments, it clusters much worse).

Conventions follow the reference code: τ acts on the singular values of the unnormalised
FFT slices (no factor N), and the norm sums over all N (or C) slices, i.e. the conjugate
slices that rfft omits are counted by weight 2.
"""

from __future__ import annotations

import numpy as np
import scipy.fft as sfft

from core.numerics.jit.tensor import shrink_slices, slice_singular_values

__all__ = ["ORIENTATIONS", "fft_slices", "schatten_p_norm", "schatten_prox", "slice_weights"]

ORIENTATIONS = ("per_sample", "per_cluster")


def _fft_axis(orientation: str) -> int:
    if orientation not in ORIENTATIONS:
        raise ValueError(f"orientation must be one of {ORIENTATIONS}, got {orientation!r}")
    return 0 if orientation == "per_sample" else 1


def fft_slices(t: np.ndarray, orientation: str = "per_sample") -> np.ndarray:
    """Fourier slices of a real N × C × V tensor, stacked as (L, rows, cols), rows ≥ cols.

    Transposing a slice changes neither its singular values nor how GST acts on it, so each
    slice is oriented tall for the one-sided Jacobi kernel.
    """
    axis = _fft_axis(orientation)
    f = sfft.rfft(t, axis=axis)
    if axis == 1:
        f = f.transpose(1, 0, 2)
    if f.shape[1] < f.shape[2]:
        f = f.transpose(0, 2, 1)
    return np.ascontiguousarray(f, dtype=np.complex128)


def _from_slices(f: np.ndarray, shape: tuple[int, int, int], orientation: str) -> np.ndarray:
    axis = _fft_axis(orientation)
    other = (shape[1], shape[2]) if axis == 0 else (shape[0], shape[2])
    if f.shape[1:] != other:
        f = f.transpose(0, 2, 1)
    if axis == 1:
        f = f.transpose(1, 0, 2)
    return np.ascontiguousarray(sfft.irfft(f, n=shape[axis], axis=axis))


def slice_weights(n: int) -> np.ndarray:
    """How often each rfft slice occurs among the n full-FFT slices (1 or 2)."""
    w = np.full(n // 2 + 1, 2.0)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    return w


def schatten_prox(
    t: np.ndarray, tau: float, p: float, orientation: str = "per_sample"
) -> np.ndarray:
    """argmin_𝒥 τ‖𝒥‖_{S_p}^p + (L/2)‖𝒥 − 𝒯‖²_F with L the FFT length, slice by slice.

    Every Fourier slice T̂_f = U Σ Vᴴ becomes U·GST(Σ; τ, p)·Vᴴ; conjugate slices are shrunk
    alike, so the inverse FFT is real. For p = 1 this is singular value soft thresholding.
    """
    f = fft_slices(t, orientation)
    shrink_slices(f, float(tau), float(p))
    return _from_slices(f, t.shape, orientation)


def schatten_p_norm(t: np.ndarray, p: float, orientation: str = "per_sample") -> float:
    """‖𝒯‖_{S_p}^p = Σ_f Σ_j σ_j(T̂_f)^p over all FFT slices (dtll spec §7)."""
    f = fft_slices(t, orientation)
    s = slice_singular_values(f)
    n = t.shape[_fft_axis(orientation)]
    per_slice = np.where(s > 0, s, 0.0) ** p
    return float(slice_weights(n) @ per_slice.sum(axis=1))
