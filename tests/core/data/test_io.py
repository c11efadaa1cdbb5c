"""Tests for core.data.io: every benchmark file, and tiny files written here in every format."""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path

import h5py
import numpy as np
import pytest
import scipy.io as sio
import scipy.sparse as sp

from core.data.dataset import DataError, MultiViewDataset
from core.data.io import detect_format, load_dataset, save_npz

# ----------------------------------------------------------------------------- benchmark files

# file: (n, view dims in README order, classes, views stored sparse)
BENCHMARKS = {
    "Handwritten.mat": (2000, [240, 76, 216, 47, 64, 6], 10, False),
    "UCI-Digits_3view.mat": (2000, [240, 76, 6], 10, False),
    "HW2sources.mat": (2000, [784, 256], 10, False),
    "Hdigit.mat": (10000, [784, 256], 10, False),
    "MNIST-4.mat": (4000, [30, 9, 30], 4, False),
    "MSRC-v1_5view.mat": (210, [24, 576, 512, 256, 254], 7, False),
    "MSRC-v1_6view.mat": (210, [1302, 48, 512, 100, 256, 210], 7, False),
    "BBCSport.mat": (544, [3183, 3203], 5, True),
    "BBCSport__tfidf_fea_gt.mat": (544, [3183, 3203], 5, True),
    "BBC4view.mat": (685, [4659, 4633, 4665, 4684], 5, True),
    "BBC4view__corrupt_tail.mat": (685, [4659, 4633, 4665, 4684], 5, False),
    "3Sources.mat": (169, [3560, 3631, 3068], 6, True),
    "NGs.mat": (500, [2000, 2000, 2000], 5, False),
    "Reuters-1200.mat": (1200, [2000] * 5, 6, True),
    "Reuters-600__triplets.mat": (600, [21526, 24892, 34121, 15487, 11539], 6, True),
    "WebKB.mat": (1051, [1840, 3000], 2, False),
    "WebKB-203_3view.mat": (203, [1703, 230, 230], 4, False),
    "Wiki_fea.mat": (2866, [128, 10], 10, False),
    "BDGP_fea.mat": (2500, [1000, 500, 250], 5, False),
    "CiteSeer.mat": (3312, [3312, 3703], 6, False),
    "Cora.mat": (2708, [2708, 1433, 2706, 2706], 7, False),
    "ACM.mat": (3025, [1870, 3025, 3025, 3025, 3025], 3, False),
    "Dermatology.mat": (358, [12, 22], 6, False),
    "Synthetic3d.mat": (600, [3, 3, 3], 3, False),
    "TwoMoon.mat": (200, [2, 2], 2, False),
    "ThreeRing.mat": (300, [2, 2], 3, False),
}


def _check_dataset(ds: MultiViewDataset, n: int, dims: list[int], c: int) -> None:
    assert ds.n_samples == n
    assert ds.dims == dims
    assert ds.n_classes == c
    assert ds.labels.dtype == np.int64
    assert ds.labels.min() == 0 and ds.labels.max() == c - 1
    assert len(ds.class_names) == c
    for v in ds.views:
        assert v.dtype == np.float64
        if sp.issparse(v):
            assert v.format == "csr"
        else:
            assert v.flags.c_contiguous


def test_benchmark_table_is_complete():
    assert len(BENCHMARKS) == 26


@pytest.mark.datasets
@pytest.mark.parametrize("filename", sorted(BENCHMARKS))
def test_benchmark_file(benchmark_file, filename):
    n, dims, c, sparse = BENCHMARKS[filename]
    ds = load_dataset(benchmark_file(filename))
    _check_dataset(ds, n, dims, c)
    assert ds.name == Path(filename).stem
    assert [sp.issparse(v) for v in ds.views] == [sparse] * len(dims)


@pytest.mark.datasets
@pytest.mark.parametrize(
    ("filename", "fragments"),
    [
        ("BBC4view.mat", ["'miss10'", "'miss50'", "'per'", "transposed"]),
        ("BDGP_fea.mat", ["'MissingStatus'", "'index'", "truelabel"]),
        ("TwoMoon.mat", ["y0", "identical columns"]),
        ("Synthetic3d.mat", ["'rand_num_test'", "'seedCV'"]),
        ("Reuters-600__triplets.mat", ["triplet", "'EN_EN_sample' (600 x 21526)"]),
        ("MSRC-v1_6view.mat", ["X{6}", "both dimensions"]),
        ("BBC4view__corrupt_tail.mat", ["damaged", "983", "'X'", "'y'"]),
    ],
)
def test_benchmark_warnings(benchmark_file, filename, fragments):
    text = " | ".join(load_dataset(benchmark_file(filename)).warnings)
    for fragment in fragments:
        assert fragment in text


