"""A large layout waits while a run computes (the clusters first), in a thread or the child."""

from __future__ import annotations

import pytest

import mvc_gui.run.embedding_controller as ec_module
from mvc_gui.model.data_session import DataSession
from mvc_gui.run.embedding_controller import EmbeddingController


@pytest.mark.parametrize("use_process", [False, True])
def test_a_held_layout_waits_at_its_first_frame_until_released(
    qtbot, small_dataset, monkeypatch, use_process
):
    monkeypatch.setattr(ec_module, "HOLD_ABOVE", 0)  # the small data count as large here
    ec = EmbeddingController(use_process=use_process)
    frames, finals = [], []
    ec.layout_updated.connect(lambda xy, final: (finals if final else frames).append(xy))
    ec.set_held(True)  # a run computes
    ec.request(DataSession(small_dataset))
    try:
        qtbot.waitUntil(lambda: bool(frames), timeout=120_000)
        qtbot.wait(1500)
        seen = len(frames)
        qtbot.wait(1500)  # unheld, 150 samples give a frame every few ms, and end
        assert ec.busy and not finals and len(frames) == seen
        ec.set_held(False)  # the run ended
        qtbot.waitUntil(lambda: bool(finals), timeout=120_000)
        assert finals[0].shape == (150, 2) and not ec.busy
    finally:
        assert ec.shutdown(5.0)


def test_small_layouts_are_never_held(qtbot, small_dataset):
    ec = EmbeddingController(use_process=False)
    finals = []
    ec.layout_updated.connect(lambda xy, final: final and finals.append(xy))
    ec.set_held(True)
    ec.request(DataSession(small_dataset))
    qtbot.waitUntil(lambda: bool(finals), timeout=120_000)
    assert ec.shutdown(5.0)


def test_the_window_holds_the_layout_while_a_run_computes_not_while_paused(qtbot, loaded):
    held = []
    loaded.embedder.set_held = held.append
    loaded.run(paused=True)
    qtbot.waitUntil(lambda: loaded.controller.paused, timeout=120_000)
    assert held and held[-1] is False  # paused: the layout may use the cores
    loaded.controller.resume()
    qtbot.waitUntil(lambda: held[-1] is True, timeout=120_000)
    qtbot.waitUntil(lambda: not loaded.controller.running, timeout=60_000)
    qtbot.waitUntil(lambda: held[-1] is False, timeout=120_000)


def test_the_layout_child_is_held_at_its_first_frame_not_in_the_passes_before(
    tmp_path, monkeypatch
):
    """The passes before the first frame go on (points on screen early); then it waits."""
    import multiprocessing
    import threading

    import numpy as np

    from mvc_gui.run import embedding_process, layout_input
    from mvc_gui.run.solver_process import recv_message, send_message

    monkeypatch.setattr(layout_input, "LAZY_FROM", 10)  # lazy (checkpointed) views
    monkeypatch.setattr(layout_input, "BLOCK", 16)
    rng = np.random.default_rng(0)
    np.save(tmp_path / "v.npy", (rng.standard_normal((300, 6)) * 3 + 1).astype(np.float32))
    x = np.load(tmp_path / "v.npy", mmap_mode="r")
    parent, child = multiprocessing.Pipe()
    send_message(parent, ("embed", 1, ([x], ["zscore"], "general", None)))
    parent.send(("hold", 1, None))  # there before the child reads its first block
    thread = threading.Thread(target=embedding_process.serve, args=(child,), daemon=True)
    thread.start()
    try:
        assert parent.poll(120)
        assert recv_message(parent)[0] == "frame"  # the first frame came while held
        assert not parent.poll(1.5)  # and then it waited
        parent.send(("release", 1, None))
        kinds = []
        while not kinds or kinds[-1][0] != "end":
            assert parent.poll(120)
            msg = recv_message(parent)
            kinds.append((msg[0], msg[2]))
        layout, error, chosen = kinds[-1][1]
        assert error == "" and layout.shape == (300, 2) and chosen == ["zscore"]
    finally:
        parent.send(("quit", None, None))
        thread.join(10)
    assert layout_input._hooks == []  # the hook is the job's only


def test_a_stop_acts_within_the_passes_before_the_first_frame(tmp_path, monkeypatch):
    import multiprocessing
    import threading

    import numpy as np

    from core.numerics import layout as core_layout
    from mvc_gui.run import embedding_process, layout_input
    from mvc_gui.run.solver_process import recv_message, send_message

    monkeypatch.setattr(layout_input, "LAZY_FROM", 10)
    monkeypatch.setattr(layout_input, "BLOCK", 16)
    np.save(tmp_path / "v.npy", np.random.default_rng(1).standard_normal((200, 5)))
    x = np.load(tmp_path / "v.npy", mmap_mode="r")
    embedded = []
    monkeypatch.setattr(core_layout, "embed", lambda *a, **k: embedded.append(1))
    parent, child = multiprocessing.Pipe()
    send_message(parent, ("embed", 7, ([x], ["zscore"], "general", None)))
    parent.send(("stop", 7, None))  # read at the first row block
    thread = threading.Thread(target=embedding_process.serve, args=(child,), daemon=True)
    thread.start()
    try:
        assert parent.poll(60)
        kind, job, (layout, error, _chosen) = recv_message(parent)
        assert (kind, job, layout, error) == ("end", 7, None, "") and not embedded
    finally:
        parent.send(("quit", None, None))
        thread.join(10)
