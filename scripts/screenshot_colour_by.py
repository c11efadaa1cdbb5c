"""Screenshots of the embedding coloured by a metadata column, a feature and a single view's
layout, for docs/gui.md (run offscreen: ``QT_QPA_PLATFORM=offscreen python
scripts/screenshot_colour_by.py``; writes docs/screenshots/colour_by_*.png).

The digits demo has no metadata table, so two columns are made from its own data, the kind a
user would load with File > Load metadata...: "ink" (a number: the sum of the 240 pixel
averages, how much ink the digit uses) and "digit" (text: the digit's name).
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

OUT = Path(__file__).resolve().parents[1] / "docs" / "screenshots"
WORDS = "zero one two three four five six seven eight nine".split()


def main() -> None:
    app = QApplication([])
    from core.data.demo import load_demo
    from mvc_gui.model.data_session import DataSession
    from mvc_gui.window.main_window import MainWindow

    ds = load_demo("handwritten")
    pix = ds.views[ds.view_names.index("pix")]
    ds = replace(ds, metadata={"ink": pix.sum(axis=1), "digit": np.array(WORDS)[ds.labels]})
    settings = QSettings(str(OUT / ".screenshot-settings.ini"), QSettings.Format.IniFormat)
    win = MainWindow(settings)
    win.resize(1280, 800)
    win.show()

    def wait(done, limit=600.0):
        t0 = time.time()
        while not done() and time.time() - t0 < limit:
            app.processEvents()
            time.sleep(0.01)

    emb = win.plots["embedding"]
    win.method_panel.refresh_methods()
    win.method_panel.set_method("fmdc")
    win.set_session(DataSession(ds), ds.summary())
    wait(lambda: emb.xy is not None and not win.embedder.busy)
    win.run()
    wait(lambda: win.controller.history is not None and win.controller.history.result is not None)
    wait(lambda: not win.controller.running)
    for name, choice in (("ink", ("meta", "ink")), ("feature", ("feature", 3, 100))):
        emb.chooser.select(choice)
        wait(lambda: False, 0.5)
        win.grab().save(str(OUT / f"colour_by_{name}.png"))
    emb.chooser.select(("truth",))
    emb.layout_box.setCurrentIndex(1 + ds.view_names.index("mor"))
    wait(lambda: emb.xy is not None and not win.embedder.busy)
    wait(lambda: False, 0.5)
    emb.grab().save(str(OUT / "colour_by_layout_mor.png"))
    win.embedder.shutdown(5.0)
    win.controller.shutdown(5.0)
    (OUT / ".screenshot-settings.ini").unlink(missing_ok=True)


if __name__ == "__main__":
    main()