@pytest.mark.datasets
def test_benchmark_details(benchmark_file):
    # Wiki: names stored in the file; Dermatology (v7.3): names in cells of char
    wiki = load_dataset(benchmark_file("Wiki_fea.mat"))
    assert wiki.view_names == ["word", "SIFT"]
    assert wiki.class_names[0] == "art" and len(wiki.class_names) == 10
    derm = load_dataset(benchmark_file("Dermatology.mat"))
    assert derm.view_names == ["Clinical", "Histopathological"]
    assert derm.class_names[0] == "psoriasis"
    assert np.bincount(derm.labels).tolist() == [111, 60, 71, 48, 48, 20]
    # BBCSport: d x n sparse transposed, same values as the tf-idf file's nonzero pattern
    raw = sio.loadmat(benchmark_file("BBCSport.mat"))["X"]
    bbc = load_dataset(benchmark_file("BBCSport.mat"))
    assert abs(bbc.views[0] - raw[0, 0].T).max() == 0
    # Handwritten: uint8/uint16 views cast without change; labels 1..10 -> 0..9
    hw = load_dataset(benchmark_file("Handwritten.mat"))
    assert hw.views[2].max() == 1353.0 and np.bincount(hw.labels).tolist() == [200] * 10
    # WebKB-203: labels stored as a 1 x n row
    assert np.bincount(load_dataset(benchmark_file("WebKB-203_3view.mat")).labels).sum() == 203


@pytest.mark.datasets
def test_corrupt_file_recovers_same_data(benchmark_file):
    good = load_dataset(benchmark_file("BBC4view.mat"))
    bad = load_dataset(benchmark_file("BBC4view__corrupt_tail.mat"))
    assert np.array_equal(good.labels, bad.labels)
    for a, b in zip(good.views, bad.views, strict=True):
        assert abs(a - sp.csr_matrix(b)).max() == 0


@pytest.mark.datasets
def test_benchmark_files_are_not_modified(benchmark_file):
    path = benchmark_file("BBC4view__corrupt_tail.mat")
    before = (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns)
    load_dataset(path)
    assert (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns) == before


# ----------------------------------------------------------------------------- helpers


def _blobs(n: int = 12, dims: tuple[int, ...] = (3, 5), seed: int = 0):
    g = np.random.default_rng(seed)
    labels = np.arange(n) % 3
    return [g.normal(size=(n, d)) + labels[:, None] for d in dims], labels


def _cell(items) -> np.ndarray:
    cell = np.empty((1, len(items)), dtype=object)
    for i, item in enumerate(items):
        cell[0, i] = item
    return cell


def _savemat(path: Path, variables: dict) -> Path:
    sio.savemat(path, variables)
    return path


# ----------------------------------------------------------------------------- MATLAB v5


def test_v5_cell_dxn_integer_views_and_one_based_row_labels(tmp_path):
    views, labels = _blobs(n=12)
    counts = (np.arange(12 * 7).reshape(12, 7) % 250).astype(np.uint8)
    cell = _cell([views[0].T, counts.T, sp.csc_matrix(views[1] > 0.5, dtype=np.float64).T])
    path = _savemat(tmp_path / "d.mat", {"X": cell, "Y": (labels + 1)[None, :].astype(np.uint8)})
    ds = load_dataset(path)
    assert ds.dims == [3, 7, 5] and ds.n_samples == 12
    assert np.array_equal(ds.views[1], counts.astype(np.float64))  # no uint8 wrap-around
    assert sp.issparse(ds.views[2]) and ds.views[2].format == "csr"
    assert np.array_equal(ds.labels, labels)
    assert ds.class_names == ["1", "2", "3"]
    assert any("transposed" in w for w in ds.warnings)


def test_v5_separate_variables_in_numeric_order(tmp_path):
    g = np.random.default_rng(1)
    variables = {f"x{i}": g.normal(size=(10, i + 1)) for i in (1, 10, 2)}
    variables["gnd"] = np.arange(10)[:, None] % 2
    ds = load_dataset(_savemat(tmp_path / "sep.mat", variables))
    assert ds.view_names == ["x1", "x2", "x10"]
    assert ds.dims == [2, 3, 11]


