"""Tests for core.numerics.layout: representation, t-SNE with callbacks/cancel, fast layout."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from core.numerics.layout import (
    MAX_EXACT,
    EmbeddingCancelled,
    approximate_embedding,
    embed,
    knn_preservation,
    large_embedding,
    layout_kind,
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


def _separated(emb: np.ndarray, labels: np.ndarray) -> float:
    """Share of samples nearer their own cluster's centre than any other centre."""
    centres = np.array([emb[labels == c].mean(axis=0) for c in range(labels.max() + 1)])
    nearest = np.argmin(((emb[:, None, :] - centres[None]) ** 2).sum(-1), axis=1)
    return float((nearest == labels).mean())


def test_large_layout_refines_all_samples_live():
    """Above the exact size: placement frames first (iterations <= 750), then frames of the
    t-SNE of all samples (750 + 25, ...), a finite layout of every sample that keeps the
    clusters apart and more of the neighbourhoods than the placement alone."""
    views, labels = make_blobs_views(n=3000, c=3, dims=(6, 6), sep=8.0)
    x = representation(views)
    frames = []
    emb = large_embedding(
        x, n_subsample=300, n_iter=50, callback=lambda it, e: frames.append((it, e.shape))
    )
    assert emb.shape == (3000, 2) and np.isfinite(emb).all()
    its = [it for it, _ in frames]
    assert its[0] == 0 and its[-2:] == [775, 800] and 750 in its
    assert all(shape == (3000, 2) for _, shape in frames)
    assert _separated(emb, labels) > 0.99
    placed = approximate_embedding(x, n_subsample=300)
    assert knn_preservation(x, emb) > knn_preservation(x, placed) + 0.05


def test_layout_choice_by_size_and_method():
    assert layout_kind(MAX_EXACT) == "tsne" and layout_kind(MAX_EXACT + 1) == "large"
    assert MAX_EXACT >= 20_000  # exact t-SNE at least up to 20k samples (issue 13)
    assert layout_kind(10, "umap") == "umap"
    with pytest.raises(ValueError, match="tsne"):
        layout_kind(10, "pca")
    views, _ = make_blobs_views(n=300)
    its = []
    embed(representation(views), max_exact=200, callback=lambda it, e: its.append(it))
    assert max(its) > 750  # the large layout ran


def _knn_preservation_numpy(x, y, k, idx):
    """Plain NumPy twin: full distance matrices, self removed, k smallest by stable sort."""
    total = 0
    for i in idx:
        near = []
        for data in (x, y):
            d = ((data - data[i]) ** 2).sum(axis=1)
            d[i] = np.inf
            near.append(set(np.argsort(d, kind="stable")[:k]))
        total += len(near[0] & near[1])
    return total / (k * len(idx))


def test_knn_preservation_matches_numpy_twin():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(300, 7))
    y = x[:, :2] + 0.3 * rng.normal(size=(300, 2))
    idx = np.random.default_rng(0).choice(300, size=120, replace=False)
    got = knn_preservation(x, y, k=10, probes=120)
    assert got == pytest.approx(_knn_preservation_numpy(x, y, 10, idx))
    assert knn_preservation(x, x[:, :2], k=5) < 1.0
    assert knn_preservation(x[:, :2], x[:, :2].copy(), k=5) == 1.0
    with pytest.raises(ValueError, match="rows"):
        knn_preservation(x, y[:10])


def test_representation_blocks_and_float32_agree():
    """The PCA is accumulated over row blocks without a scaled or float64 copy of the view:
    any block size and float32 input give the same representation."""
    from core.numerics.layout import _pca_cov

    views, _ = make_blobs_views(n=500, dims=(40, 90))
    whole = _pca_cov(views[1], 10, 0.5, block=10_000)
    assert np.allclose(_pca_cov(views[1], 10, 0.5, block=37), whole)
    centred = views[1] - views[1].mean(axis=0)
    assert np.allclose(np.abs(whole), np.abs(0.5 * centred @ np.linalg.svd(centred)[2][:10].T))
    x64 = representation(views, n_components=20)
    x32 = representation([v.astype(np.float32) for v in views], n_components=20)
    assert np.allclose(x32, x64, atol=1e-4 * np.abs(x64).max())


def test_large_representation_concatenates_in_float32_to_the_same_result(rng, monkeypatch):
    """From PYNNDESCENT_FROM samples the views' reductions are stacked in float32 (half the
    memory at 1M): the representation stays the float64 one to float32 precision."""
    from core.numerics import layout as layout_module

    views = [rng.normal(size=(600, d)) for d in (70, 60, 12)]
    want = layout_module.representation(views, n_components=20)
    monkeypatch.setattr(layout_module, "PYNNDESCENT_FROM", 100)
    got = layout_module.representation(views, n_components=20)
    assert got.dtype == np.float64 and got.shape == want.shape == (600, 20)
    np.testing.assert_allclose(got, want, atol=1e-5 * np.abs(want).max())


@pytest.mark.kernels
def test_nearest_rows_kernel_matches_a_stable_argsort(rng):
    """The placement's k nearest reference rows: the compiled one-pass selection equals a
    stable sort of the squared distances (ties in index order), distances included."""
    from core.numerics.jit.nearest import nearest_rows_into

    x = rng.normal(size=(300, 6))
    ref = rng.normal(size=(40, 6))
    ref[7] = ref[3]  # a tie: index 3 comes first
    k = 5
    idx = np.empty((300, k), dtype=np.int64)
    d2 = np.empty((300, k))
    nearest_rows_into(x @ ref.T, (x * x).sum(1), (ref * ref).sum(1), idx, d2)
    want = ((x[:, None, :] - ref[None]) ** 2).sum(-1)
    order = np.argsort(want, axis=1, kind="stable")[:, :k]
    np.testing.assert_array_equal(idx, order)
    np.testing.assert_allclose(d2, np.take_along_axis(want, order, axis=1), atol=1e-10)


def test_pca_of_a_row_sample_keeps_the_leading_directions(rng):
    """Above ``sample`` rows the covariance comes from a random row sample (the full one was
    most of the 1M layout's time before its first frame): the leading subspace and the
    projection of every row stay those of the full PCA on data with structure."""
    from core.numerics.layout import _pca_cov

    n, d, k = 6000, 40, 5
    basis = np.linalg.qr(rng.normal(size=(d, k)))[0]
    x = (rng.normal(size=(n, k)) * [9, 7, 5, 4, 3]) @ basis.T + 0.3 * rng.normal(size=(n, d))
    full = _pca_cov(x, k, sample=n)
    part = _pca_cov(x, k, sample=1500, random_state=1)
    assert part.shape == (n, k)
    # same subspace: the sampled projection is a near-rotation of the full one
    coef, *_ = np.linalg.lstsq(full, part, rcond=None)
    residual = np.linalg.norm(part - full @ coef) / np.linalg.norm(part)
    assert residual < 0.05  # five random directions: 0.19
    assert not np.allclose(part, _pca_cov(x, k, sample=1500, random_state=2))  # the sample varies
