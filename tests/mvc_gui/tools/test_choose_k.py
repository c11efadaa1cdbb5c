"""Choosing k in the window: unlabelled data defaults to "auto" (not 2), the run's estimate
is drawn with the chosen k, a click picks another k; "Suggest parameters" applies a cell."""

from __future__ import annotations

import numpy as np

from core.data.dataset import MultiViewDataset
from mvc_gui.model.data_session import DataSession
from tests.conftest import make_blobs_views


def _set_unlabelled(window, c=4):
    views, _ = make_blobs_views(n=160, c=c, dims=(4, 6))
    ds = MultiViewDataset(views=views, labels=None, view_names=["a", "b"], name="nolabels")
    window.set_session(DataSession(ds), ds.summary())


def test_unlabelled_data_defaults_to_auto_and_shows_the_estimate(qtbot, window):
    panel = window.method_panel
    _set_unlabelled(window)
    editor = panel.form().editors["n_clusters"]
    assert panel.params()["n_clusters"] == "auto" and editor._auto.isChecked()
    panel.set_params({"max_iter": 3, "delay": 0.0})
    with qtbot.waitSignal(window.controller.run_finished, timeout=120_000):
        window.run()
    history = window.controller.history
    est = history.result.n_clusters_estimate
    assert est["k"] == 4 and np.unique(history.result.labels).size == 4
    tool = window.tools.choose_k
    assert tool.plot.selected == 4 and tool.plot.curve.xData.size == len(est["eigenvalues"])
    assert "estimated 4" in tool.status.text()
    tool.plot.k_clicked.emit(5)  # as a click on the 5th point does
    assert panel.params()["n_clusters"] == 5 and not editor._auto.isChecked()
    panel.set_default_clusters(3)  # labelled data: the class count, as before
    assert panel.params()["n_clusters"] == 3


def test_estimate_now_runs_in_a_worker_and_draws(qtbot, window):
    _set_unlabelled(window, c=3)
    tool = window.tools.choose_k
    worker = tool.estimate()
    with qtbot.waitSignal(worker.done, timeout=120_000):
        pass
    assert tool.plot.estimate["k"] == 3 and tool.plot.selected == 3


def test_suggest_parameters_applies_the_best_cell(qtbot, loaded):
    panel = loaded.method_panel
    panel.set_method("kmeans-concat")
    assert panel.suggest_button.isEnabled()
    panel.set_params({"n_init": 3})
    worker = loaded.tools.choose_k.suggest()
    with qtbot.waitSignal(worker.done, timeout=60_000):
        pass
    assert panel.params()["n_init"] in (1, 10)
    assert "Suggested for kmeans-concat" in loaded.tools.choose_k.status.text()
