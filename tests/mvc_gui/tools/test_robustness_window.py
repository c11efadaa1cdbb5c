"""Tools > Noise robustness on the real main window: lines per method and per view, export."""

from __future__ import annotations

import csv

import numpy as np
from PySide6.QtCore import Qt


def _tick(box, labels):
    for i in range(box.count()):
        item = box.item(i)
        keep = item.text() in labels
        item.setCheckState(Qt.CheckState.Checked if keep else Qt.CheckState.Unchecked)


def test_robustness_plots_score_and_weights_per_method(qtbot, loaded, tmp_path, monkeypatch):
    loaded.method_panel.set_params({"n_clusters": 3, "max_iter": 5, "delay": 0.0})
    loaded.tools.robustness.action.trigger()
    rw = loaded.tools.robustness.window
    # the current method is ticked, and the even-numbered views (as in the RG-MVC paper)
    assert [
        rw.methods.item(i).text()
        for i in range(rw.methods.count())
        if rw.methods.item(i).checkState() == Qt.CheckState.Checked
    ] == ["fake"]
    assert [rw.views.item(i).checkState() for i in range(2)] == [
        Qt.CheckState.Unchecked,
        Qt.CheckState.Checked,
    ]
    _tick(rw.methods, {"fake", "kmeans-concat"})
    _tick(rw.views, {"1: alpha"})  # the fake solver clusters view 1 only: noise must hurt it
    rw.levels.setText("0, 4")
    rw.seeds.setText("0, 1")
    rw.jobs.setValue(1)
    rw.start_button.click()
    assert rw.running
    qtbot.waitUntil(lambda: not rw.running, timeout=120_000)
    assert "Finished: 8 of 8" in rw.status.text()
    assert rw.score.currentText() == "acc"
    x, y = rw.curves["fake"].getData()
    assert list(x) == [0, 4] and y[1] < y[0] - 0.1  # noise on its only view hurts
    x, y = rw.curves["kmeans-concat"].getData()
    assert list(x) == [0, 4] and np.all((y >= 0) & (y <= 1))
    # fake has (uniform) weights: one line per view; kmeans-concat has none and says so
    wx, wy = rw.weight_curves["fake"][0].getData()
    assert list(wx) == [0, 4] and np.allclose(wy, 0.5)
    kx, _ = rw.weight_curves["kmeans-concat"][0].getData()
    assert kx is None or len(kx) == 0
    assert "no view weights" in rw.weight_plots["kmeans-concat"].titleLabel.text
    rw.score.setCurrentText("ari_vs_clean")
    assert rw.curves["fake"].getData()[1][0] == 1.0

    out = tmp_path / "robustness.csv"
    monkeypatch.setattr(loaded, "ask_save_path", lambda *a: str(out))
    rw.export_button.click()
    rows = list(csv.DictReader(open(out)))
    assert len(rows) == 8 and rows[0]["noisy_views"] == "alpha"
    assert {r["method"] for r in rows} == {"fake", "kmeans-concat"}


def test_robustness_needs_a_view_to_corrupt(qtbot, loaded):
    loaded.tools.robustness.action.trigger()
    rw = loaded.tools.robustness.window
    _tick(rw.views, set())
    rw.start_button.click()
    assert not rw.running and rw.messages.level == "error"
    assert "view to corrupt" in rw.messages.text
