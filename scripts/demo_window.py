"""The window the screenshot scripts photograph: the digits demo with metadata columns made
from its own data, one FMDC run finished, at 1280 x 800, with settings of its own (never the
user's). Run the scripts offscreen: ``QT_QPA_PLATFORM=offscreen python scripts/<name>.py``."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

OUT = Path(__file__).resolve().parents[1] / "docs" / "screenshots"
WORDS = "zero one two three four five six seven eight nine".split()


def wait(done: Callable[[], bool], limit: float = 600.0) -> None:
    """Process events until ``done()`` or ``limit`` seconds (a fixed pause: ``lambda: False``)."""
    app = QApplication.instance()
    t0 = time.time()
    while not done() and time.time() - t0 < limit:
        app.processEvents()
        time.sleep(0.01)


def finished_demo(columns: Callable[[Any], dict[str, np.ndarray]]) -> Any:
    """The main window after an FMDC run on the digits demo whose metadata is ``columns(ds)``
    (a QApplication must exist)."""
    from core.data.demo import load_demo
    from mvc_gui.model.data_session import DataSession
    from mvc_gui.window.main_window import MainWindow

    ds = load_demo("handwritten")
    ds = replace(ds, metadata=columns(ds))
    settings = Path(tempfile.mkdtemp()) / "settings.ini"
    win = MainWindow(QSettings(str(settings), QSettings.Format.IniFormat))
    win.resize(1280, 800)
    win.show()
    emb = win.plots["embedding"]
    win.method_panel.refresh_methods()
    win.method_panel.set_method("fmdc")
    win.set_session(DataSession(ds), ds.summary())
    wait(lambda: emb.xy is not None and not win.embedder.busy)
    win.run()
    wait(lambda: win.controller.history is not None and win.controller.history.result is not None)
    wait(lambda: not win.controller.running)
    return win


def digit_names(ds: Any) -> np.ndarray:
    """The digit's name of every sample (a text metadata column)."""
    return np.array(WORDS)[ds.labels]