def test_v5_triplets_and_aux_variables(tmp_path):
    n = 6
    trip = np.array([[1, 1, 0.5], [1, 4, -2.0], [3, 2, 1.0], [5, 7, 3.0]])
    variables = {
        "A_sample": trip,
        "B_sample": np.array([[2, 3, 1.0], [6, 1, 2.0], [4, 2, 1.5]]),
        "truth": np.array([[1], [1], [2], [2], [3], [3]], dtype=np.uint8),
        "miss10": np.ones((n, 2)),
        "fold_index": np.arange(n)[:, None] + 1,
    }
    ds = load_dataset(_savemat(tmp_path / "trip.mat", variables))
    assert ds.dims == [7, 3] and ds.n_samples == n  # rows 2, 4, 6 of view 1 are empty
    assert sp.issparse(ds.views[0])
    assert ds.views[0][0, 3] == -2.0 and ds.views[0][4, 6] == 3.0
    assert ds.views[0][1].nnz == 0
    text = " ".join(ds.warnings)
    assert "'miss10'" in text and "'fold_index'" in text


def test_v5_label_variants_and_names(tmp_path):
    views, labels = _blobs(n=9)
    variables = {
        "data": _cell(views),
        "truelabel": _cell([labels[:, None] + 1] * 3),
        "MissingStatus": np.ones((9, 2), dtype=np.uint8),
        "view_names": _cell(["left", "right"]),
        "class_names": _cell(["a", "b", "c"]),
    }
    ds = load_dataset(_savemat(tmp_path / "cells.mat", variables))
    assert np.array_equal(ds.labels, labels)
    assert ds.view_names == ["left", "right"]
    assert ds.class_names == ["a", "b", "c"]
    assert any("MissingStatus" in w for w in ds.warnings)
    two_cols = _savemat(tmp_path / "y0.mat", {"X": _cell(views), "y0": np.c_[labels, labels]})
    assert np.array_equal(load_dataset(two_cols).labels, labels)
    one_hot = _savemat(tmp_path / "oh.mat", {"X": _cell(views), "Y": np.eye(3)[labels]})
    assert np.array_equal(load_dataset(one_hot).labels, labels)


def test_v5_square_view_kept(tmp_path):
    views, labels = _blobs(n=8)
    graph = np.arange(64, dtype=np.float64).reshape(8, 8)
    path = _savemat(tmp_path / "g.mat", {"X": _cell([views[0].T, graph]), "y": labels})
    ds = load_dataset(path)
    assert np.array_equal(ds.views[1], graph)
    assert ds.views[0].shape == (8, 3)


def test_v5_unlabelled_infers_samples(tmp_path):
    views, _ = _blobs(n=10)
    ds = load_dataset(_savemat(tmp_path / "u.mat", {"X": _cell([views[0], views[1].T])}))
    assert ds.labels is None and ds.dims == [3, 5]
    assert any("unlabelled" in w for w in ds.warnings)


def test_detects_format_by_content_not_extension(tmp_path):
    views, labels = _blobs()
    mat = _savemat(tmp_path / "a.mat", {"X": _cell(views), "Y": labels})
    renamed = tmp_path / "data.bin"
    renamed.write_bytes(mat.read_bytes())
    assert detect_format(renamed) == "mat5"
    assert load_dataset(renamed).dims == [3, 5]
    npz = tmp_path / "b.mat"
    np.savez(npz.with_suffix(".npz"), X0=views[0], y=labels)
    npz.write_bytes(npz.with_suffix(".npz").read_bytes())
    assert detect_format(npz) == "npz"
    assert load_dataset(npz).dims == [3]


# ----------------------------------------------------------------------------- MATLAB v7.3


