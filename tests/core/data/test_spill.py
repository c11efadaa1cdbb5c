"""Preprocessed copies of large mapped views on disk (core/data/spill.py): the in-memory
preprocessing's numbers bit for bit, in a memory map of a file that leaves nothing behind."""

from __future__ import annotations

import os

import numpy as np
import pytest

import core.data.spill as spill
import core.data.stream_stats as stream_stats
from core.data.preprocessing import preprocess
from core.methods import REGISTRY


def _maps(tmp_path, n=600):
    rng = np.random.default_rng(3)
    centres = rng.normal(0, 4, (3, 10))
    labels = rng.integers(0, 3, n)
    maps = []
    for v, d in enumerate((4, 6)):
        x = (centres[labels][:, :d] + rng.normal(0, 1, (n, d))) * np.arange(1, d + 1)
        np.save(tmp_path / f"v{v}.npy", x.astype(np.float32))
        maps.append(np.load(tmp_path / f"v{v}.npy", mmap_mode="r"))
    return maps


@pytest.mark.parametrize("method", ["zscore", "minmax", "maxscale", "l2", "auto"])
def test_spilled_outputs_are_the_in_memory_numbers_in_a_file_left_nowhere(tmp_path, method):
    maps = _maps(tmp_path)
    folder = tmp_path / "spill"
    folder.mkdir()
    in_memory, names = preprocess(maps, method)
    with spill.spill_outputs(str(folder), above=0):
        on_disk, disk_names = preprocess(maps, method)
    assert disk_names == names
    for a, b in zip(in_memory, on_disk, strict=True):
        assert isinstance(b, np.memmap) and b.dtype == a.dtype == np.float32
        np.testing.assert_array_equal(a, b)
    assert os.listdir(folder) == []  # unnamed: nothing to clean up, even after a crash
    assert not spill.spilling()  # only within the block


def test_large_mapped_views_are_spilled_and_fmdc_gives_the_in_memory_labels(tmp_path, monkeypatch):
    monkeypatch.setattr(stream_stats, "VIEW_ABOVE", 0)
    maps = _maps(tmp_path)
    out = stream_stats.preprocess_spilled(maps, ["auto", "auto"], copy_above=1000)
    assert out is not None
    views, fitted = out
    names = [t.label for t in fitted]
    assert all(isinstance(v, np.memmap) for v in views)
    copied, copied_names = preprocess(maps, ["auto", "auto"])
    assert names == copied_names
    assert not spill.spilling()
    fmdc = REGISTRY["fmdc"]
    labels = fmdc(n_clusters=3, n_anchors=32, random_state=0).fit(views).labels_
    expected = fmdc(n_clusters=3, n_anchors=32, random_state=0).fit(copied).labels_
    np.testing.assert_array_equal(labels, expected)


def test_spilling_needs_mapped_large_views_and_free_disk(tmp_path, monkeypatch):
    maps = _maps(tmp_path)
    assert stream_stats.preprocess_spilled(maps, ["auto"] * 2) is None  # small: copied as before
    in_ram = [np.array(m) for m in maps]
    assert stream_stats.preprocess_spilled(in_ram, ["auto"] * 2, copy_above=0) is None

    class Full:
        free = stream_stats.SPILL_MARGIN  # no room for the copy beside the margin

    monkeypatch.setattr(stream_stats.shutil, "disk_usage", lambda _path: Full)
    assert stream_stats.preprocess_spilled(maps, ["auto"] * 2, copy_above=1000) is None


def test_disk_array_is_writable_and_keeps_its_values(tmp_path):
    a = spill.disk_array((50, 3), np.float32, str(tmp_path))
    a[:] = np.arange(150, dtype=np.float32).reshape(50, 3)
    assert float(a.sum()) == float(np.arange(150).sum()) and os.listdir(tmp_path) == []
