"""A file too big for memory opens with its views read in row blocks (forced here by a tiny
threshold): the panel shows a summary from one pass, FMDC runs on the blocks in the solver
child and the result and the layout are shown; a method that needs the data in RAM is refused."""

from __future__ import annotations

import numpy as np

from core.numerics.metrics import accuracy
from tests.conftest import make_blobs_views


def test_a_streamed_file_opens_runs_fmdc_and_refuses_alpc(qtbot, window, tmp_path):
    views, labels = make_blobs_views(n=150, c=3, dims=(4, 6))
    path = tmp_path / "big.npz"
    np.savez(path, X0=views[0], X1=views[1].astype(np.float32), y=labels)  # uncompressed
    window.loading.limits.stream_above = 1  # any file is "too big"
    window.open_path(str(path))
    qtbot.waitUntil(lambda: window.session is not None, timeout=60_000)
    session = window.session
    assert session.streamed and session.store_dir is None  # nothing copied into a store
    assert any("read in row blocks" in w for w in session.dataset.warnings)
    assert session.dataset.n_samples == 150 and session.dataset.dims == [4, 6]

    window.method_panel.set_method("fmdc")
    window.method_panel.set_params({"n_clusters": 3})
    with qtbot.waitSignal(window.controller.run_finished, timeout=120_000):
        assert window.run() is not None
    history = window.controller.history
    assert accuracy(labels, history.labels) > 0.9
    qtbot.waitUntil(lambda: window.plots["embedding"].xy is not None, timeout=60_000)
    assert window.plots["embedding"].xy.shape == (150, 2)

    window.method_panel.set_method("alpc")
    assert window.run() is None
    assert window.messages.level == "error"
    assert "needs the views in memory" in window.messages.text
    assert "read in row blocks" in window.messages.text and "FMDC" in window.messages.text