def _h5_put(h5: h5py.File, group: h5py.Group, name: str, value) -> h5py.Dataset | h5py.Group:
    """Store a MATLAB-shaped value the way MATLAB v7.3 does (dimensions reversed)."""
    if isinstance(value, str):
        ds = group.create_dataset(name, data=np.array([[ord(c)] for c in value], np.uint16))
        ds.attrs["MATLAB_class"] = np.bytes_("char")
        ds.attrs["MATLAB_int_decode"] = np.int32(2)
        return ds
    if sp.issparse(value):
        csc = sp.csc_matrix(value)
        grp = group.create_group(name)
        grp.create_dataset("data", data=csc.data)
        grp.create_dataset("ir", data=csc.indices.astype(np.uint64))
        grp.create_dataset("jc", data=csc.indptr.astype(np.uint64))
        grp.attrs["MATLAB_class"] = np.bytes_("double")
        grp.attrs["MATLAB_sparse"] = np.uint64(csc.shape[0])
        return grp
    if isinstance(value, np.ndarray) and value.dtype == object:
        refs = np.empty(value.T.shape, dtype=h5py.ref_dtype)
        store = h5.require_group("#refs#")
        for idx, item in np.ndenumerate(value.T):
            key = f"r{len(store)}"
            refs[idx] = _h5_put(h5, store, key, item).ref
        ds = group.create_dataset(name, data=refs, dtype=h5py.ref_dtype)
        ds.attrs["MATLAB_class"] = np.bytes_("cell")
        return ds
    arr = np.asarray(value)
    ds = group.create_dataset(name, data=arr.T)
    cls = {"f": "double", "u": f"uint{arr.dtype.itemsize * 8}", "i": f"int{arr.dtype.itemsize * 8}"}
    ds.attrs["MATLAB_class"] = np.bytes_(cls[arr.dtype.kind])
    return ds


def _write_mat73(path: Path, variables: dict) -> Path:
    with h5py.File(path, "w", userblock_size=512) as h5:
        for key, value in variables.items():
            _h5_put(h5, h5, key, value)
    header = b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: test HDF5 schema 1.00 ."
    with open(path, "r+b") as fh:
        fh.write(header.ljust(116) + b"\x00" * 8 + b"\x00\x02IM")
    return path


def test_v73_written_with_h5py(tmp_path):
    views, labels = _blobs(n=11, dims=(4, 6))
    cell = _cell([views[0], sp.csr_matrix(np.where(views[1] > 1, views[1], 0.0))])
    path = _write_mat73(
        tmp_path / "v73.mat",
        {
            "X": cell,
            "Y": (labels + 1.0)[None, :],
            "view_meaning": _cell(["first", "second"]),
            "data_name": "toy",
            "rand_num_test": np.ones((3, 5)),
        },
    )
    assert detect_format(path) == "mat73"
    ds = load_dataset(path)
    assert ds.dims == [4, 6] and ds.view_names == ["first", "second"]
    assert np.allclose(ds.views[0], views[0])
    assert sp.issparse(ds.views[1]) and np.allclose(ds.views[1].toarray(), cell[0, 1].toarray())
    assert np.array_equal(ds.labels, labels)
    assert any("rand_num_test" in w for w in ds.warnings)


def test_v73_dxn_integer_views(tmp_path):
    views, labels = _blobs(n=10, dims=(3, 4))
    ints = (np.abs(views[1]) * 100).astype(np.uint16)
    path = _write_mat73(tmp_path / "b.mat", {"data": _cell([views[0].T, ints.T]), "gt": labels})
    ds = load_dataset(path)
    assert ds.dims == [3, 4] and np.array_equal(ds.views[1], ints.astype(np.float64))


# ----------------------------------------------------------------------------- NPZ


def test_npz_round_trip_dense_and_sparse(tmp_path):
    views, labels = _blobs(n=10)
    sparse_view = sp.random(10, 30, density=0.2, random_state=0, format="csr")
    ds = MultiViewDataset(
        views=[*views, sparse_view],
        labels=labels,
        view_names=["a", "b", "words"],
        class_names=["x", "y", "z"],
        name="toy",
    )
    path = save_npz(ds, tmp_path / "toy.npz")
    assert sorted(os.listdir(tmp_path)) == ["toy.npz"]  # no temporary file left
    back = load_dataset(path)
    assert back.name == "toy" and back.view_names == ["a", "b", "words"]
    assert back.class_names == ["x", "y", "z"]
    assert np.array_equal(back.labels, labels)
    assert np.array_equal(back.views[0], views[0])
    assert sp.issparse(back.views[2]) and abs(back.views[2] - sparse_view).max() == 0
    save_npz(back, path)  # overwrite in place
    assert load_dataset(path).dims == [3, 5, 30]


def test_npz_key_variants(tmp_path):
    views, labels = _blobs(n=9)
    path = tmp_path / "named.npz"
    np.savez(path, view_left=views[0].T, view_right=views[1], labels=labels + 1)
    ds = load_dataset(path)
    assert ds.view_names == ["left", "right"] and ds.dims == [3, 5]
    assert np.array_equal(ds.labels, labels)
    generic = tmp_path / "generic.npz"
    np.savez(generic, data=views[0], feats=views[1], gnd=labels, unused=np.arange(3))
    assert load_dataset(generic).dims == [3, 5]


