"""The GUI benchmarks' profiler (benchmarks/gui_probes.py) times the GUI thread's busy stretches
without overriding ``QApplication.notify`` (whose PySide6 override lost events while a combo
box filled, 2026-11-27), and names the code a long stretch was in."""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QComboBox

from benchmarks.gui_probes import EventProfiler, process_events


def _busy_slot(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_profiler_names_a_long_slot_and_delivers_every_event(qtbot):
    app = QApplication.instance()
    combo = QComboBox()
    qtbot.addWidget(combo)
    combo.show()
    profiler = EventProfiler(keep_ms=10.0, sample_ms=1.0)
    profiler.start()
    fired = []
    QTimer.singleShot(0, lambda: combo.addItems([f"item {i}" for i in range(200)]))
    QTimer.singleShot(0, lambda: (_busy_slot(0.08), fired.append(1)))
    deadline = time.perf_counter() + 120.0
    while not fired and time.perf_counter() < deadline:
        process_events(app)
    events = profiler.stop()
    assert fired and combo.count() == 200  # the events reached their receivers
    long = [e for e in events if e["cpu_ms"] >= 60]
    assert long, events
    assert any("_busy_slot" in where for where, _ in long[0]["where"])
    assert "_busy_slot" in profiler.report(limit_ms=50)


def test_process_events_without_a_profiler_processes_events(qtbot):
    fired = []
    QTimer.singleShot(0, lambda: fired.append(1))
    deadline = time.perf_counter() + 120.0
    while not fired and time.perf_counter() < deadline:
        process_events(QApplication.instance())
    assert fired


def test_profiler_times_the_paints_of_each_plot(qtbot):
    import pyqtgraph as pg

    original = pg.GraphicsView.paintEvent
    profiler = EventProfiler(keep_ms=0.0)
    profiler.time_paints()
    try:

        class SlowPlot(pg.PlotWidget):
            pass

        SlowPlot.__module__ = "mvc_gui.plots.slow"  # what _owner looks for
        view = SlowPlot()
        qtbot.addWidget(view)
        view.plot([0, 1, 2], [3, 1, 2])
        view.show()
        profiler.start()
        view.update()
        for _ in range(20):
            process_events(QApplication.instance())
        events = profiler.stop()
    finally:
        pg.GraphicsView.paintEvent = original
    painted = [name for e in events for name, _ms in e["paints"]]
    assert "SlowPlot" in painted


def test_cpu_shares_name_the_busy_thread():
    import threading

    from benchmarks.gui_probes import CpuShares

    shares = CpuShares()
    shares.start()
    burnt, done = threading.Event(), threading.Event()

    def burn() -> None:
        _busy_slot(0.3)
        burnt.set()
        done.wait(120)  # alive while reported (a thread that ended has no task to read)

    worker = threading.Thread(target=burn, name="burner")
    worker.start()
    assert burnt.wait(120)
    report = shares.report()
    done.set()
    worker.join()
    assert report.startswith("CPU seconds by thread / child: ")
    assert "burner 0." in report  # the busy thread is named with its ~0.3 s


def test_memory_sampler_runs_apart_and_reports_each_phase():
    """gui_million's PSS sampler is a separate process (a thread of the window held its GIL
    and memory-map lock, 2026-11-27): it sees this process, names the phases it was told."""
    import os
    import sys

    import pytest

    if not sys.platform.startswith("linux"):
        pytest.skip("reads /proc")
    from benchmarks.pss_sampler import INTERVAL_S, PssSampler

    sampler = PssSampler()
    assert sampler._proc.pid != os.getpid()
    sampler.phase("first")
    time.sleep(INTERVAL_S * 1.6)
    sampler.phase("second")
    time.sleep(INTERVAL_S * 1.6)
    report = sampler.stop()
    assert report.startswith("peak summed PSS ")
    assert "during first:" in report and "during second:" in report
    window_gb = float(report.split("window ", 1)[1].split(" GB", 1)[0])
    assert window_gb > 0.01  # this process's own memory was measured
