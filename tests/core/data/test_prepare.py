"""The one road from raw views to a solver's input (``core.data.prepare``): large mapped views
(the app's solver child) are not copied for the methods that read row blocks."""

from __future__ import annotations

import numpy as np

import core.data.prepare as spill
import core.data.stream_stats as stream_stats
from core.data.blocks import is_source


def preprocess_views(*args, **kw):
    views, fitted = spill.prepare_views(*args, **kw)
    return views, [t.label for t in fitted]


def test_mapped_views_go_in_row_blocks_only_for_methods_that_read_them(tmp_path, monkeypatch):
    """Without room on disk for the preprocessed copy (the spilled path is below)."""
    rng = np.random.default_rng(0)
    np.save(tmp_path / "v.npy", rng.standard_normal((400, 6)).astype(np.float32))
    mapped = np.load(tmp_path / "v.npy", mmap_mode="r")
    monkeypatch.setattr(stream_stats, "COPY_ABOVE", 1024)
    monkeypatch.setattr(spill, "preprocess_spilled", lambda *a, **k: None)
    blocks, chosen = preprocess_views([mapped], ["auto"], "general", None, row_blocks=True)
    copied, same = preprocess_views([mapped], ["auto"], "general", None)
    assert is_source(blocks[0]) and not is_source(copied[0]) and chosen == same
    np.testing.assert_allclose(blocks[0][:], copied[0], atol=1e-6)
    observed = np.ones((400, 1), dtype=bool)
    observed[3] = False  # incomplete views are copied (their statistics follow the mask)
    partial, _ = preprocess_views([mapped], ["auto"], "general", observed, row_blocks=True)
    assert not is_source(partial[0])


def test_large_mapped_views_get_a_preprocessed_copy_on_disk_for_row_block_methods(
    tmp_path, monkeypatch
):
    """The solver child's FMDC/DTLL: the in-memory numbers, in a file map, not row blocks."""
    rng = np.random.default_rng(0)
    np.save(tmp_path / "v.npy", (rng.standard_normal((400, 6)) * 7 + 3).astype(np.float32))
    mapped = np.load(tmp_path / "v.npy", mmap_mode="r")
    monkeypatch.setattr(stream_stats, "COPY_ABOVE", 1024)
    monkeypatch.setattr(stream_stats, "VIEW_ABOVE", 0)
    spilled, chosen = preprocess_views([mapped], ["auto"], "general", None, spill=True)
    copied, same = preprocess_views([mapped], ["auto"], "general", None)
    assert isinstance(spilled[0], np.memmap) and not isinstance(copied[0], np.memmap)
    assert chosen == same
    np.testing.assert_array_equal(spilled[0], copied[0])


def test_every_method_gets_the_copy_on_disk_and_without_room_only_row_block_methods_stream(
    tmp_path, monkeypatch
):
    rng = np.random.default_rng(1)
    np.save(tmp_path / "v.npy", rng.standard_normal((300, 5)).astype(np.float32))
    mapped = np.load(tmp_path / "v.npy", mmap_mode="r")
    monkeypatch.setattr(stream_stats, "COPY_ABOVE", 1024)
    monkeypatch.setattr(stream_stats, "VIEW_ABOVE", 0)
    other, _ = preprocess_views([mapped], ["zscore"], "general", None, spill=True)
    assert isinstance(other[0], np.memmap)  # e.g. ALPC: its in-memory path on the file map
    monkeypatch.setattr(stream_stats, "SPILL_MARGIN", 1 << 62)  # no room on any disk
    copied, _ = preprocess_views([mapped], ["zscore"], "general", None, spill=True)
    blocks, _ = preprocess_views([mapped], ["zscore"], "general", None, row_blocks=True, spill=True)
    assert type(copied[0]) is np.ndarray and is_source(blocks[0])
