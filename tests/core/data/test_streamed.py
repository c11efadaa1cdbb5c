"""Files opened with their views as row-block sources give the data the loaders read whole."""

from __future__ import annotations

import h5py
import numpy as np
import pytest
import scipy.sparse as sp
from table_fixtures import _anndata, write_h5ad, write_h5mu

from core.data.blocks import RowBlockSource
from core.data.dataset import DataError, MultiViewDataset
from core.data.demo import make_synthetic
from core.data.io import load_dataset
from core.data.preprocessing import PREPROCESSORS, preprocess
from core.data.sources import CsrSource
from core.data.store import write_store
from core.data.stream_stats import preprocess_streamed
from core.data.streamed import estimate_bytes, open_streamed, stream_reason


@pytest.fixture(scope="module")
def data():
    return make_synthetic(240, (4, 7, 9), 3, seed=5)


def _whole(x) -> np.ndarray:
    return np.vstack([b for _, _, b in x.blocks(rows=37)])  # odd block size: edges checked


def _dense(x) -> np.ndarray:
    return x.toarray() if sp.issparse(x) else np.asarray(x)


def _same_views(streamed: MultiViewDataset, whole: MultiViewDataset) -> None:
    assert all(isinstance(v, RowBlockSource) for v in streamed.views)
    assert streamed.dims == whole.dims and streamed.n_samples == whole.n_samples
    for s, w in zip(streamed.views, whole.views, strict=True):
        np.testing.assert_allclose(_whole(s), _dense(w), rtol=1e-6)


def _write_mat73(path, variables: dict) -> None:
    """MATLAB v7.3 layout: matrices transposed, a cell of object references."""
    with h5py.File(path, "w", userblock_size=512) as h5:
        refs = h5.create_group("#refs#")
        for key, value in variables.items():
            if isinstance(value, list):
                cell = np.empty((len(value), 1), dtype=h5py.ref_dtype)
                for i, item in enumerate(value):
                    ds = refs.create_dataset(f"r{key}{i}", data=np.asarray(item).T)
                    ds.attrs["MATLAB_class"] = np.bytes_("double")
                    cell[i, 0] = ds.ref
                ds = h5.create_dataset(key, data=cell, dtype=h5py.ref_dtype)
                ds.attrs["MATLAB_class"] = np.bytes_("cell")
            else:
                ds = h5.create_dataset(key, data=np.asarray(value).T)
                ds.attrs["MATLAB_class"] = np.bytes_("double")
    with open(path, "r+b") as fh:
        head = b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: test HDF5 schema 1.00 ."
        fh.write(head.ljust(116) + b"\x00" * 8 + b"\x00\x02IM")


def test_mat73_cell_in_both_orientations(data, tmp_path):
    path = tmp_path / "v73.mat"
    # view 2 saved d x n (samples as columns), as some benchmark files are
    cell = [data.views[0], data.views[1].T, data.views[2]]
    _write_mat73(path, {"X": cell, "Y": (data.labels + 1.0)[None, :]})
    streamed = open_streamed(path)
    _same_views(streamed, load_dataset(path))
    np.testing.assert_array_equal(streamed.labels, data.labels)
    _write_mat73(tmp_path / "x.mat", {"x1": data.views[0], "x2": data.views[1], "gt": data.labels})
    _same_views(open_streamed(tmp_path / "x.mat"), load_dataset(tmp_path / "x.mat"))


def test_h5ad_csr_and_dense_x_with_obs(data, tmp_path):
    csr = tmp_path / "csr.h5ad"
    truth = write_h5ad(csr)
    streamed = open_streamed(csr)
    assert isinstance(streamed.views[0], CsrSource)
    _same_views(streamed, load_dataset(csr))
    np.testing.assert_array_equal(streamed.sample_ids, truth["ids"])
    np.testing.assert_array_equal(streamed.metadata["cell_type"], truth["labels"])
    assert streamed.views[0].read_sparse(5, 9).shape == (4, streamed.dims[0])
    dense = tmp_path / "dense.h5ad"
    ids = np.array([f"c{i}" for i in range(data.n_samples)])
    with h5py.File(dense, "w") as f:
        _anndata(f, data.views[2].astype(np.float32), ids, {"n": np.arange(data.n_samples)})
    _same_views(open_streamed(dense), load_dataset(dense))


def test_h5mu_with_modalities_in_another_order_is_refused(tmp_path):
    write_h5mu(tmp_path / "m.h5mu")
    with pytest.raises(DataError, match=r"m\.h5mu.*another order"):
        open_streamed(tmp_path / "m.h5mu")


def test_npz_members_read_at_their_offset_and_compressed_refused(data, tmp_path):
    path = tmp_path / "plain.npz"
    np.savez(path, X0=data.views[0], X1=data.views[1].astype(np.float32), y=data.labels)
    streamed = open_streamed(path)
    _same_views(streamed, load_dataset(path))
    assert streamed.views[1].dtype == np.float32
    np.testing.assert_array_equal(streamed.views[0].memmap(), data.views[0])
    np.savez_compressed(tmp_path / "small.npz", X0=data.views[0], y=data.labels)
    with pytest.raises(DataError, match=r"small.npz: X0.npy is compressed.*np.savez"):
        open_streamed(tmp_path / "small.npz")