def test_npz_refuses_pickled_objects(tmp_path):
    path = tmp_path / "obj.npz"
    np.savez(path, X0=np.array([np.ones(3), np.ones(2)], dtype=object), y=np.arange(2))
    with pytest.raises(DataError, match=r"obj\.npz: .*Python objects"):
        load_dataset(path)


# ----------------------------------------------------------------------------- CSV


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_csv_folder_round_trip(tmp_path):
    views, labels = _blobs(n=6)
    folder = tmp_path / "toy"
    folder.mkdir()
    names = np.array(["cat", "dog", "bird"])[labels]
    header = ",".join(f"f{j}" for j in range(3))
    np.savetxt(folder / "view_2_colour.csv", views[0], delimiter=",", header=header, comments="")
    ids = "\n".join(f"s{i}," + ",".join(str(v) for v in row) for i, row in enumerate(views[1]))
    _write(folder / "view_10_shape.csv", "id," + ",".join("abcde") + "\n" + ids + "\n")
    _write(folder / "labels.csv", "label\n" + "\n".join(names) + "\n")
    _write(folder / "notes.csv", "x\n1\n")
    ds = load_dataset(folder)
    assert ds.view_names == ["2_colour", "10_shape"]
    assert np.allclose(ds.views[0], views[0]) and np.allclose(ds.views[1], views[1])
    assert [ds.class_names[k] for k in ds.labels] == names.tolist()
    assert any("notes.csv" in w for w in ds.warnings)
    assert detect_format(folder) == "csv-folder"


def test_csv_folder_without_header_and_numeric_labels(tmp_path):
    views, labels = _blobs(n=6)
    np.savetxt(tmp_path / "view_a.csv", views[0], delimiter=";")
    np.savetxt(tmp_path / "view_b.csv", views[1], delimiter="\t")
    _write(tmp_path / "labels.csv", "\n".join(str(v + 1) for v in labels) + "\n")
    ds = load_dataset(tmp_path)
    assert ds.dims == [3, 5] and np.array_equal(ds.labels, labels)


def test_csv_single_file_prefixed_columns(tmp_path):
    views, labels = _blobs(n=5, dims=(2, 3))
    header = ["a:f1", "a:f2", "label", "b:g1", "b:g2", "b:g3"]
    rows = [[*map(str, views[0][i]), str(labels[i]), *map(str, views[1][i])] for i in range(5)]
    path = _write(tmp_path / "mv.csv", "\n".join(",".join(r) for r in [header, *rows]) + "\n")
    ds = load_dataset(path)
    assert ds.view_names == ["a", "b"] and ds.dims == [2, 3]
    assert np.allclose(ds.views[1], views[1]) and np.array_equal(ds.labels, labels)


def test_csv_missing_value_names_line_and_column(tmp_path):
    path = _write(tmp_path / "bad.csv", "a:x,a:y,label\n1,2,0\n3,,1\n")
    with pytest.raises(DataError, match=r"bad\.csv: line 3, column 2 is empty"):
        load_dataset(path)
    path = _write(tmp_path / "nan.csv", "a:x,a:y,label\n1,2,0\n3,nan,1\n")
    with pytest.raises(DataError, match=r"nan\.csv: data row 2, column 2"):
        load_dataset(path)


