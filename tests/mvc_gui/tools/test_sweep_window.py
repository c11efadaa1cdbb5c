"""Tools > Parameter sweep on the real main window: fill the heat map, click a cell, export."""

from __future__ import annotations

import csv

import numpy as np
from PySide6.QtCore import QPoint, Qt


def _open(win):
    win.tools.sweep.action.trigger()
    return win.tools.sweep.window


def _click_cell(qtbot, sw, ix, iy):
    view = sw.heat.view
    pos = view.mapFromScene(sw.heat.scene_pos_of(ix, iy))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(pos.x(), pos.y()))


def test_sweep_fills_every_cell_then_a_click_runs_it(qtbot, loaded, tmp_path, monkeypatch):
    loaded.method_panel.set_params({"n_clusters": 3, "max_iter": 4, "delay": 0.0})
    sw = _open(loaded)
    sw.resize(700, 600)
    qtbot.waitExposed(sw)
    # the fake solver's first non-trivial parameters, with grids from their ranges
    assert (sw.x_param.currentText(), sw.y_param.currentText()) == ("lam", "mode")
    assert sw.x_values.text() == "0.01, 0.1, 1, 10, 100" and sw.y_values.text() == "a, b"
    sw.x_values.setText("0.1, 10")
    sw.seeds.setText("0, 1")
    sw.jobs.setValue(1)  # the fake solver is registered in this process only
    sw.start_button.click()
    assert sw.running and not sw.start_button.isEnabled()
    qtbot.waitUntil(lambda: not sw.running, timeout=120_000)
    assert all(r["status"] == "ok" for r in sw.plan.rows) and len(sw.plan.rows) == 8
    assert sw.progress.value() == 8 and "Finished: 8 of 8" in sw.status.text()
    assert sw.score.currentText() == "acc"
    assert np.isfinite(sw.heat.values).all() and sw.heat.values.shape == (2, 2)
    assert all(t for t in sw.heat.cell_texts())
    np.testing.assert_allclose(sw.heat.values.T, sw.plan.grid("acc"))
    sw.score.setCurrentText("stability")
    np.testing.assert_allclose(sw.heat.values.T, sw.plan.grid("stability"))

    with qtbot.waitSignal(loaded.controller.run_finished, timeout=60_000):
        _click_cell(qtbot, sw, 1, 1)  # lam = 10, mode = b
    params = loaded.method_panel.params()
    assert params["lam"] == 10 and params["mode"] == "b" and params["random_state"] == 0
    assert loaded.controller.history.params["lam"] == 10
    assert loaded.controller.history.params["mode"] == "b"

    out = tmp_path / "sweep.csv"
    monkeypatch.setattr(loaded, "ask_save_path", lambda *a: str(out))
    sw.export_button.click()
    rows = list(csv.DictReader(open(out)))
    assert len(rows) == 8 and {(r["lam"], r["mode"]) for r in rows} == {
        ("0.1", "a"),
        ("0.1", "b"),
        ("10", "a"),
        ("10", "b"),
    }
    assert all(0 <= float(r["acc"]) <= 1 and r["stability"] for r in rows)
    out = tmp_path / "heat.png"
    sw.heat.export_button.click()
    assert out.stat().st_size > 1000


def test_bad_grid_and_failing_cells_are_reported(qtbot, loaded):
    loaded.method_panel.set_params({"n_clusters": 3, "max_iter": 4, "delay": 0.0})
    sw = _open(loaded)
    sw.x_values.setText("0.1, -5")
    sw.start_button.click()
    assert not sw.running and sw.messages.level == "error"
    assert "'lam'" in sw.messages.text and "[0.0001, 10000]" in sw.messages.text
    sw.x_param.setCurrentText("fail_at")
    sw.x_values.setText("0, 2")
    sw.y_param.setCurrentText("(none)")
    assert not sw.y_values.isEnabled()
    sw.jobs.setValue(1)
    sw.start_button.click()
    qtbot.waitUntil(lambda: not sw.running, timeout=120_000)
    ok, bad = sw.plan.rows
    assert ok["status"] == "ok" and bad["status"] == "error" and "fake failure" in bad["error"]
    assert sw.messages.level == "warning" and "fail_at=2" in sw.messages.text
    assert sw.heat.values.shape == (1, 2) and np.isfinite(sw.heat.values[0, 0])
    assert np.isnan(sw.heat.values[0, 1])


def test_cancel_stops_the_sweep(qtbot, loaded):
    loaded.method_panel.set_params({"n_clusters": 3, "max_iter": 1000, "delay": 0.02})
    sw = _open(loaded)
    sw.x_values.setText("0.1, 1, 10")
    sw.jobs.setValue(1)
    sw.start_button.click()
    qtbot.wait(300)
    sw.cancel_button.click()
    qtbot.waitUntil(lambda: not sw.running, timeout=120_000)  # cells take 20 s uncancelled
    assert "Cancelled" in sw.status.text()
    assert not any(r and r["status"] == "ok" for r in sw.plan.rows)
    assert sw.start_button.isEnabled()
