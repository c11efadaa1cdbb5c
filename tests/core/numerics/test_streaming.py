"""Out-of-core views (row-block sources) give the same result as the data in memory."""

from __future__ import annotations

import h5py
import numpy as np
import pytest

from core.data.blocks import ArraySource, HDF5Source, npy_source
from core.data.dataset import DataError
from core.data.demo import make_synthetic
from core.methods import REGISTRY
from core.numerics.anchors import bkhk_steps
from core.numerics.graphs import pkn_anchor_graph
from core.numerics.steps import drain
from core.numerics.streaming import stream_bkhk_steps, stream_pkn_graph_steps


@pytest.fixture(scope="module")
def data():
    return make_synthetic(1500, (12, 20, 30), 4, seed=3)


def test_streamed_anchors_and_graph_match_in_memory(data):
    sources = [ArraySource(x, block_rows=37) for x in data.views]
    a_mem, g_mem = drain(bkhk_steps(data.views, 64, np.random.default_rng(1), space="sketch"))
    a_str, g_str = drain(stream_bkhk_steps(sources, 64, np.random.default_rng(1)))
    assert all(np.array_equal(np.sort(p), np.sort(q)) for p, q in zip(g_mem, g_str, strict=True))
    for p, q in zip(a_mem, a_str, strict=True):
        np.testing.assert_allclose(p, q, rtol=1e-10, atol=1e-12)
    z_mem = pkn_anchor_graph(data.views[1], a_mem[1], 10)
    z_str = drain(stream_pkn_graph_steps(sources[1], a_mem[1], 10))
    assert abs(z_mem - z_str).max() < 1e-12


def test_fmdc_on_v73_mat_and_npy_memmap_gives_in_memory_labels(data, tmp_path):
    mem = REGISTRY["fmdc"](n_clusters=4, n_anchors=64, bkhk_space="sketch").fit(data.views)
    path = tmp_path / "big.mat"
    with h5py.File(path, "w") as f:  # MATLAB v7.3 layout: an n x d matrix stored as (d, n)
        for i, x in enumerate(data.views):
            f[f"X{i}"] = x.T.astype(np.float32)
    h5 = [HDF5Source(path, f"X{i}", block_rows=100) for i in range(3)]
    assert h5[2].shape == (1500, 30)
    npys = []
    for i, x in enumerate(data.views):
        np.save(tmp_path / f"v{i}.npy", x)
        npys.append(npy_source(tmp_path / f"v{i}.npy", block_rows=211))
    from_npy = REGISTRY["fmdc"](n_clusters=4, n_anchors=64).fit(npys)
    np.testing.assert_array_equal(from_npy.labels_, mem.labels_)
    # float32 on disk: distances move by ~1e-7, the labels stay
    from_h5 = REGISTRY["fmdc"](n_clusters=4, n_anchors=64).fit(h5)
    assert np.mean(from_h5.labels_ == mem.labels_) > 0.99


def test_a_nan_in_a_block_names_the_row(data):
    x = data.views[0].copy()
    x[1234, 5] = np.nan
    src = ArraySource(x, label="view 1", block_rows=100)
    with pytest.raises(DataError, match="row 1234, column 5"):
        REGISTRY["fmdc"](n_clusters=4, n_anchors=64).fit([src, data.views[1]])


def test_rows_by_index_read_block_by_block(data):
    src = ArraySource(data.views[2], block_rows=64)
    idx = np.array([1499, 3, 700, 3])
    np.testing.assert_array_equal(src[idx], data.views[2][idx])


def test_dtll_on_row_blocks_finds_the_in_memory_partition(data):
    from core.numerics.metrics import accuracy

    mem = REGISTRY["dtll"](n_clusters=4, n_anchors=60).fit(data.views)
    blocks = REGISTRY["dtll"](n_clusters=4, n_anchors=60).fit(
        [ArraySource(x, block_rows=1500) for x in data.views]
    )
    # graphs equal to ~1e-15 (BLAS rounding; smaller blocks too), which DTLL's discrete
    # iterations can amplify to a slightly different fixed point of the same quality
    truth = accuracy(data.labels, mem.labels_)
    assert truth > 0.6
    assert abs(accuracy(data.labels, blocks.labels_) - truth) < 0.02


def test_streamed_tree_on_a_subsample_averages_the_sampled_rows(data):
    sources = [ArraySource(x, block_rows=37) for x in data.views]
    anchors, groups = drain(stream_bkhk_steps(sources, 32, np.random.default_rng(2), sample=320))
    rows = np.concatenate(groups)
    assert rows.size == 320 and np.unique(rows).size == 320 and {g.size for g in groups} == {10}
    for x, a in zip(data.views, anchors, strict=True):
        np.testing.assert_allclose(a, np.array([x[g].mean(0) for g in groups]), atol=1e-12)
