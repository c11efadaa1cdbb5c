"""During a live run the curves, the labels and the heat map are painted in separate
event-loop passes (one pass painting all of them was the longest stall at 1M samples);
when the run ends its final state is on display at once."""

from __future__ import annotations

import numpy as np

from mvc_gui.window.paint_spread import PaintSpreader


def test_one_deferred_update_per_pass_newest_replaces(qtbot):
    spread = PaintSpreader()
    ran, pending_then = [], []

    def update(name):
        def run():
            ran.append(name)
            pending_then.append(spread.pending)

        return run

    spread.defer("labels", update("labels v1"))
    spread.defer("heat", update("heat"))
    spread.defer("labels", update("labels v2"))  # replaces v1, now after the heat map
    assert ran == []  # nothing inside the caller's pass
    qtbot.waitUntil(lambda: len(ran) == 2, timeout=120_000)
    assert ran == ["heat", "labels v2"]
    assert pending_then == [("labels",), ()]  # each ran in its own timer pass


def test_flush_runs_everything_now_and_discard_drops_it(qtbot):
    spread = PaintSpreader()
    ran = []
    spread.defer("a", lambda: ran.append("a"))
    spread.defer("b", lambda: ran.append("b"))
    spread.flush()
    assert ran == ["a", "b"] and spread.pending == ()
    spread.defer("c", lambda: ran.append("c"))
    spread.discard()
    qtbot.wait(100)
    assert ran == ["a", "b"]


def test_live_labels_are_drawn_after_the_curves_pass_and_final_ones_at_once(
    threads, qtbot, loaded, monkeypatch
):
    win = loaded
    pr, emb = win.presenter, win.plots["embedding"]
    inside = [False]
    drawn_inside = []  # per labels draw: inside the iteration slot (same paint pass) or not
    real_done, real_set = pr.on_iteration_done, emb.set_labels

    def done(history):
        inside[0] = True
        try:
            real_done(history)
        finally:
            inside[0] = False

    def set_labels(labels, counts=None):
        drawn_inside.append(inside[0])
        real_set(labels, counts)

    monkeypatch.setattr(emb, "set_labels", set_labels)
    win.controller.iteration_done.disconnect(real_done)
    win.controller.iteration_done.connect(done)
    win.method_panel.set_params({"n_clusters": 3, "max_iter": 20, "delay": 0.05})
    with qtbot.waitSignal(win.controller.run_finished, timeout=60_000):
        win.run()
    assert False in drawn_inside  # live labels came in a later pass than the curves
    h = win.controller.history
    assert np.array_equal(emb.labels, h.labels)  # the final labels, at run_finished
    assert pr._spread.pending == ()
