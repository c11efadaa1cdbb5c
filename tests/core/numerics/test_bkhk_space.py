"""BKHK partitions in the sample space (wide data) or on the concatenated views (mid-size
dense data) exactly as with per-view gathers: same groups, same anchors."""

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
    [((300, 500), False), ((400, 250), True), ((12, 30, 7), False)],
    ids=["wide-dense", "wide-sparse", "concatenated"],
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


def test_sample_space_embedding_keeps_inner_products(rng):
    views = [rng.normal(size=(30, 200)), sp.random(30, 90, density=0.3, random_state=1).tocsr()]
    e = anchors.sample_space_embedding(views)
    expect = views[0] @ views[0].T + (views[1] @ views[1].T).toarray()
    np.testing.assert_allclose(e @ e.T, expect, atol=1e-9)