def test_store_dense_and_csr(data, tmp_path):
    sparse = sp.csr_matrix(np.where(data.views[1] > 0.5, data.views[1], 0.0))
    ds = MultiViewDataset([data.views[0], sparse], labels=data.labels)
    write_store(ds, tmp_path / "store")
    streamed = open_streamed(tmp_path / "store")
    _same_views(streamed, ds)
    np.testing.assert_array_equal(streamed.labels, data.labels)
    assert streamed.summary()["views"][1]["storage"] == "sparse"


def test_formats_read_whole_say_what_to_convert_to(data, tmp_path):
    from scipy.io import savemat

    savemat(tmp_path / "v5.mat", {"X0": data.views[0], "y": data.labels})
    with pytest.raises(DataError, match=r"v5\.mat: .*save with -v7\.3"):
        open_streamed(tmp_path / "v5.mat")


def test_summary_in_one_pass_equals_the_in_memory_summary(tmp_path):
    g = np.random.default_rng(0)
    counts = g.poisson(0.3, size=(150, 12)).astype(np.float64)
    counts[7] = 0
    ds = MultiViewDataset([counts, g.normal(size=(150, 5))])
    np.savez(tmp_path / "c.npz", X0=counts, X1=ds.views[1])
    got = open_streamed(tmp_path / "c.npz").summary()["views"]
    for s, w in zip(got, ds.summary()["views"], strict=True):
        for key in ("shape", "storage", "zero_rows", "integer_valued"):
            assert s[key] == w[key]
        for key in ("density", "min", "max"):
            assert s[key] == pytest.approx(w[key])


@pytest.mark.parametrize(
    "rule",
    [
        "general",
        "zscore",
        "raw_counts",
        "raw_text",
        "tfidf_text",
        "text_tfidf_zscore",
        "tfidf_text_real_minmax",
        "tfidf_text_binary_l2",
        "text_tfidf_zscore_binary_l2",
    ],
)
def test_streamed_preprocessing_equals_in_memory(rule, tmp_path):
    g = np.random.default_rng(1)
    counts = g.poisson(0.4, size=(300, 20)).astype(np.float64)
    mixed = np.abs(g.normal(size=(300, 6))) * np.array([1, 1e3, 1e-2, 5, 1e4, 1])
    signed = g.normal(size=(300, 8))
    sparse = sp.csr_matrix(counts)
    histogram = g.dirichlet(np.ones(7), size=300)
    histogram[[4, 90]] = 0  # absent samples: the rule still reads a histogram
    weights = g.uniform(0.1, 1.0, size=(300, 9)) * (g.random((300, 9)) < 0.2)  # mostly zeros
    presence = (g.random((300, 40)) < 0.05).astype(np.float64)  # words present or not
    ds = MultiViewDataset([counts, mixed, signed, sparse, histogram, weights, presence])
    write_store(ds, tmp_path / "s")
    sources = open_streamed(tmp_path / "s").views
    for src in sources:
        src._rows = 41  # the statistics pass merges several blocks
    for method in [m for m in PREPROCESSORS if m != "auto"] + ["auto"]:
        if method == "tfidf":
            views, srcs = ds.views[::3], sources[::3]  # tf-idf needs non-negative counts
        else:
            views, srcs = ds.views, sources
        mem, names = preprocess(views, method, rule)
        out, fitted = preprocess_streamed(srcs, method, rule)
        got = [t.label for t in fitted]
        assert got == names, (method, rule)
        for s, w in zip(out, mem, strict=True):
            np.testing.assert_allclose(_whole(s), _dense(w), rtol=1e-9, atol=1e-12)


def test_stream_reason_compares_the_estimate_with_the_threshold(data, tmp_path):
    np.savez(tmp_path / "a.npz", X0=data.views[0], X1=data.views[1])
    need = estimate_bytes(open_streamed(tmp_path / "a.npz"))
    assert need == 8 * data.n_samples * (4 + 7)
    assert stream_reason(tmp_path / "a.npz", threshold=need) is None
    assert "row blocks" in stream_reason(tmp_path / "a.npz", threshold=need - 1)
    assert stream_reason(tmp_path / "a.npz") is None  # a few kB: read whole


def test_tfidf_refuses_a_dense_view_on_both_paths(tmp_path):
    """Every feature of a dense view occurs in every sample: idf 0 would make the view all
    zeros, which a method met as "a constant view". Both paths refuse and name the view."""
    g = np.random.default_rng(2)
    counts = g.poisson(0.3, size=(120, 30)).astype(np.float64)
    dense = g.uniform(0.5, 2.0, size=(120, 5))
    ds = MultiViewDataset([counts, dense])
    write_store(ds, tmp_path / "s")
    sources = open_streamed(tmp_path / "s").views
    with pytest.raises(DataError, match=r"view 2: tf-idf would turn this view into zeros"):
        preprocess(ds.views, "tfidf")
    with pytest.raises(DataError, match=r"tf-idf would turn this view into zeros"):
        preprocess_streamed(sources, "tfidf")
    views, names = preprocess(ds.views, ["tfidf", "l2"])  # words only: fine
    assert names[0].endswith("tfidf") and np.abs(_dense(views[0])).sum() > 0
