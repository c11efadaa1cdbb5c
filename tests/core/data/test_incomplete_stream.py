"""Incomplete views read in row blocks: statistics from each view's observed samples, the
missing rows zero and never used, and the methods' incomplete paths on row blocks give the
in-memory result."""

from __future__ import annotations

import numpy as np
import pytest

from core.data.blocks import ArraySource, RowSubsetSource, row_subset
from core.data.dataset import DataError, MultiViewDataset
from core.data.demo import make_synthetic
from core.data.preprocessing import transform_views
from core.data.store import write_store
from core.data.stream_stats import preprocess_streamed
from core.data.streamed import open_streamed
from core.methods import REGISTRY
from core.numerics.metrics import accuracy


@pytest.fixture(scope="module")
def incomplete():
    data = make_synthetic(400, (8, 12, 6), 3, seed=4)
    g = np.random.default_rng(0)
    observed = g.random((400, 3)) > 0.25
    observed[~observed.any(axis=1), 0] = True  # every sample keeps a view
    views = [np.where(observed[:, [v]], x * (v + 1) + v, 0.0) for v, x in enumerate(data.views)]
    return MultiViewDataset(views, labels=data.labels, observed=observed)


def _rows(src) -> np.ndarray:
    return np.vstack([b for _, _, b in src.blocks()])


def test_a_row_subset_reads_the_inner_blocks_in_order():
    x = np.arange(60.0).reshape(20, 3)
    rows = np.array([0, 3, 4, 9, 17, 19])
    sub = RowSubsetSource(ArraySource(x, block_rows=4), rows)
    np.testing.assert_array_equal(_rows(sub), x[rows])
    np.testing.assert_array_equal(sub.read(1, 4), x[rows[1:4]])
    assert row_subset(x, rows).shape == (6, 3)  # arrays are sliced as before
    with pytest.raises(DataError, match="sorted, distinct"):
        RowSubsetSource(ArraySource(x), np.array([3, 1]))


@pytest.mark.parametrize("method", ["auto", "zscore", "minmax", "l2"])
def test_preprocessing_follows_the_observed_samples(incomplete, method, tmp_path):
    write_store(incomplete, tmp_path / "s")
    streamed = open_streamed(tmp_path / "s")
    np.testing.assert_array_equal(streamed.observed, incomplete.observed)
    for src in streamed.views:
        src._rows = 33  # many blocks
    got, fitted = preprocess_streamed(streamed.views, method, "general", streamed.observed)
    want, want_fit = transform_views(incomplete.views, method, "general", incomplete.observed)
    assert [t.label for t in fitted] == [t.label for t in want_fit]
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(_rows(g), w, atol=1e-12)


@pytest.mark.parametrize("name", ["fmdc", "dtll"])
def test_incomplete_methods_on_row_blocks_match_memory(incomplete, name, tmp_path):
    write_store(incomplete, tmp_path / name)
    streamed = open_streamed(tmp_path / name)
    mask = streamed.observed
    blocks, _ = preprocess_streamed(streamed.views, "zscore", "general", mask)
    memory, _ = transform_views(incomplete.views, "zscore", "general", mask)
    params = {"n_clusters": 3, "random_state": 0}
    if name == "fmdc":
        params["bkhk_space"] = "sketch"  # what row blocks always partition
    cls = REGISTRY[name]
    from_blocks = cls(**params).fit(blocks, observed=mask).labels_
    in_memory = cls(**params).fit(memory, observed=mask).labels_
    if name == "fmdc":
        np.testing.assert_array_equal(from_blocks, in_memory)
    else:  # graphs equal to 1e-15 (BLAS blocking); discrete iterations may round apart
        assert accuracy(in_memory, from_blocks) > 0.98
    assert accuracy(incomplete.labels, from_blocks) > 0.6  # chance: 1/3


def test_mvc_run_streams_an_incomplete_store(incomplete, tmp_path, capsys):
    from core.cli.main import main

    write_store(incomplete, tmp_path / "s")
    args = ["run", str(tmp_path / "s"), "--method", "dtll", "--stream", "--quiet"]
    assert main([*args, "--n-clusters", "3"]) == 0
    out = capsys.readouterr()
    assert "streaming: asked for with --stream" in out.err and "ACC" in out.out


def test_a_v73_missing_view_indicator_marks_the_streamed_views(incomplete, tmp_path):
    from test_io import _cell, _write_mat73

    from core.data.io import load_dataset

    flag = (~incomplete.observed).astype(np.float64)  # 1 = missing, as IMVC-CBG files store it
    path = _write_mat73(
        tmp_path / "inc.mat",
        {"X": _cell(incomplete.views), "Y": incomplete.labels + 1.0, "MissingStatus": flag},
    )
    streamed, whole = open_streamed(path), load_dataset(path)
    np.testing.assert_array_equal(streamed.observed, whole.observed)
    np.testing.assert_array_equal(streamed.observed, incomplete.observed)
    assert any("incomplete views" in w for w in streamed.warnings)
