"""GUI test fixtures: the fake solver registered for each test, tiny datasets, the window."""

from __future__ import annotations

import pytest

from core.data.dataset import MultiViewDataset
from core.methods.base import REGISTRY
from tests.conftest import make_blobs_views
from tests.mvc_gui.fake_solver import FakeSolver


@pytest.fixture(autouse=True)
def fake_solver():
    """Registered only for the duration of each GUI test (other suites iterate REGISTRY)."""
    added = REGISTRY.setdefault("fake", FakeSolver) is FakeSolver
    yield FakeSolver
    if added:
        REGISTRY.pop("fake", None)


@pytest.fixture(autouse=True)
def autosave_folder(tmp_path, monkeypatch):
    """Windows autosave into the test's folder, never the user's application data."""
    folder = tmp_path / "autosave"
    monkeypatch.setenv("MVC_AUTOSAVE_DIR", str(folder))
    return folder


@pytest.fixture(scope="session", autouse=True)
def gui_thread_gc(qapp):
    """As in the app: cyclic garbage is collected in the GUI thread only (a collection in a
    worker thread that freed a QObject deadlocked the monkey test once, 2026-11-27)."""
    from mvc_gui.run.gui_gc import collect_in_gui_thread, stop_collecting

    collect_in_gui_thread()
    yield
    stop_collecting()


@pytest.fixture
def threads(monkeypatch):
    """Solver and layouts in threads of this process (fast: no child process start per
    window; a test's registered solver is found there)."""
    monkeypatch.setenv("MVC_GUI_SOLVER", "thread")


@pytest.fixture
def small_dataset():
    views, labels = make_blobs_views(n=150, c=3, dims=(4, 6))
    return MultiViewDataset(
        views=views, labels=labels, view_names=["alpha", "beta"], name="blobs", source="test"
    )


@pytest.fixture
def qsettings(tmp_path):
    from PySide6.QtCore import QSettings

    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def window(qtbot, qsettings):
    from mvc_gui.window.main_window import MainWindow

    win = MainWindow(qsettings)
    qtbot.addWidget(win)
    win.method_panel.refresh_methods()
    win.method_panel.set_method("fake")
    yield win
    win.controller.shutdown(2.0)
    win.embedder.shutdown(5.0)


@pytest.fixture
def loaded(qtbot, window, small_dataset):
    """The window with the small blob dataset set (embedding computed in the background)."""
    from mvc_gui.model.data_session import DataSession

    session = DataSession(small_dataset)
    window.set_session(session, small_dataset.summary())
    return window
