"""Autosave: after a kill the next window offers the session back, runs included; a clean
exit leaves nothing behind."""

from __future__ import annotations

import subprocess
import sys

import pytest

from core.records.session_file import load_session
from tests.mvc_gui.tools.test_session_io import _open_data, _run, _write_data


@pytest.fixture(autouse=True)
def _threads(monkeypatch):
    monkeypatch.setenv("MVC_GUI_SOLVER", "thread")  # two windows: see test_session_io


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _new_window(qtbot, qsettings):
    from mvc_gui.window.main_window import MainWindow

    win = MainWindow(qsettings)
    qtbot.addWidget(win)
    win.method_panel.refresh_methods()
    return win


def test_a_killed_session_is_offered_and_restored(
    qtbot, window, qsettings, tmp_path, autosave_folder
):
    saver = window.tools.autosave
    _open_data(qtbot, window, _write_data(tmp_path / "data"))
    window.method_panel.set_method("fake")
    _run(qtbot, window, n_clusters=3, random_state=1)
    _run(qtbot, window, n_clusters=4, random_state=2)

    def saved_runs() -> list[int]:  # written atomically: always a whole, valid session
        runs = load_session(saver.path).runs if saver.path.exists() else []
        return [r.result.params["n_clusters"] for r in runs]

    qtbot.waitUntil(lambda: saved_runs() == [3, 4], timeout=120_000)
    # the process is killed: its autosave stays, and no process owns it any more
    crashed = autosave_folder / f"session-{_dead_pid()}-1.mvcs.json"
    crashed.write_bytes(saver.path.read_bytes())

    second = _new_window(qtbot, qsettings)
    auto = second.tools.autosave
    qtbot.waitUntil(lambda: second.messages.text != "", timeout=120_000)
    assert "did not close cleanly" in second.messages.text
    assert second.messages.action_button.text() == "Restore" and second.session is None
    with qtbot.waitSignal(second.tools.sessions.restored, timeout=120_000):
        second.messages.action_button.click()
    runs = second.tools.runs.entries
    assert [e.history.result.params["n_clusters"] for e in runs] == [3, 4]
    assert second.session.dataset.n_samples == 90 and second.method_panel.method == "fake"
    assert not crashed.exists()  # restored once, not offered again
    # a clean exit removes the window's own autosave
    qtbot.waitUntil(auto.path.exists, timeout=120_000)
    second.close()
    assert not auto.path.exists()
    second.controller.shutdown(2.0)
    second.embedder.shutdown(5.0)


def test_no_offer_after_a_clean_exit_or_for_a_live_window(qtbot, window, qsettings, tmp_path):
    saver = window.tools.autosave
    _open_data(qtbot, window, _write_data(tmp_path / "data"))
    window.method_panel.set_method("fake")
    _run(qtbot, window, n_clusters=3)
    qtbot.waitUntil(saver.path.exists, timeout=120_000)
    second = _new_window(qtbot, qsettings)  # the first window is alive: nothing to restore
    assert second.tools.autosave.offer_restore() is None
    window.close()
    assert not saver.path.exists()
    second.close()
