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
    qtbot.waitUntil(lambda: loaded.controller.paused, timeout=30_000)
    assert held and held[-1] is False  # paused: the layout may use the cores
    loaded.controller.resume()
    qtbot.waitUntil(lambda: held[-1] is True, timeout=30_000)
    qtbot.waitUntil(lambda: not loaded.controller.running, timeout=60_000)
    qtbot.waitUntil(lambda: held[-1] is False, timeout=30_000)
