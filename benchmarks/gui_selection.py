"""Selecting in the window at scale: how long a lasso takes to select, and to be counted, and
whether the window stalls meanwhile.

Part 1 (no window): which points a lasso holds, :func:`mvc_gui.model.regions.points_in_polygon`
(points sorted by y once, each edge toggling only the points in its own y span) against the
plain vectorised crossing test (every edge against every point), side by side at 100,000 and
1,000,000 points, for a 50- and a 500-vertex lasso.

Part 2 (the real main window, offscreen): 100,000 samples with the metadata of
``gui_workbench.py`` (few features: a selection does not read them), a layout put in place
(no t-SNE competing for the cores) and planted labels on display. A lasso is drawn with mouse
events on the embedding's viewport, then a Shift+lasso adds and a Ctrl+lasso subtracts; for
each, the time from the mouse release until the selection is drawn and until the Selection
dock shows its composition (by cluster and by a metadata column), and the longest gap of a
5 ms GUI-thread timer (``gui_responsiveness.StallMeter``).

    nice -n 5 python benchmarks/gui_selection.py [--n 100000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import itertools

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPoint, QPointF, QSettings, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from benchmarks._common import git_rev, machine
from benchmarks.gui_responsiveness import StallMeter, wait_until
from benchmarks.gui_workbench import K, make_data
from mvc_gui.model.regions import points_in_polygon


def crossing_all_edges(xy: np.ndarray, poly: np.ndarray) -> np.ndarray:
    """The textbook crossing test vectorised over the points, one numpy pass per edge."""
    x, y = xy[:, 0].astype(np.float64), xy[:, 1].astype(np.float64)
    inside = np.zeros(len(xy), dtype=bool)
    for (xa, ya), (xb, yb) in zip(poly, np.roll(poly, -1, axis=0), strict=True):
        if ya == yb:
            continue
        span = (np.minimum(ya, yb) <= y) & (y < np.maximum(ya, yb))
        inside ^= span & (x < xa + (y - ya) * (xb - xa) / (yb - ya))
    return inside


def lasso(m: int, radius: float = 2.0) -> np.ndarray:
    """A wobbly closed loop of ``m`` vertices (as a hand draws one)."""
    t = np.linspace(0, 2 * np.pi, m, endpoint=False)
    r = radius * (1 + 0.25 * np.sin(7 * t))
    return np.c_[r * np.cos(t), r * np.sin(t)]


def best_of(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def part_one() -> None:
    print("points inside a lasso (best of 3; both give the same mask):")
    print(f"  {'points':>9} {'vertices':>8} {'regions.py':>11} {'all edges':>10} {'ratio':>6}")
    g = np.random.default_rng(0)
    for n in (100_000, 1_000_000):
        xy = g.standard_normal((n, 2)).astype(np.float32)
        for m in (50, 500):
            poly = lasso(m)
            assert np.array_equal(points_in_polygon(xy, poly), crossing_all_edges(xy, poly))
            a = best_of(lambda xy=xy, poly=poly: points_in_polygon(xy, poly))
            b = best_of(lambda xy=xy, poly=poly: crossing_all_edges(xy, poly))
            print(f"  {n:>9,} {m:>8} {1000 * a:>9.1f} ms {1000 * b:>7.0f} ms {b / a:>5.0f}x")


def _drag(emb, corners, modifier) -> float:
    """Drag a lasso through ``corners``; the time just before the mouse is released."""
    viewport = emb.view.viewport()
    pixels = [emb.view.mapFromScene(emb.vb.mapViewToScene(QPointF(*c))) for c in corners]
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, modifier, pixels[0])
    for a, b in itertools.pairwise(pixels):
        for s in range(1, 11):
            p = QPoint(a.x() + (b.x() - a.x()) * s // 10, a.y() + (b.y() - a.y()) * s // 10)
            event = QMouseEvent(QEvent.Type.MouseMove, QPointF(p),
                                QPointF(viewport.mapToGlobal(p)), Qt.MouseButton.NoButton,
                                Qt.MouseButton.LeftButton, modifier)  # fmt: skip
            QApplication.sendEvent(viewport, event)
    released = time.perf_counter()
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, modifier, pixels[-1])
    return released


def part_two(n: int, timeout: float) -> bool:
    app = QApplication.instance() or QApplication([])
    pg.setConfigOption("mouseRateLimit", 0)  # every scripted move counts
    from core.records.runs import RunResult
    from mvc_gui.model.data_session import DataSession
    from mvc_gui.model.run_history import RunHistory
    from mvc_gui.run.gui_gc import collect_in_gui_thread
    from mvc_gui.run.priority import favour_event_loop
    from mvc_gui.window.main_window import MainWindow

    favour_event_loop()
    ds, labels = make_data(n, [20, 30], None)
    win = MainWindow(QSettings("/tmp/mvc_gui_selection_bench.ini", QSettings.Format.IniFormat))
    collect_in_gui_thread(freeze=True)
    win.resize(1280, 800)
    win.show()
    win._request_layout = lambda: None  # the layout is put in place below
    win.set_session(DataSession(ds), ds.summary())
    g = np.random.default_rng(1)
    centres = 6 * np.c_[np.cos(np.arange(K) * 2 * np.pi / K), np.sin(np.arange(K) * 2 * np.pi / K)]
    xy = (centres[labels] + g.standard_normal((n, 2))).astype(np.float32)
    emb, panel = win.plots["embedding"], win.selection_panel
    emb.set_layout(xy, final=True)
    history = RunHistory(1, "planted", {})
    history.result = RunResult(method="planted", params={}, labels=labels,
                               view_names=list(ds.view_names))  # fmt: skip
    history.labels = labels
    win.presenter.history = history
    win.presenter._show_labels(labels)
    panel.column_box.setCurrentIndex(panel.column_box.findText("batch"))
    emb.set_tool("lasso")
    wait_until(app, lambda: False, 1.0)
    print(f"the window, {n:,} samples, {K} clusters, counted by cluster and by 'batch':")
    shapes = [
        ("lasso", [(-9, -9), (2, -9), (2, 2), (-9, 2)], Qt.KeyboardModifier.NoModifier),
        ("Shift+lasso (adds)", [(0, 0), (9, 0), (9, 9), (0, 9)], Qt.KeyboardModifier.ShiftModifier),
        ("Ctrl+lasso (subtracts)", [(-3, -9), (3, -9), (3, 9), (-3, 9)],
         Qt.KeyboardModifier.ControlModifier),
    ]  # fmt: skip
    ok = True
    times: dict[str, float] = {}
    panel.counted.connect(lambda: times.setdefault("counted", time.perf_counter()))
    win.selection.changed.connect(lambda: times.setdefault("selected", time.perf_counter()))
    for name, corners, modifier in shapes:
        times.clear()
        meter = StallMeter()
        meter.start()
        t0 = time.perf_counter()
        released = _drag(emb, corners, modifier)
        done = wait_until(
            app, lambda: "counted" in times and panel.composition is not None, timeout
        )
        wait_until(app, lambda: False, 0.2)
        stats = meter.stop()
        ok &= done
        comp = panel.composition
        sel_ms = 1000 * (times.get("selected", np.nan) - released)
        count_ms = 1000 * (times.get("counted", np.nan) - released)
        print(f"  {name:<24} {len(win.selection):>7,} selected; release -> selected "
              f"{sel_ms:4.0f} ms, -> counted {count_ms:5.0f} ms; longest stall "
              f"{stats['max_ms']:.0f} ms (the drag itself: {1000 * (released - t0):.0f} ms); "
              f"composition of {comp.size if comp else 0:,}")  # fmt: skip
    win.close()
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--timeout", type=float, default=120.0)
    args = ap.parse_args()
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {git_rev()}, "
          f"{machine()}, load {os.getloadavg()[0]:.2f}")  # fmt: skip
    print(f"# python {' '.join(sys.argv)}")
    part_one()
    return 0 if part_two(args.n, args.timeout) else 1


if __name__ == "__main__":
    sys.exit(main())
