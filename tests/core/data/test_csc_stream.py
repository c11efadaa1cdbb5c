"""Column-major sparse views (MATLAB v7.3 sparse, AnnData CSC) read in row blocks through a
one-time row-major copy: the same matrices as the loaders that read them whole."""

from __future__ import annotations

import h5py
import numpy as np
import pytest
import scipy.sparse as sp
from table_fixtures import _anndata
from test_io import _cell, _write_mat73

import core.data.csc as csc
from core.data.csc import CscSource
from core.data.dataset import DataError
from core.data.io import load_dataset
from core.data.preprocessing import preprocess
from core.data.sources import CsrSource
from core.data.stream_stats import preprocess_streamed
from core.data.streamed import estimate_bytes, open_streamed


@pytest.fixture(autouse=True)
def _small_chunks(tmp_path, monkeypatch):
    monkeypatch.setenv("MVC_CSR_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(csc, "CHUNK", 13)  # many conversion chunks


def _counts(n: int, d: int, seed: int) -> sp.csr_matrix:
    g = np.random.default_rng(seed)
    x = g.poisson(0.4, size=(n, d)).astype(np.float64)
    x[5] = 0  # an all-zero row
    x[:, 2] = 0  # an empty column
    return sp.csr_matrix(x)


def _rows(src, rows: int = 17) -> np.ndarray:
    return np.vstack([b for _, _, b in src.blocks(rows)])


def test_sparse_v73_views_in_both_orientations_stream_like_the_loader(tmp_path):
    n = 120
    a, b = _counts(n, 9, 1), _counts(n, 14, 2)
    dense = np.random.default_rng(3).standard_normal((n, 4))
    labels = np.arange(n) % 3 + 1.0
    path = _write_mat73(tmp_path / "s.mat", {"X": _cell([a, b.T.tocsc(), dense]), "Y": labels})
    streamed = open_streamed(path)
    whole = load_dataset(path)
    assert isinstance(streamed.views[0], CscSource)  # n x d: converted once
    assert isinstance(streamed.views[1], CsrSource)  # d x n: each sample a stored column
    assert streamed.dims == whole.dims == [9, 14, 4]
    for s, w in zip(streamed.views, whole.views, strict=True):
        w = w.toarray() if sp.issparse(w) else w
        np.testing.assert_array_equal(_rows(s), w)
    assert estimate_bytes(streamed) < 8 * n * 27  # sparse views counted by their non-zeros
    block = streamed.views[0].read_sparse(30, 41)
    np.testing.assert_array_equal(block.toarray(), a[30:41].toarray())
    # the copy is made once and reused: a second source reads the same folder
    again = open_streamed(path).views[0]
    assert again.row_major().path == streamed.views[0].row_major().path
    # statistics and preprocessing from the blocks equal the in-memory ones
    for method in ("tfidf", "l2", "zscore"):
        (src,), (fitted,) = preprocess_streamed([streamed.views[0]], method)
        names = [fitted.label]
        (mem,), mem_names = preprocess([whole.views[0]], method)
        assert names == mem_names
        np.testing.assert_allclose(_rows(src), mem.toarray(), atol=1e-12)
    assert streamed.summary()["views"][0]["density"] == pytest.approx(a.nnz / (n * 9))


def test_matrices_x1_x2_sparse_and_an_h5ad_csc(tmp_path):
    n = 60
    a, b = _counts(n, 7, 4), _counts(n, 5, 5)
    path = _write_mat73(tmp_path / "x.mat", {"x1": a, "x2": b.toarray(), "gt": np.arange(n) % 2})
    streamed = open_streamed(path)
    np.testing.assert_array_equal(_rows(streamed.views[0]), a.toarray())
    h5ad = tmp_path / "c.h5ad"
    with h5py.File(h5ad, "w") as f:
        _anndata(f, sp.csc_matrix(a), np.array([f"c{i}" for i in range(n)]), {"k": np.arange(n)})
    view = open_streamed(h5ad).views[0]
    assert isinstance(view, CscSource)
    np.testing.assert_array_equal(_rows(view, 7), load_dataset(h5ad).views[0].toarray())


def test_damaged_sparse_matrices_are_named(tmp_path):
    n = 40
    a = _counts(n, 6, 6)
    path = _write_mat73(tmp_path / "bad.mat", {"x1": a, "x2": a, "gt": np.arange(n) % 2})
    with h5py.File(path, "r+") as f:
        ir = f["x1/ir"][()]
        del f["x1/ir"]
        f["x1/ir"] = ir[:-3]  # truncated row indices
        jr = f["x2/ir"][()]
        jr[4] = n + 7  # a row index past the last sample
        f["x2/ir"][...] = jr
    ds = open_streamed(path)
    with pytest.raises(DataError, match=r"bad\.mat:x1: damaged sparse matrix"):
        _rows(ds.views[0])
    with pytest.raises(DataError, match=r"bad\.mat:x2: a row index outside 0\.\.39"):
        _rows(ds.views[1])
    assert not any(p.name.startswith(".") for p in (tmp_path / "cache").iterdir())
