from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from core.data.dataset import DataError, MultiViewDataset, check_views


def test_labels_are_encoded_unless_already_0_to_c_minus_1():
    x = np.zeros((4, 2))
    x[:, 0] = [1, 2, 3, 4]
    ds = MultiViewDataset([x], labels=np.array([1, 1, 3, 3], dtype=np.uint8))
    assert ds.labels.tolist() == [0, 0, 1, 1] and ds.class_names == ["1", "3"]
    ds = MultiViewDataset([x], labels=["b", "a", "b", "a"])
    assert ds.labels.tolist() == [1, 0, 1, 0] and ds.class_names == ["a", "b"]


@pytest.mark.parametrize(
    ("views", "message"),
    [
        ([], "no views"),
        ([np.zeros((3, 2)), np.zeros((4, 2))], r"view 1: 3, view 2: 4"),
        ([np.zeros((3, 0))], "view 1 is empty"),
        ([np.zeros((1, 2))], "only 1 sample"),
        ([np.array([[0.0, np.inf], [1, 1]])], r"Inf.*row 0, column 1"),
        ([np.zeros((5, 3)), sp.csr_matrix((5, 4))], "every view holds the same values"),
        ([np.tile([1.0, 2.0, 0.0], (3000, 1))], "its only view holds the same values"),
        ([sp.csr_matrix(np.tile([0.0, 3.0], (2500, 1)))], "the same values for every sample"),
    ],
)
def test_specific_errors(views, message):
    with pytest.raises(DataError, match=message):
        check_views(views, informative=True)


def test_a_constant_view_next_to_an_informative_one_is_accepted():
    """Only data where no view tells the samples apart is refused (a fit on it returned an
    arbitrary partition, or ALPC a division by zero); a constant view beside others is data
    the methods weigh down themselves. A difference in the last row is found."""
    informative = np.zeros((3000, 2))
    informative[-1, 1] = 1.0
    out = check_views([np.zeros((3000, 4)), informative], informative=True)
    assert len(out) == 2
    last = sp.csr_matrix(informative)
    assert check_views([last], informative=True)[0].shape == (3000, 2)
    assert len(check_views([np.zeros((5, 3))])) == 1  # loading alone does not ask


def test_fewer_samples_than_clusters():
    with pytest.raises(DataError, match="3 samples are fewer than the 5 clusters"):
        check_views([np.eye(3)], n_clusters=5)


def test_caller_matrices_are_not_touched():
    m = sp.csr_matrix((np.array([1.0, 2.0]), np.array([1, 0]), np.array([0, 2, 2])), (2, 2))
    assert not m.has_sorted_indices
    check_views([m])
    assert m.indices.tolist() == [1, 0]
    dense = np.arange(6, dtype=np.int32).reshape(3, 2)
    out = check_views([dense])[0]
    assert out.dtype == np.float64 and dense.dtype == np.int32


def test_select_views_and_summary():
    ds = MultiViewDataset(
        [np.eye(4), sp.csr_matrix(np.eye(4))], labels=[0, 1, 0, 1], view_names=["a", "b"]
    )
    assert ds.select_views([1]).view_names == ["b"]
    s = ds.summary()
    assert s["views"][1]["storage"] == "sparse" and s["class_counts"] == [2, 2]
    with pytest.raises(DataError, match="at least one view"):
        ds.select_views([])


def test_ids_metadata_and_observed_views_are_checked():
    views = [np.ones((4, 2)), np.ones((4, 3))]
    ds = MultiViewDataset(views=views)
    assert ds.ids.tolist() == ["1", "2", "3", "4"] and ds.complete
    with pytest.raises(DataError, match="not unique"):
        MultiViewDataset(views=views, sample_ids=["a", "b", "a", "c"])
    with pytest.raises(DataError, match="3 values for 4 samples"):
        MultiViewDataset(views=views, metadata={"age": np.arange(3)})
    with pytest.raises(DataError, match="no view at all"):
        MultiViewDataset(views=views, observed=[[1, 1], [0, 0], [1, 0], [0, 1]])
    mask = np.array([[1, 1], [1, 0], [1, 0], [0, 1]], bool)
    ds = MultiViewDataset(views=views, sample_ids=["a", "b", "c", "d"], observed=mask)
    assert not ds.complete and ds.ids.tolist() == ["a", "b", "c", "d"]
    with pytest.raises(DataError, match="1 sample"):
        ds.select_views([0])
    assert ds.select_views([1, 0]).observed.tolist() == mask[:, [1, 0]].tolist()


def test_large_data_is_held_as_float32_without_copying_float32_input(monkeypatch, tmp_path):
    """Above FLOAT32_ABOVE values a dataset holds float32 (half the memory in every process
    mapping it) and says so; a float32 memory map (e.g. a loader's store) is not copied."""
    from core.data import dataset as dataset_module
    from core.data.store import open_store, write_store

    monkeypatch.setattr(dataset_module, "FLOAT32_ABOVE", 1000)
    rng = np.random.default_rng(0)
    small = MultiViewDataset([rng.random((20, 5)).astype(np.float32)])
    assert small.views[0].dtype == np.float64 and not small.warnings
    x64 = rng.random((200, 8))
    large = MultiViewDataset([x64, sp.random(200, 30, density=0.2, random_state=0, format="csr")])
    assert [v.dtype for v in large.views] == [np.float32, np.float32]
    assert x64.dtype == np.float64  # the caller's array is untouched
    np.testing.assert_allclose(large.views[0], x64, rtol=1e-6)
    assert any("held as float32" in w for w in large.warnings)
    reopened = open_store(write_store(large, tmp_path / "store"))
    view = reopened.views[0]
    assert view.dtype == np.float32
    assert not view.flags.owndata and isinstance(view.base, np.memmap)  # mapped, not copied


def test_default_ids_are_made_in_chunks_equal_to_one_cast(monkeypatch):
    import core.data.dataset as dataset

    monkeypatch.setattr(dataset, "IDS_CHUNK", 7)  # chunks that do not divide n
    ds = MultiViewDataset(views=[np.zeros((50, 2))])
    np.testing.assert_array_equal(ds.ids, np.arange(1, 51).astype("U2"))
    assert ds.ids.dtype == np.dtype("U2")
