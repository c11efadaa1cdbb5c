"""The layout child reads large dense views through lazy preprocessing: the same
representation and the same preprocessing names as preprocessing the views whole, no copy."""

from __future__ import annotations

import numpy as np
import pytest

from core.data.preprocessing import preprocess_view
from core.numerics.layout import representation
from mvc_gui.run import layout_input
from mvc_gui.run.layout_input import ColumnAffine, layout_views


@pytest.fixture
def views(rng):
    a = (rng.normal(size=(3000, 30)) * rng.uniform(0.1, 50, 30) + 7).astype(np.float32)
    a[:, 3] = 2.0  # a constant column: zero after z-scoring, as preprocess_view does
    b = rng.uniform(0, 5, size=(3000, 12)).astype(np.float32)  # non-negative: auto may pick l2
    return [a, b]


@pytest.mark.parametrize("method", ["zscore", "minmax", "maxscale", "none", "auto", "l2"])
def test_lazy_views_give_the_same_representation_and_names(views, method, monkeypatch):
    monkeypatch.setattr(layout_input, "LAZY_FROM", 1000)
    lazy, names = layout_views(views, [method, method])
    eager = [preprocess_view(x, method) for x in views]
    assert names == [name for _, name in eager]
    if method in ("zscore", "minmax", "maxscale"):
        assert all(isinstance(v, ColumnAffine) for v in lazy)  # nothing copied
    for v, (y, _) in zip(lazy, eager, strict=True):
        np.testing.assert_allclose(np.asarray(v), y, rtol=1e-5, atol=1e-5)
    got = representation(lazy, n_components=8)
    want = representation([y for y, _ in eager], n_components=8)
    np.testing.assert_allclose(np.abs(got), np.abs(want), rtol=1e-4, atol=1e-4)


def test_incomplete_or_small_views_are_preprocessed_whole(views):
    observed = np.ones((3000, 2), dtype=bool)
    observed[:10, 1] = False
    out, _ = layout_views(views, ["zscore", "zscore"], observed=observed)
    assert all(isinstance(v, np.ndarray) for v in out)
    np.testing.assert_array_equal(out[1][:10], 0.0)  # missing rows are zero, never read
    out, _ = layout_views(views, ["zscore", "zscore"])  # below LAZY_FROM values
    assert all(isinstance(v, np.ndarray) for v in out)


def test_views_read_in_row_blocks_are_preprocessed_by_the_streamed_rule(views, monkeypatch):
    """A streamed dataset's views are never turned into arrays here: they go through
    prepare_views' block-by-block path, and the representation reads them in blocks."""
    from core.data.blocks import ArraySource, is_source

    monkeypatch.setattr(layout_input, "LAZY_FROM", 1000)
    sources = [ArraySource(x) for x in views]
    out, names = layout_views(sources, ["zscore", "zscore"])
    assert all(is_source(v) for v in out) and len(names) == 2
    got = representation(out, n_components=8)
    assert got.shape == (3000, 8) and np.isfinite(got).all()


def test_lazy_view_reads_row_indices_like_a_slice(views, monkeypatch):
    """The layout's PCA takes its directions from random rows: a lazy view gives the
    preprocessed rows for an index array as it does for a slice."""
    monkeypatch.setattr(layout_input, "LAZY_FROM", 1000)
    (lazy, _), _ = layout_views(views, ["zscore", "zscore"])
    rows = np.array([0, 5, 17, 2999])
    np.testing.assert_allclose(lazy[rows], np.asarray(lazy)[rows], rtol=1e-6, atol=1e-6)
    with pytest.raises(TypeError, match="by rows"):
        lazy[np.zeros((2, 2), dtype=int)]
