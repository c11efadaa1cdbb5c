"""The solver child's data path: large mapped views are not copied for FMDC/DTLL."""

from __future__ import annotations

import numpy as np

import core.data.stream_stats as stream_stats
from core.data.blocks import is_source
from mvc_gui.model.data_session import preprocess_views


def test_mapped_views_go_in_row_blocks_only_for_methods_that_read_them(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    np.save(tmp_path / "v.npy", rng.standard_normal((400, 6)).astype(np.float32))
    mapped = np.load(tmp_path / "v.npy", mmap_mode="r")
    monkeypatch.setattr(stream_stats, "COPY_ABOVE", 1024)
    blocks, chosen = preprocess_views([mapped], ["auto"], "general", None, row_blocks=True)
    copied, same = preprocess_views([mapped], ["auto"], "general", None)
    assert is_source(blocks[0]) and not is_source(copied[0]) and chosen == same
    np.testing.assert_allclose(blocks[0][:], copied[0], atol=1e-6)
    observed = np.ones((400, 1), dtype=bool)
    observed[3] = False  # incomplete views are copied (their statistics follow the mask)
    partial, _ = preprocess_views([mapped], ["auto"], "general", observed, row_blocks=True)
    assert not is_source(partial[0])
