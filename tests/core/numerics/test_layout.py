"""Tests for core.numerics.layout: representation, t-SNE with callbacks/cancel, fast layout."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from core.numerics.layout import (
    EmbeddingCancelled,
    approximate_embedding,
    embed,
    representation,
    tsne_embedding,
)
from tests.conftest import make_blobs_views


def test_representation_mixes_dense_and_sparse_views():
    views, _ = make_blobs_views(n=200, dims=(5, 80))
    sparse = sp.random(200, 300, density=0.05, format="csr", random_state=0)
    x = representation([views[0], views[1], sparse], n_components=20)
    assert x.shape == (200, 20)
    assert np.isfinite(x).all()


def test_representation_keeps_small_views_whole():
    views, _ = make_blobs_views(n=100, dims=(3, 4))
    assert representation(views).shape == (100, 7)


def test_tsne_reports_frames_and_separates_blobs():
    views, labels = make_blobs_views(n=300, c=3, dims=(6, 6), sep=8.0)
    frames = []
    emb = tsne_embedding(
        representation(views), callback=lambda it, e: frames.append((it, e)), n_iter=250
    )
    assert emb.shape == (300, 2)
    assert [it for it, _ in frames][:3] == [0, 25, 50]
    assert frames[-1][0] == 500
    frames[0][1][:] = 0  # a copy: mutating it leaves the result alone
    assert np.abs(emb).sum() > 0
    centres = np.array([emb[labels == c].mean(axis=0) for c in range(3)])
    spread = max(emb[labels == c].std() for c in range(3))
    gaps = [np.linalg.norm(centres[a] - centres[b]) for a in range(3) for b in range(a)]
    assert min(gaps) > 2 * spread


def test_tsne_cancel_raises():
    views, _ = make_blobs_views(n=200)
    with pytest.raises(EmbeddingCancelled):
        tsne_embedding(representation(views), callback=lambda it, e: it >= 50)


def test_approximate_layout_places_every_sample():
    views, labels = make_blobs_views(n=3000, c=3, dims=(6, 6), sep=8.0)
    x = representation(views)
    seen = []
    emb = approximate_embedding(
        x, n_subsample=400, callback=lambda it, e: seen.append(e.shape), random_state=1
    )
    assert emb.shape == (3000, 2) and np.isfinite(emb).all()
    assert seen and all(s == (3000, 2) for s in seen)
    # placed samples land with their own cluster: nearest centre is the right one
    centres = np.array([emb[labels == c].mean(axis=0) for c in range(3)])
    nearest = np.argmin(((emb[:, None, :] - centres[None]) ** 2).sum(-1), axis=1)
    assert (nearest == labels).mean() > 0.95


def test_embed_tiny_inputs():
    assert embed(np.zeros((2, 3))).shape == (2, 2)
