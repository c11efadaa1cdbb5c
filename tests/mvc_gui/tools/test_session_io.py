"""File > Save session / Open session: round trip, errors that keep the window as it was."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6.QtWidgets import QCheckBox

from core.records.session_file import load_session
from mvc_gui.model.data_session import DataSession
from mvc_gui.tools.sessions import _load_synthetic, _source_of
from tests.conftest import make_blobs_views


@pytest.fixture(autouse=True)
def _threads(monkeypatch):
    """Solver and layout in threads of this process: the two windows of these tests would
    otherwise share the embedding child process, which cannot take a second job while one
    runs (a known problem of mvc_gui/run/embedding_process.py, reported separately)."""
    monkeypatch.setenv("MVC_GUI_SOLVER", "thread")


def _write_data(folder, n=90):
    folder.mkdir(exist_ok=True)
    views, labels = make_blobs_views(n=n, c=3, dims=(4, 5, 3))
    path = folder / "tiny.npz"
    np.savez(path, X0=views[0], X1=views[1], X2=views[2], y=labels)
    return path


def _open_data(qtbot, win, path):
    with qtbot.waitSignal(win.data_loaded, timeout=60_000):
        win.open_path(str(path))


def _run(qtbot, win, **params):
    win.method_panel.set_params({"max_iter": 5, "delay": 0.0, **params})
    with qtbot.waitSignal(win.controller.run_finished, timeout=120_000):
        win.run()
    return win.controller.history


@pytest.fixture
def second(qtbot, qsettings):
    from mvc_gui.window.main_window import MainWindow

    win = MainWindow(qsettings)
    qtbot.addWidget(win)
    win.method_panel.refresh_methods()
    yield win
    win.controller.shutdown(2.0)
    win.embedder.shutdown(5.0)


@pytest.fixture
def saved(qtbot, window, tmp_path):
    """A session with view choices, parameters and two runs, saved next to its data."""
    data = _write_data(tmp_path / "class")
    _open_data(qtbot, window, data)
    table = window.dataset_panel.table
    table.cellWidget(2, 0).findChild(QCheckBox).setChecked(False)  # as a user would
    combo = table.cellWidget(0, 6)
    combo.setCurrentIndex(combo.findData("zscore"))
    assert window.session.included == [True, True, False]
    _run(qtbot, window, lam=0.5, random_state=4)
    _run(qtbot, window, n_clusters=2, mode="b", random_state=5)
    window.method_panel.set_params({"lam": 0.125, "random_state": 11})
    path = tmp_path / "class" / "lesson.mvcs.json"
    window.ask_save_path = lambda *a: str(path)
    with qtbot.waitSignal(window.tools.sessions.saved, timeout=60_000):
        window.tools.sessions.save_dialog()
    assert window.messages.level != "error", window.messages.text
    assert sorted(p.name for p in path.parent.iterdir()) == ["lesson.mvcs.json", "tiny.npz"]
    return window, path


def test_round_trip_restores_data_choices_method_and_runs(qtbot, saved, second):
    first, path = saved
    record = json.loads(path.read_text())
    assert record["format"] == "mvc-studio-session" and record["version"] == 1
    assert record["data"]["relative_path"] == "tiny.npz"
    assert record["method"]["seed"] == 11
    with qtbot.waitSignal(second.tools.sessions.restored, timeout=120_000) as blocker:
        second.tools.sessions.open(str(path))
    assert blocker.args == [[]]  # no warnings
    s = second.session
    assert s.dataset.n_samples == 90 and s.included == [True, True, False]
    assert s.methods[0] == "zscore"
    assert second.dataset_panel.table.cellWidget(0, 6).currentData() == "zscore"
    assert second.method_panel.method == "fake"
    params = second.method_panel.params()
    assert params["lam"] == pytest.approx(0.125) and params["random_state"] == 11
    old, new = first.tools.runs.entries, second.tools.runs.entries
    assert [e.number for e in new] == [1, 2]
    for a, b in zip(old, new, strict=True):
        np.testing.assert_array_equal(a.result.labels, b.result.labels)
        assert a.result.metrics == pytest.approx(b.result.metrics)
        assert a.result.params == b.result.params
        assert b.history.objective == pytest.approx(a.history.objective)
        assert b.history.metrics["acc"] == pytest.approx(a.history.metrics["acc"])
        assert b.result.view_names == ["view 1", "view 2"]
    assert second.tools.runs.table.item(1, 2).text() == a.row()["parameters"]
    # the reopened runs can be shown and compared without rerunning
    assert second.tools.runs.show_entry(new[0])
    np.testing.assert_array_equal(second.plots["embedding"].labels, old[0].result.labels)
    assert list(second.plots["convergence"].curve.getData()[0]) == [1, 2, 3, 4, 5]
    assert second.plots["weights"].names == ["view 1", "view 2"]
    dialog = second.tools.runs.compare(new[0], new[1])
    qtbot.addWidget(dialog)
    assert dialog.agreement["ari"] == pytest.approx(
        first.tools.runs.compare(old[0], old[1]).agreement["ari"]
    )
    # new runs are numbered after the restored ones
    _run(qtbot, second)
    assert [e.number for e in second.tools.runs.entries] == [1, 2, 3]


def test_missing_data_file_keeps_the_window_as_it_was(qtbot, saved, second, tmp_path):
    _first, path = saved
    (path.parent / "tiny.npz").unlink()
    with qtbot.waitSignal(second.tools.sessions.failed, timeout=60_000):
        second.tools.sessions.open(str(path))
    assert second.messages.level == "error"
    assert "data file is missing" in second.messages.text
    assert str(path.parent / "tiny.npz") in second.messages.text
    assert second.session is None and second.tools.runs.entries == []


def test_unknown_version_is_refused(qtbot, saved, second):
    first, path = saved
    record = json.loads(path.read_text())
    record["version"] = 7
    path.write_text(json.dumps(record))
    with qtbot.waitSignal(first.tools.sessions.failed, timeout=60_000):
        first.tools.sessions.open(str(path))
    assert (
        "version 7" in first.messages.text and "current data and runs stay" in first.messages.text
    )
    assert [e.number for e in first.tools.runs.entries] == [1, 2]
    assert first.session.dataset.name == "tiny"


def test_changed_data_warns_and_skips_the_runs(qtbot, saved, second):
    _first, path = saved
    _write_data(path.parent, n=120)
    with qtbot.waitSignal(second.tools.sessions.restored, timeout=120_000) as blocker:
        second.tools.sessions.open(str(path))
    (warning,) = blocker.args[0]
    assert "90 samples then, 120 now" in warning
    assert second.messages.level == "warning" and "runs were not restored" in second.messages.text
    assert second.session.dataset.n_samples == 120 and second.session.included == [
        True,
        True,
        False,
    ]
    assert second.tools.runs.entries == []


def test_demo_session_and_unsaveable_data(qtbot, window, loaded, tmp_path, second):
    # the test dataset came from no file: saving says so and writes nothing
    target = tmp_path / "s.mvcs.json"
    assert loaded.tools.sessions.save(str(target)) is None
    assert "not loaded from a file or a demo" in loaded.messages.text
    assert not target.exists()
    with qtbot.waitSignal(window.data_loaded, timeout=60_000):
        window.load_demo("two_moons")
    with qtbot.waitSignal(window.tools.sessions.saved, timeout=60_000):
        window.tools.sessions.save(str(target))
    state = load_session(target)
    (tmp_path / "a_file").write_text("not a folder")
    window.tools.sessions.save(str(tmp_path / "a_file" / "s.mvcs.json"))
    qtbot.waitUntil(lambda: window.messages.level == "error", timeout=60_000)
    assert "Could not write the session" in window.messages.text
    assert state.source.kind == "demo" and state.source.demo == "two_moons"
    with qtbot.waitSignal(second.tools.sessions.restored, timeout=120_000):
        second.tools.sessions.open(str(target))
    assert second.session.dataset.source == "demo:two_moons"


def test_synthetic_source_records_its_generator():
    from mvc_gui.model.data_session import make_synthetic

    ds = make_synthetic(120, (4, 6), 3, 0)
    src = _source_of(DataSession(ds))
    assert src.kind == "demo" and src.demo == "synthetic-120"
    assert src.synthetic == {"n": 120, "dims": [4, 6], "c": 3, "seed": 0}
    again, _summary = _load_synthetic(src.synthetic)
    for a, b in zip(ds.views, again.dataset.views, strict=True):
        np.testing.assert_array_equal(a, b)
