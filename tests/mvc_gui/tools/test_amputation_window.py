"""Tools > Missing views on the real main window: score against the missing rate."""

from __future__ import annotations

import csv

import numpy as np
from PySide6.QtCore import Qt


def test_missing_views_window_plots_score_per_method(qtbot, loaded, tmp_path, monkeypatch):
    loaded.method_panel.set_params({"n_clusters": 3, "max_iter": 5, "delay": 0.0})
    loaded.tools.amputation.action.trigger()
    aw = loaded.tools.amputation.window
    assert not aw.views.isVisible() and aw.fill.currentText() == "mean"
    for i in range(aw.methods.count()):
        item = aw.methods.item(i)
        keep = item.text() in {"fake", "fmdc"}
        item.setCheckState(Qt.CheckState.Checked if keep else Qt.CheckState.Unchecked)
    aw.levels.setText("0, 0.5")
    aw.seeds.setText("0")
    aw.jobs.setValue(1)
    aw.start_button.click()
    assert aw.running and "fmdc: incomplete" in aw.status.text()
    qtbot.waitUntil(lambda: not aw.running, timeout=60_000)
    assert "Finished: 4 of 4" in aw.status.text()
    for method in ("fake", "fmdc"):
        x, y = aw.curves[method].getData()
        assert list(x) == [0, 0.5] and np.all((y >= 0) & (y <= 1))
    assert aw.score_plot.getAxis("bottom").labelText == "share of samples missing views"
    out = tmp_path / "missing.csv"
    monkeypatch.setattr(loaded, "ask_save_path", lambda *a: str(out))
    aw.export_button.click()
    rows = list(csv.DictReader(open(out)))
    assert {r["method"]: r["handling"] for r in rows} == {
        "fake": "mean-filled",
        "fmdc": "incomplete",
    }


def test_missing_rates_are_checked(qtbot, loaded):
    loaded.tools.amputation.action.trigger()
    aw = loaded.tools.amputation.window
    aw.levels.setText("0.2, 1.5")
    aw.start_button.click()
    assert not aw.running and aw.messages.level == "error"
    assert "[0, 1)" in aw.messages.text
