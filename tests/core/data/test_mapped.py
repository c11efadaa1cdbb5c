"""Large files stored as plain arrays open memory-mapped in place, summarised from a sample
first and exactly in one bounded pass after."""

from __future__ import annotations

import h5py
import numpy as np
import pytest
from table_fixtures import _anndata

from core.data.dataset import DataError, MultiViewDataset
from core.data.demo import make_synthetic
from core.data.io import load_dataset
from core.data.isolated_stats import exact_summary_isolated
from core.data.mapped import (
    _row_ranges,
    exact_summary,
    open_mapped,
    sampled_summary,
)
from core.data.store import write_store


@pytest.fixture(scope="module")
def data():
    return make_synthetic(300, (5, 8), 3, seed=4)


def _file_map(x: np.ndarray) -> bool:
    while isinstance(x, np.ndarray):
        if isinstance(x, np.memmap):
            return True
        x = x.base
    return False


def test_npz_store_and_h5ad_views_are_maps_of_the_file(data, tmp_path):
    np.savez(tmp_path / "a.npz", X0=data.views[0], X1=data.views[1], y=data.labels)
    write_store(data, tmp_path / "store")
    with h5py.File(tmp_path / "a.h5ad", "w") as f:
        _anndata(f, data.views[1], np.arange(300).astype(str), {})
    for path in ("a.npz", "store", "a.h5ad"):
        ds = open_mapped(tmp_path / path, min_bytes=0)
        whole = load_dataset(tmp_path / path) if path != "store" else data
        assert all(_file_map(v) for v in ds.views), path
        for m, w in zip(ds.views, whole.views[-ds.n_views :], strict=True):
            np.testing.assert_array_equal(m, w)
    assert open_mapped(tmp_path / "a.npz") is None  # small files: the reader child, as before


def test_files_that_cannot_be_mapped_are_left_to_the_reader(data, tmp_path):
    np.savez_compressed(tmp_path / "c.npz", X0=data.views[0], y=data.labels)
    with h5py.File(tmp_path / "chunked.h5ad", "w") as f:
        _anndata(f, data.views[0], np.arange(300).astype(str), {})
        del f["X"]
        f.create_dataset("X", data=data.views[0], chunks=(10, 5), compression="gzip")
    np.savez(tmp_path / "f32.npz", X0=data.views[0].astype(np.float32))  # held as float64
    for name in ("c.npz", "chunked.h5ad", "f32.npz"):
        assert open_mapped(tmp_path / name, min_bytes=0) is None, name


def test_sampled_then_exact_summary(data, tmp_path):
    x = data.views[1].copy()
    x[x < 0.2] = 0.0
    x[17] = 0.0
    full = MultiViewDataset([data.views[0], x], labels=data.labels)
    np.savez(tmp_path / "a.npz", X0=full.views[0], X1=full.views[1], y=data.labels)
    ds = open_mapped(tmp_path / "a.npz", min_bytes=0)
    quick = sampled_summary(ds, rows=80)
    assert quick["views"][1]["sampled_rows"] < 300 and quick["views"][1]["shape"] == [300, 8]
    assert quick["class_counts"] == full.summary()["class_counts"]
    assert any("summary from" in w for w in quick["warnings"])
    exact, want = exact_summary(ds), full.summary()
    for s, w in zip(exact["views"], want["views"], strict=True):
        assert s["zero_rows"] == w["zero_rows"] and s["integer_valued"] == w["integer_valued"]
        assert s["density"] == pytest.approx(w["density"]) and s["min"] == pytest.approx(w["min"])
    assert not any("summary from" in w for w in exact["warnings"])


def test_a_nan_is_found_by_the_exact_pass_and_by_the_solver(data, tmp_path):
    x = data.views[0].copy()
    x[250, 3] = np.nan
    np.savez(tmp_path / "nan.npz", X0=x, X1=data.views[1])
    ds = open_mapped(tmp_path / "nan.npz", min_bytes=0)  # opening does not read every value
    with pytest.raises(DataError, match="row 250, column 3"):
        exact_summary(ds)
    with pytest.raises(DataError, match="row 250, column 3"):  # the GUI's child process
        exact_summary_isolated(tmp_path / "nan.npz")
    from core.methods import REGISTRY

    with pytest.raises(DataError, match="row 250, column 3"):
        REGISTRY["fmdc"](n_clusters=3).fit(ds.views)


def test_row_ranges_are_spread_contiguous_runs():
    idx = _row_ranges(1_000_000, 20_000)
    assert idx[0] == 0 and idx[-1] == 999_999 and 19_000 < idx.size <= 20_000
    assert np.array_equal(_row_ranges(50, 100), np.arange(50))
