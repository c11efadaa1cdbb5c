"""A live run's labels reach the panels as the worker counted them: redrawn only when they
moved, and the legend and confusion show the same numbers the window would count itself."""

from __future__ import annotations

import numpy as np

from mvc_gui.model.aggregations import confusion


def test_labels_are_drawn_once_per_change_with_the_workers_counts(
    threads, qtbot, loaded, monkeypatch
):
    win = loaded
    emb = win.plots["embedding"]
    drawn, versions = [], []
    real = emb.set_labels

    def spy(labels, counts=None):
        drawn.append(labels)
        real(labels, counts)

    monkeypatch.setattr(emb, "set_labels", spy)
    win.controller.iteration_done.connect(lambda h: versions.append(h.labels_version))
    win.method_panel.set_params({"n_clusters": 3, "max_iter": 20, "delay": 0.05})
    with qtbot.waitSignal(win.controller.run_finished, timeout=60_000):
        win.run()
    h = win.controller.history
    # the fake solver's labels settle after a few iterations: later frames redraw nothing
    assert len(drawn) == len(set(versions) - {0}) < len(versions)  # 0: no labels yet
    assert np.array_equal(emb.labels, h.labels)
    legend = win.results_panel.legend
    sizes = [int(legend.item(i).text().split("\u2014")[1].split()[0]) for i in range(3)]
    assert sizes == np.bincount(h.labels, minlength=3).tolist()
    counts, order = confusion(win.session.labels, h.labels, 3, 3)
    shown = win.plots["confusion"].counts.texts()
    assert shown == [str(c) for c in counts[:, order][counts[:, order] > 0].tolist()]
