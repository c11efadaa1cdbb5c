"""Screenshots of the analysis workbench (the Analysis dock) for docs/analysis.md and the README
(run offscreen: ``QT_QPA_PLATFORM=offscreen python scripts/screenshot_workbench.py``; writes
docs/screenshots/workbench_*.png).

Nutrimouse-like tables (``tests/nutrimouse_tables.py``: 100 mice, genes carrying the genotype,
lipids the diet, six mice without lipids) with a survival time and event planted by genotype
are loaded through File > Add view / Load metadata, FMDC finds 4 clusters, and each page of
the dock is shown, floated at 1280 x 800: cluster 0 against the rest, the metadata columns
against the clusters (diet's contingency table), Kaplan-Meier curves, view agreement, and why
one mouse is in its cluster. A last shot shows the whole window with the dock in place.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory

import numpy as np
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "screenshots"
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # the project first: tests/mvc_gui is no package

from nutrimouse_tables import nutrimouse, write_nutrimouse  # noqa: E402


def _wait(app: QApplication, cond, timeout: float = 300.0) -> None:
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise TimeoutError("the window did not get there in time")
        app.processEvents()
        time.sleep(0.005)


def _settle(app: QApplication, seconds: float = 0.6) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def _tables(folder: Path) -> dict:
    data = nutrimouse(n_per=10)
    t = write_nutrimouse(folder, data, lipid_missing=6)
    g = np.random.default_rng(3)
    n = data["ids"].size
    weeks = np.where(data["genotype"] == 1, g.exponential(12, n), g.exponential(30, n)).round(1)
    died = (g.random(n) < 0.8).astype(int)
    row = {s: i for i, s in enumerate(data["ids"])}
    lines = t["meta"].read_text().splitlines()
    out = [lines[0] + ",weeks,died"]
    out += [f"{line},{weeks[row[line.split(',')[0]]]},{died[row[line.split(',')[0]]]}"
            for line in lines[1:]]  # fmt: skip
    t["meta"].write_text("\n".join(out) + "\n")
    return t


def main() -> int:
    os.environ.setdefault("MVC_GUI_SOLVER", "thread")
    app = QApplication.instance() or QApplication([])
    from mvc_gui.window.main_window import MainWindow

    OUT.mkdir(parents=True, exist_ok=True)
    with TemporaryDirectory() as tmp:
        t = _tables(Path(tmp))
        win = MainWindow(QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat))
        win.resize(1280, 800)
        win.show()
        loads = [0]
        win.data_loaded.connect(lambda: loads.__setitem__(0, loads[0] + 1))
        tool = win.tools.table_import
        for k, call in enumerate((lambda: tool.add_view(str(t["genes"]), name="genes"),
                                  lambda: tool.add_view(str(t["lipids"]), name="lipids"),
                                  lambda: tool.set_meta(str(t["meta"]), None, None))):  # fmt: skip
            call()
            _wait(app, lambda k=k: loads[0] == k + 1)
        win.method_panel.set_method("fmdc")
        win.method_panel.set_params({"n_clusters": 4})
        done: list = []
        win.controller.run_finished.connect(done.append)
        win.run()
        _wait(app, lambda: bool(done))
        _wait(app, lambda: not win.embedder.busy)
        bench = win.tools.workbench
        labels = np.asarray(win.current_result().labels)
        win.selection.set(np.flatnonzero(labels == 0), "cluster 0")
        dock = bench.dock
        dock.setFloating(True)
        dock.resize(1280, 800)
        _settle(app)

        def shot(name: str) -> None:
            _settle(app)
            dock.grab().save(str(OUT / f"workbench_{name}.png"))

        compare = bench.compare
        bench.show_page(compare)
        compare.group_a.choose("the selection")
        compare.group_b.choose("the rest")
        compare.start()
        _wait(app, lambda: not compare.busy and bool(compare.tables))
        compare.view_box.setCurrentIndex(1)
        compare.table.selectRow(0)
        _wait(app, lambda: len(compare.distribution.groups) == 2)
        shot("compare")
        assoc = bench.association
        bench.show_page(assoc)
        assoc.start()
        _wait(app, lambda: not assoc.busy and bool(assoc.rows))
        order = [assoc.model.value(r, 0) for r in range(assoc.model.rowCount())]
        assoc.table.selectRow(order.index("diet"))
        _wait(app, lambda: assoc.contingency_plot.counts.size > 0)
        shot("association")
        assoc.start_survival("weeks", "died")
        _wait(app, lambda: assoc.survival_result is not None)
        shot("survival")
        views = bench.views
        bench.show_page(views)
        views.start()
        _wait(app, lambda: not views.busy and views.agreement is not None)
        shot("views")
        why = bench.why
        bench.show_page(why)
        why.explain(int(np.flatnonzero(labels == 1)[0]))
        _wait(app, lambda: not why.busy and why.explanation is not None)
        shot("why")
        dock.setFloating(False)
        bench.show_page(compare)
        _settle(app, 1.0)
        win.grab().save(str(OUT / "workbench_window.png"))
        win.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
