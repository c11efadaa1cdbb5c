"""Every method returns as many clusters as asked: the base solver repairs an empty one."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from core.methods import REGISTRY
from core.numerics.empty_clusters import fill_empty_clusters


def _two_blobs(n: int = 30, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    side = np.repeat([0, 1], n // 2)
    x = rng.normal(size=(n, 4)) + 8.0 * side[:, None]
    return x, side


def test_an_empty_cluster_takes_one_blob_of_the_largest_cluster():
    x, side = _two_blobs()
    far = np.random.default_rng(1).normal(size=(6, 4)) - 20.0
    views = [np.vstack([x, far]), sp.csr_matrix(np.abs(np.vstack([x, far])))]
    labels = np.r_[np.zeros(30, dtype=int), np.full(6, 2)]  # cluster 1 empty, 0 holds 2 blobs
    out, notes = fill_empty_clusters(labels, 3, views, seed=0)
    assert np.bincount(out, minlength=3).min() > 0
    moved = np.flatnonzero(out == 1)
    assert moved.size == 15 and np.unique(side[moved]).size == 1  # one whole blob moved
    assert np.array_equal(out[30:], labels[30:])  # the other cluster is untouched
    assert len(notes) == 1 and "cluster 2 was empty" in notes[0]


def test_labels_without_an_empty_cluster_are_returned_as_they_are():
    labels = np.array([0, 1, 2, 0, 1, 2])
    out, notes = fill_empty_clusters(labels, 3, [np.eye(6)])
    assert out is labels and notes == []


def test_only_views_every_member_has_are_used():
    x, side = _two_blobs()
    noise = np.random.default_rng(2).normal(size=(30, 4))
    observed = np.ones((30, 2), dtype=bool)
    observed[0, 1] = False  # the second view (pure noise) is missing for one member
    labels = np.zeros(30, dtype=int)
    out, _ = fill_empty_clusters(labels, 2, [x, noise], observed, seed=3)
    assert np.unique(side[out == 1]).size == 1 and np.sum(out == 1) == 15


def test_identical_rows_are_still_split():
    out, _ = fill_empty_clusters(np.zeros(8, dtype=int), 2, [np.ones((8, 3))])
    assert np.bincount(out).tolist() == [4, 4]


@pytest.mark.parametrize("method", sorted(REGISTRY))
def test_a_method_whose_updates_leave_a_cluster_empty_still_returns_k(method, monkeypatch):
    cls = REGISTRY[method]
    x, _ = _two_blobs(40)
    views = [x, np.abs(x[:, ::-1]) + 0.1]
    real_run = cls._run

    def run_then_drop_a_cluster(self, xs, rep):
        result = yield from real_run(self, xs, rep)
        result.labels = np.where(result.labels == 2, 0, result.labels)  # cluster 2 emptied
        return result

    monkeypatch.setattr(cls, "_run", run_then_drop_a_cluster)
    solver = cls.from_params({"n_clusters": 3, "random_state": 0})
    solver.fit(views)
    assert np.bincount(solver.labels_, minlength=3).min() > 0
    assert solver.labels_.max() == 2


@pytest.mark.parametrize("method", sorted(REGISTRY))
def test_defaults_on_a_small_table_leave_no_cluster_empty(method):
    """Issue 25's case: 40 samples in 5 overlapping groups, every method with its defaults."""
    rng = np.random.default_rng(5)
    y = np.repeat(np.arange(5), 8)
    centres = rng.normal(scale=1.5, size=(5, 6))
    views = [centres[y] + rng.normal(size=(40, 6)), np.abs(rng.normal(size=(40, 3))) + y[:, None]]
    for seed in range(3):
        solver = REGISTRY[method].from_params({"n_clusters": 5, "random_state": seed})
        solver.fit(views)
        assert np.bincount(solver.labels_, minlength=5).min() > 0, (method, seed)
