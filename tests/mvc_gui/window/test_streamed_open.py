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
    # the statistics pass ran in a child; its result is kept on the views for the runs
    assert all(v._column_stats.n == 150 for v in session.dataset.views)

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


def test_a_large_npz_is_mapped_in_place_with_a_sampled_then_exact_summary(qtbot, window, tmp_path):
    views, labels = make_blobs_views(n=150, c=3, dims=(4, 6))
    path = tmp_path / "mapped.npz"
    np.savez(path, X0=views[0], X1=views[1], y=labels)
    window.loading.limits.map_above = 0  # any file is "large"
    first: list[str] = []  # the panel as the data arrive (the exact summary may follow fast)
    window.data_loaded.connect(lambda: first.append(window.dataset_panel.warnings.text()))
    with qtbot.waitSignal(window.loading.summary_updated, timeout=60_000):
        window.open_path(str(path))
    assert "the exact one follows" in first[0]
    session = window.session
    assert session.store_dir is None and not session.streamed
    base = session.dataset.views[0]
    while not isinstance(base, np.memmap):  # a view of the file itself, not a copy
        base = base.base
    assert "summary from" not in window.dataset_panel.warnings.text()
    window.method_panel.set_method("fmdc")
    window.method_panel.set_params({"n_clusters": 3})
    with qtbot.waitSignal(window.controller.run_finished, timeout=120_000):
        assert window.run() is not None
    assert accuracy(labels, window.controller.history.labels) > 0.9


def test_the_loader_thread_makes_the_ids_and_class_count_not_the_window(qtbot, tmp_path):
    """At 1M samples they held the window's thread (the ids' cast ~140 ms of GIL)."""
    from mvc_gui.run.load_worker import LoadLimits, LoadWorker

    views, labels = make_blobs_views(n=150, c=3, dims=(4, 6))
    path = tmp_path / "mapped.npz"
    np.savez(path, X0=views[0], X1=views[1], y=labels)
    worker = LoadWorker(str(path), LoadLimits(map_above=0))
    got = []
    worker.done.connect(got.append)
    worker.start()
    qtbot.waitUntil(lambda: bool(got), timeout=60_000)
    session = got[0][0]
    assert "ids" in vars(session.dataset)  # the cached property, filled in the thread
    assert session._classes is not None and session._classes[1] == 3
    worker.stop()
    worker.join(30)
