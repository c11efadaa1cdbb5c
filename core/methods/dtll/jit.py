"""DTLL's own kernel: VDA anchor selection (docs/methods/dtll.md, spec §3)."""

from __future__ import annotations

import math

import numpy as np

from core.numerics.jit.config import JIT, njit


@njit(**JIT)
def vda_picks(score: np.ndarray, selected: np.ndarray, start: int, stop: int) -> int:
    """VDA picks number start..stop-1 (TBGL ``VDA.m``, dtll spec §3), in place.

    ``score`` is the normalised score vector (max 1) after pick ``start − 1`` (which is
    ``selected[start − 1]``); ``selected[0]`` must be set by the caller. Each step damps the
    scores near the last pick's score, renormalises and picks the first argmax. Returns the
    number of picks made so far: less than ``stop`` when every score has been suppressed
    (max = 0), in which case the caller fills up the rest.
    """
    n = score.shape[0]
    for t in range(start, stop):
        # a is the score of an actual sample, whose co is 1/(1+0) = 1 = max(co): ρ = co
        a = score[selected[t - 1]]
        smax = 0.0
        for i in range(n):
            co = 1.0 / (1.0 + math.sqrt(abs(a - score[i])))
            score[i] = score[i] * (1.0 - co)
            if score[i] > smax:
                smax = score[i]
        if smax <= 0.0:
            return t
        best = -1
        bestval = -1.0
        for i in range(n):
            score[i] = score[i] / smax
            if score[i] > bestval:
                bestval = score[i]
                best = i
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
