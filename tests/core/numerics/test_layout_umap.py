"""The optional UMAP layout (umap-learn is in the test extra, so CI runs these)."""

from __future__ import annotations

import numpy as np
import pytest

from core.numerics import layout_umap
from core.numerics.layout import EmbeddingCancelled, embed, representation
from tests.conftest import make_blobs_views

pytest.importorskip("umap")


@pytest.mark.slow  # umap-learn compiles its numba kernels on the first fit (~20 s alone)
def test_umap_layout_separates_clusters_and_previews_large_inputs(monkeypatch):
    views, labels = make_blobs_views(n=600, c=3, dims=(6, 6), sep=8.0)
    x = representation(views)
    emb = embed(x, method="umap")
    assert emb.shape == (600, 2) and np.isfinite(emb).all()
    centres = np.array([emb[labels == c].mean(axis=0) for c in range(3)])
    nearest = np.argmin(((emb[:, None, :] - centres[None]) ** 2).sum(-1), axis=1)
    assert (nearest == labels).mean() > 0.99
    # above PREVIEW_FROM: a subsample's UMAP with everyone placed is shown first
    monkeypatch.setattr(layout_umap, "PREVIEW_FROM", 100)
    frames = []
    emb = layout_umap.umap_embedding(
        x, n_subsample=150, callback=lambda it, e: frames.append((it, e.shape))
    )
    assert frames == [(0, (600, 2))] and emb.shape == (600, 2)
    with pytest.raises(EmbeddingCancelled):
        layout_umap.umap_embedding(x, n_subsample=150, callback=lambda it, e: True)


def test_umap_available_reflects_the_install():
    assert layout_umap.umap_available()
    assert "pip install" in layout_umap.INSTALL_HINT
