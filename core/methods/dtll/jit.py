"""DTLL's own kernels: VDA anchor selection (docs/methods/dtll.md, spec §3), SᵀG."""

from __future__ import annotations

import math

import numpy as np

from core.numerics.jit.config import JIT, njit

#: the VDA kernels divide only by values that cannot be zero (the running maximum, 1 + √·);
#: numba's Python error model tests every division for zero, and that branch kept the damping
#: loop scalar: with the NumPy model it runs on vector registers, 4x faster, same bits
VDA_JIT = {**JIT, "error_model": "numpy"}
_SCAN = 256  # samples per block of the maximum search


@njit(**VDA_JIT)
def _damp(raw: np.ndarray, smax: float, a: float) -> None:
    """One VDA damping pass: score = raw / smax, then score · (1 − 1/(1 + √|a − score|))."""
    for i in range(raw.shape[0]):
        s = raw[i] / smax
        co = 1.0 / (1.0 + math.sqrt(abs(a - s)))
        raw[i] = s * (1.0 - co)


@njit(**VDA_JIT)
def _first_max(raw: np.ndarray) -> int:
    """First index of the maximum of non-negative doubles, or -1 when all are 0. Their bit
    patterns order like their values, and an integer maximum vectorises (a float one does
    not without fast-math); the block that holds it is then scanned for the first index."""
    bits = raw.view(np.int64)
    n = bits.shape[0]
    top = np.int64(0)
    block = -1
    for s0 in range(0, n, _SCAN):
        mx = np.int64(0)
        for i in range(s0, min(n, s0 + _SCAN)):
            mx = max(mx, bits[i])
        if mx > top:
            top = mx
            block = s0
    if block < 0:
        return -1
    for i in range(block, min(n, block + _SCAN)):
        if bits[i] == top:
            return i
    return -1


@njit(**VDA_JIT)
def vda_picks(
    raw: np.ndarray, state: np.ndarray, selected: np.ndarray, start: int, stop: int
) -> int:
    """VDA picks number start..stop-1 (TBGL ``VDA.m``, dtll spec §3), in place.

    The normalised scores are ``raw / state[0]`` (kept unnormalised between picks, so a pick
    is one damping pass and one maximum search; the values are those of TBGL's two passes,
    damp then divide by the maximum, bit for bit). ``selected[start − 1]`` must be set (the
    caller sets ``selected[0]``, the argmax of the initial scores, with ``state[0]`` = their
    maximum). Each step damps the scores near the last pick's score and picks the first
    argmax. Returns the number of picks made so far: less than ``stop`` when every score has
    been suppressed (max = 0), in which case the caller fills up the rest.
    """
    for t in range(start, stop):
        smax = state[0]
        # the score of the last pick: the maximum, so a = 1 (TBGL's ρ = max(co) = 1)
        a = raw[selected[t - 1]] / smax
        _damp(raw, smax, a)
        best = _first_max(raw)
        if best < 0:
            return t
        state[0] = raw[best]
        selected[t] = best
    return stop


@njit(**JIT)
def transmission_sums(
    indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, labels: np.ndarray, c: int, m: int
) -> np.ndarray:
    """X = SᵀG (m × C) of a CSR graph and labels: X[j, l] = Σ_{i: label_i = l} S_ij, summed
    in the order of the stored entries (as ``np.bincount`` does, so the sums are equal)."""
    out = np.zeros((m, c))
    for i in range(labels.shape[0]):
        lab = labels[i]
        for e in range(indptr[i], indptr[i + 1]):
            out[indices[e], lab] += data[e]
    return out


@njit(**JIT)
def vote_labels(
    view_labels: np.ndarray,
    alpha: np.ndarray,
    c: int,
    observed: np.ndarray,
    heavy: np.ndarray,
    tol: float,
    out: np.ndarray,
) -> None:
    """The α-weighted vote of ``updates.weighted_vote`` per sample, into ``out``: votes
    summed over the views in order, the first best label, and among labels within ``tol``
    of the best the one of the heaviest view (``heavy``: views by decreasing α) that has the
    sample. ``observed`` (n x V bool) or an empty array (every view has every sample)."""
    nv, n = view_labels.shape
    every = observed.shape[0] == 0
    votes = np.empty(c)
    for i in range(n):
        for lab in range(c):
            votes[lab] = 0.0
        for k in range(nv):
            has = 1.0 if every or observed[i, k] else 0.0
            votes[view_labels[k, i]] += alpha[k] * has
        best = 0
        for lab in range(1, c):
            if votes[lab] > votes[best]:
                best = lab
        limit = votes[best] - tol
        tied = 0
        for lab in range(c):
            if votes[lab] >= limit:
                tied += 1
        if tied > 1:
            for k in heavy:
                lab = view_labels[k, i]
                if (every or observed[i, k]) and votes[lab] >= limit:
                    best = lab
                    break
        out[i] = best
