"""Consensus of runs (issue 14, item 3): LWGP (Huang et al. 2018) recovers the partition
the runs share, down-weights a run that disagrees, and the agreement matrix is pairwise ARI."""

from __future__ import annotations

import numpy as np
import pytest

from core.data.dataset import DataError
from core.experiments.consensus import agreement_matrix, cluster_eci, consensus_partition
from core.numerics.metrics import adjusted_rand


def _noisy(truth, flip, rng, k=4):
    out = truth.copy()
    idx = rng.choice(truth.size, int(flip * truth.size), replace=False)
    out[idx] = rng.integers(0, k, idx.size)
    return rng.permutation(k)[out]  # other cluster numbers, same partition


def test_consensus_beats_every_noisy_run():
    rng = np.random.default_rng(0)
    truth = np.repeat(np.arange(4), 150)
    runs = [_noisy(truth, 0.25, rng) for _ in range(6)]
    runs.append(rng.integers(0, 4, truth.size))  # a run that found nothing
    res = consensus_partition(runs, 4)
    assert adjusted_rand(truth, res.labels) > max(adjusted_rand(truth, r) for r in runs) + 0.1
    assert res.agreement.shape == (7, 7) and np.allclose(np.diag(res.agreement), 1)
    assert res.agreement[0, 6] < 0.05 < res.agreement[0, 1]
    eci = cluster_eci(runs)
    assert eci[-4:].max() < eci[:4].min()  # the random run's clusters weigh least


def test_agreement_is_symmetric_ari():
    a, b = np.array([0, 0, 1, 1, 2, 2]), np.array([1, 1, 0, 0, 0, 2])
    m = agreement_matrix([a, b, a])
    assert m[0, 1] == m[1, 0] == pytest.approx(adjusted_rand(a, b)) and m[0, 2] == 1


def test_refuses_mismatched_runs():
    with pytest.raises(DataError, match="at least two"):
        consensus_partition([np.zeros(5, int)], 2)
    with pytest.raises(DataError, match="different numbers"):
        consensus_partition([np.zeros(5, int), np.zeros(6, int)], 2)
