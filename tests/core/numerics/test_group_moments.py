"""Per-group sums of a dense view (the first table of a comparison) and the row subsample the
rank statistics of a large dense view use."""

from __future__ import annotations

import numpy as np
import pytest

import naive
from core.numerics import profiles
from core.numerics.jit.moments import group_moments
from core.numerics.profiles import profile_view, rank_subsample

pytestmark = pytest.mark.kernels


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_group_moments_matches_twin_bit_for_bit(dtype):
    rng = np.random.default_rng(0)
    x = (rng.normal(size=(300, 7)) * 1e3).astype(dtype)
    groups = rng.integers(-1, 3, 300)  # -1: a sample left out
    s1, s2 = np.zeros((3, 7)), np.zeros((3, 7))
    group_moments(x, groups, s1, s2)
    t1, t2 = naive.group_moments(x, groups, 3)
    np.testing.assert_array_equal(s1, t1)
    np.testing.assert_array_equal(s2, t2)


def test_group_moments_reads_strided_views_without_a_copy():
    x = np.asfortranarray(np.random.default_rng(1).normal(size=(50, 4)))
    s1, s2 = np.zeros((2, 4)), np.zeros((2, 4))
    groups = np.repeat([0, 1], 25)
    group_moments(x, groups, s1, s2)
    np.testing.assert_allclose(s1, [x[:25].sum(0), x[25:].sum(0)], rtol=1e-12)


def test_a_large_dense_view_ranks_a_subsample_but_means_use_every_row(monkeypatch):
    rng = np.random.default_rng(2)
    n, d = 3000, 6
    x = rng.normal(size=(n, d))
    labels = np.zeros(n, dtype=np.int64)
    labels[:60] = 1  # a small selection
    x[:60, 0] += 2.0
    full = profile_view(x, labels, 2)
    monkeypatch.setattr(profiles, "DENSE_RANK_VALUES", 1200 * d)
    sub = profile_view(x, labels, 2)
    assert full.rank_samples == n and sub.rank_samples == 1200 and sub.subsampled
    np.testing.assert_array_equal(sub.mean_in, full.mean_in)  # every row
    np.testing.assert_array_equal(sub.effect, full.effect)
    assert sub.q[1, 0] < 1e-6 and sub.top(1).tolist() == [0]  # still found, from 1200 rows
    again = profile_view(x, labels, 2)
    np.testing.assert_array_equal(again.p, sub.p)  # seeded: the same rows every time


def test_two_groups_are_sampled_each_within_itself():
    labels = np.r_[np.ones(30, dtype=np.int64), np.zeros(970, dtype=np.int64)]
    rows = rank_subsample(labels, np.arange(1000), 2, 200, seed=0)
    assert rows.size == 200 and np.sum(labels[rows] == 1) == 30  # the whole small group
    three = rank_subsample(labels % 3, np.arange(1000), 3, 200, seed=0)
    assert three.size == 200 and np.all(np.diff(three) > 0)
