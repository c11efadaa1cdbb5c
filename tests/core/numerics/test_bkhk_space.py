"""BKHK partitions on the concatenated views (dense data up to 5e7 values, one kernel call
per level) exactly as with per-view gathers: same groups, same anchors."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import core.numerics.anchors as anchors


def _run(views, m):
    gen = anchors.bkhk_steps(views, m, np.random.default_rng(5))
    while True:
        try:
            next(gen)
        except StopIteration as stop:
            return stop.value


def _blobs(rng, n, dims, sparse=False):
    labels = np.arange(n) % 4
    out = []
    for d in dims:
        centres = rng.normal(scale=4.0, size=(4, d))
        x = centres[labels] + rng.normal(size=(n, d))
        if sparse:
            x = sp.csr_matrix(np.where(rng.random((n, d)) < 0.5, np.abs(x), 0.0))
        out.append(x)
    return out


@pytest.mark.parametrize(
    "dims, sparse",
    [((300, 500), False), ((12, 30, 7), False)],
    ids=["wide", "narrow"],
)
def test_exact_spaces_give_the_per_view_groups(rng, monkeypatch, dims, sparse):
    views = _blobs(rng, 120, dims, sparse)
    assert len(anchors.exact_partition_space(views)) == 1  # the fast path is taken
    new_anchors, new_groups = _run(views, 16)
    # the per-view path, with its halves in index order as the one-kernel-per-level path
    # keeps them (k-means++ picks its first seed by position within a group)
    monkeypatch.setattr(anchors, "exact_partition_space", list)
    split = anchors._balanced_2means
    monkeypatch.setattr(
        anchors, "_balanced_2means", lambda *a: tuple(np.sort(g) for g in split(*a))
    )
    old_anchors, old_groups = _run(views, 16)
    for a, b in zip(new_groups, old_groups, strict=True):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(new_anchors, old_anchors, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
def test_the_levels_kept_are_the_trees_of_fewer_anchors(sparse):
    """``level_groups``: level L of a 16-group tree is the 2^L-group tree of the same seed
    (the number-of-clusters estimate builds one tree for all its scales)."""
    rng = np.random.default_rng(3)
    views = [rng.normal(size=(120, 5)), np.abs(rng.normal(size=(120, 7)))]
    if sparse:
        views = [sp.csr_matrix(np.where(np.abs(x) > 0.8, x, 0.0)) for x in views]
    levels: list = []
    gen = anchors.bkhk_steps(views, 16, np.random.default_rng(5), level_groups=levels)
    for _ in gen:
        pass
    assert [len(g) for g in levels] == [2, 4, 8, 16]
    for level, m in ((2, 4), (3, 8)):
        _, groups = _run(views, m)
        assert all(np.array_equal(a, b) for a, b in zip(levels[level - 1], groups, strict=True))
    with pytest.raises(ValueError, match="row sample"):
        for _ in anchors.bkhk_steps(views, 16, rng, sample=60, level_groups=[]):
            pass