def test_csv_folder_errors(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    _write(empty / "readme.csv", "x\n1\n")
    with pytest.raises(DataError, match=r"no view files.*view_<name>\.csv.*readme\.csv"):
        load_dataset(empty)
    mism = tmp_path / "mism"
    mism.mkdir()
    _write(mism / "view_a.csv", "1,2\n3,4\n5,6\n")
    _write(mism / "view_b.csv", "1\n2\n")
    with pytest.raises(DataError, match=r"view_b\.csv has 2 rows but there are 3 samples"):
        load_dataset(mism)


# ----------------------------------------------------------------------------- errors


def test_mismatched_sample_counts(tmp_path):
    g = np.random.default_rng(0)
    path = _savemat(
        tmp_path / "mm.mat",
        {"X": _cell([g.normal(size=(10, 3)), g.normal(size=(12, 4))]), "Y": np.arange(10) % 2},
    )
    with pytest.raises(DataError, match=r"mm\.mat: X\{2\} is 12 x 4 but there are 10 samples"):
        load_dataset(path)
    views, labels = _blobs(n=10)
    np.savez(tmp_path / "mm.npz", X0=views[0], X1=views[1][:7], y=labels)
    with pytest.raises(DataError, match=r"X1 is 7 x 5"):
        load_dataset(tmp_path / "mm.npz")


def test_nan_message_says_where(tmp_path):
    views, labels = _blobs(n=10)
    views[1][3, 2] = np.nan
    path = _savemat(tmp_path / "nan.mat", {"X": _cell([views[0], views[1].T]), "y": labels})
    with pytest.raises(DataError, match=r"view 2 \(X\{2\}\) has 1 NaN .* sample 4, feature 3"):
        load_dataset(path)


def test_nan_in_labels(tmp_path):
    views, _ = _blobs(n=4)
    path = _savemat(tmp_path / "ynan.mat", {"X": _cell(views), "y": np.array([1.0, np.nan, 2, 1])})
    with pytest.raises(DataError, match=r"labels 'y' contain NaN \(first at position 2"):
        load_dataset(path)


def test_empty_view(tmp_path):
    views, labels = _blobs(n=6)
    np.savez(tmp_path / "e.npz", X0=views[0], X1=np.zeros((6, 0)), y=labels)
    with pytest.raises(DataError, match=r"e\.npz: view 2 \(X1\) is empty"):
        load_dataset(tmp_path / "e.npz")
    path = _savemat(tmp_path / "e.mat", {"X": _cell([views[0], np.zeros((6, 0))]), "y": labels})
    with pytest.raises(DataError, match=r"view 2 \(X\{2\}\) is empty"):
        load_dataset(path)


def test_no_views_in_mat(tmp_path):
    path = _savemat(tmp_path / "nov.mat", {"Y": np.arange(5), "k": 3})
    with pytest.raises(DataError, match=r"nov\.mat: no views found.*'Y'"):
        load_dataset(path)


def test_garbage_and_empty_files(tmp_path):
    junk = tmp_path / "junk.mat"
    junk.write_bytes(bytes(range(256)) * 8)
    with pytest.raises(DataError, match=r"junk\.mat: "):
        load_dataset(junk)
    binary = tmp_path / "junk.bin"
    binary.write_bytes(b"\x00\xff" * 100)
    with pytest.raises(DataError, match=r"junk\.bin: unrecognised file format"):
        load_dataset(binary)
    empty = tmp_path / "empty.mat"
    empty.write_bytes(b"")
    with pytest.raises(DataError, match=r"empty\.mat: the file is empty"):
        load_dataset(empty)
    with pytest.raises(DataError, match="no such file"):
        load_dataset(tmp_path / "absent.mat")
    np.save(tmp_path / "one.npy", np.ones((3, 3)))
    with pytest.raises(DataError, match=r"single \.npy array"):
        load_dataset(tmp_path / "one.npy")


def test_truncated_files(tmp_path):
    views, labels = _blobs(n=50, dims=(20, 30))
    mat = _savemat(tmp_path / "full.mat", {"X": _cell(views), "Y": labels})
    data = mat.read_bytes()
    cut = tmp_path / "cut.mat"
    cut.write_bytes(data[: len(data) - 40])  # the labels (last variable) are cut
    with pytest.raises(DataError, match=r"cut\.mat: damaged MATLAB file.*no labels"):
        load_dataset(cut)
    head = tmp_path / "head.mat"
    head.write_bytes(data[:200])
    with pytest.raises(DataError, match=r"head\.mat: damaged MATLAB file"):
        load_dataset(head)
    npz = tmp_path / "t.npz"
    np.savez_compressed(npz, X0=views[0], y=labels)
    npz.write_bytes(npz.read_bytes()[:300])
    with pytest.raises(DataError, match=r"t\.npz: damaged or truncated"):
        load_dataset(npz)
    h5 = _write_mat73(tmp_path / "h.mat", {"X": _cell(views), "Y": labels})
    h5.write_bytes(h5.read_bytes()[:1500])
    with pytest.raises(DataError, match=r"h\.mat: "):
        load_dataset(h5)


def test_junk_tail_recovered_with_warning(tmp_path):
    views, labels = _blobs(n=20)
    buf = io.BytesIO()
    sio.savemat(buf, {"X": _cell(views), "y": labels[:, None]}, do_compression=True)
    path = tmp_path / "tail.mat"
    path.write_bytes(buf.getvalue() + os.urandom(500))
    ds = load_dataset(path)
    assert ds.dims == [3, 5] and np.array_equal(ds.labels, labels)
    assert any("damaged" in w and "500 unreadable byte(s)" in w for w in ds.warnings)
