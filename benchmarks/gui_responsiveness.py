"""GUI responsiveness during runs: the worst event-loop stall, and how fast Stop acts.

A 5 ms QTimer in the GUI thread records the gap between its ticks while the real main
window (offscreen) runs a method with all live plots and computes the t-SNE layout. A stall
is a gap minus the 5 ms interval: the time the window could not react to input. Datasets:
Hdigit (from $MVC_DATASETS, default ../shared/datasets) and synthetic data with 100,000
samples (3 views). Then a second run is stopped after ~1 s and the time until its thread has
ended is measured.

    python benchmarks/gui_responsiveness.py [--method fmdc] [--n 100000] [--skip-hdigit]
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication

from benchmarks.gui_probes import (
    IdleProbe,
    process_events,
    steal_seconds,
    thread_faults,
    thread_sched,
)

TICK_MS = 5
TRACE = "--trace" in sys.argv


class StallMeter:
    """Gaps between the ticks of a 5 ms timer in the GUI thread (wall time), and the GUI
    thread's own CPU time within each gap. On a loaded machine a gap also holds the time the
    thread waited for a core or the GIL; its CPU time is the work that blocked the window."""

    def __init__(self) -> None:
        self.timer = QTimer()
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)
        self.tid = threading.get_native_id()
        self.gaps: list[float] = []
        self.busy: list[float] = []
        self.queued: list[float] = []  # time the thread was runnable but had no core
        self.at: list[float] = []  # when each gap ended (perf_counter)
        self.faults: list[int] = []  # major page faults of the GUI thread in each gap
        self.steal: list[float] = []  # hypervisor steal time in each gap (ms, all vCPUs)
        self._last = self._last_cpu = self._last_wait = self._t0 = 0.0

    def start(self) -> None:
        self.gaps, self.busy, self.queued, self.at, self.faults = [], [], [], [], []
        self._last_faults = thread_faults(self.tid)[1]
        self.steal, self._last_steal = [], steal_seconds()
        self._last, self._last_cpu = time.perf_counter(), time.thread_time()
        self._t0 = self._last
        self._last_wait = thread_sched(self.tid)[1]
        self.timer.start()

    def _tick(self) -> None:
        now, cpu, wait = time.perf_counter(), time.thread_time(), thread_sched(self.tid)[1]
        self.gaps.append((now - self._last) * 1000 - TICK_MS)
        self.busy.append((cpu - self._last_cpu) * 1000)
        self.queued.append((wait - self._last_wait) * 1000)
        self.at.append(now)
        faults = thread_faults(self.tid)[1]
        self.faults.append(faults - self._last_faults)
        self._last_faults = faults
        steal = steal_seconds()
        self.steal.append((steal - self._last_steal) * 1000)
        self._last_steal = steal
        self._last, self._last_cpu, self._last_wait = now, cpu, wait

    def stop(self) -> dict[str, float]:
        self.timer.stop()
        g = np.maximum(np.array(self.gaps or [0.0]), 0)
        worst = int(np.argmax(g))
        return {
            "ticks": len(g),
            "p50_ms": float(np.percentile(g, 50)),
            "p99_ms": float(np.percentile(g, 99)),
            "max_ms": float(g.max()),
            "busy_max_ms": float(max(self.busy or [0.0])),
            "worst_cpu_ms": self.busy[worst] if self.busy else 0.0,
            "worst_queued_ms": self.queued[worst] if self.queued else 0.0,
            "worst_major_faults": self.faults[worst] if self.faults else 0,
            "major_faults": int(sum(self.faults)),
            "worst_steal_ms": self.steal[worst] if self.steal else 0.0,
            # the stall the window itself is answerable for: gaps the host stole no CPU in
            "max_unstolen_ms": float(
                max((x for x, t in zip(g, self.steal, strict=False) if t == 0), default=0.0)
            ),
            "steal_ms": float(sum(self.steal)),
            # when the worst gap ended, from the start and before the stop
            "worst_at_s": self.at[worst] - self._t0 if self.at else 0.0,
            "worst_before_end_s": time.perf_counter() - self.at[worst] if self.at else 0.0,
            "top": [  # (gap ms, own CPU ms, s after the start, major faults): five longest
                (float(g[i]), self.busy[i], self.at[i] - self._t0, self.faults[i])
                for i in np.argsort(g)[::-1][:5]
                if i < len(self.at)
            ],
        }

    def busiest_gap(self) -> tuple[float, float]:
        """(start, end) of the gap in which the GUI thread used the most CPU."""
        if not self.busy:
            return 0.0, 0.0
        i = int(np.argmax(self.busy))
        return self.at[i] - (self.gaps[i] + TICK_MS) / 1000, self.at[i]


class StallTracer:
    """--trace: a watchdog thread that prints every thread's stack when the GUI thread has
    not ticked for ``limit_ms`` (it may itself wake late if C code holds the GIL)."""

    def __init__(self, meter: StallMeter, limit_ms: float = 150.0) -> None:

        self.meter, self.limit = meter, limit_ms / 1000
        self.main_id = threading.get_ident()
        self._stop = threading.Event()
        threading.Thread(target=self._watch, daemon=True).start()

    def _watch(self) -> None:
        import traceback

        reported = 0.0
        while not self._stop.wait(0.02):
            t0 = time.perf_counter()
            late = t0 - self.meter._last
            try:
                active = self.meter.timer.isActive()
            except RuntimeError:  # the timer is gone: the benchmark is ending
                return
            if active and late > self.limit and self.meter._last != reported:
                reported = self.meter._last
                print(f"--- GUI thread silent for {late * 1000:.0f} ms; stacks:", flush=True)
                for tid, frame in sys._current_frames().items():
                    who = "GUI" if tid == self.main_id else str(tid)
                    print(f"[{who}]", "".join(traceback.format_stack(frame)[-9:]), flush=True)


def wait_until(app: QApplication, cond, timeout: float) -> bool:
    deadline = time.perf_counter() + timeout
    while not cond():
        if time.perf_counter() > deadline:
            return False
        process_events(app)  # processEvents() + 1 ms pause, timed when --trace profiles
    return True


def measure(app, win, session, method: str, timeout: float) -> dict[str, object]:
    meter = StallMeter()
    if TRACE:
        StallTracer(meter)
    win.set_session(session, session.dataset.summary())
    win.method_panel.set_method(method)
    win.method_panel.reset_defaults()
    finished, failed = [], []
    c = win.controller
    c.run_finished.connect(finished.append)
    c.run_failed.connect(lambda m, d: failed.append(m))
    probe = IdleProbe()  # the noise floor: an idle process's wake-ups at the same load
    probe.start()
    meter.start()
    t0 = time.perf_counter()
    win.run()
    ok = wait_until(app, lambda: bool(finished or failed), timeout)
    run_s = time.perf_counter() - t0
    run_stats = meter.stop()
    run_floor = probe.stop()
    probe.start()
    meter.start()
    t1 = time.perf_counter()
    wait_until(app, lambda: not win.embedder.busy, timeout)
    layout_s = time.perf_counter() - t1
    layout_stats = meter.stop()
    layout_floor = probe.stop()
    out: dict[str, object] = {
        "n": session.dataset.n_samples,
        "run_s": run_s,
        "ok": ok,
        "failed": failed[:1],
        "run_stall": run_stats,
        "run_floor": run_floor,
        "layout_wait_s": layout_s,
        "layout_stall": layout_stats,
        "layout_floor": layout_floor,
    }
    if finished:
        out["metrics"] = {k: round(v, 4) for k, v in finished[-1].result.metrics.items()}
    # stop latency: a fresh run, stopped once it has run ~1 s (or reached an iteration)
    win.run()
    wait_until(app, lambda: False, 1.0)
    worker = c._worker
    t2 = time.perf_counter()
    win.stop()
    ui_s = time.perf_counter() - t2
    if worker is not None:
        worker.join(30)
    out["stop_ui_ms"] = ui_s * 1000
    out["stop_thread_ms"] = (time.perf_counter() - t2) * 1000
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--method", default="fmdc")
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--skip-hdigit", action="store_true")
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--trace", action="store_true", help="print stacks during stalls")
    args = ap.parse_args()
    app = QApplication.instance() or QApplication([])
    from core.data.io import load_dataset
    from mvc_gui.model.data_session import DataSession, make_synthetic
    from mvc_gui.run.gui_gc import collect_in_gui_thread
    from mvc_gui.run.priority import favour_event_loop
    from mvc_gui.window.main_window import MainWindow

    favour_event_loop()  # as mvc-gui does at start (mvc_gui/app.py)

    settings = QSettings(str(Path("/tmp") / "mvc_gui_bench.ini"), QSettings.Format.IniFormat)
    win = MainWindow(settings)
    collect_in_gui_thread(freeze=True)  # as mvc-gui does once its window is built
    win.resize(1600, 950)
    win.show()
    cases = []
    if not args.skip_hdigit:
        root = Path(os.environ.get("MVC_DATASETS", Path(__file__).parents[2] / "shared/datasets"))
        cases.append(("Hdigit", lambda: DataSession(load_dataset(root / "Hdigit.mat"))))
    cases.append((f"synthetic-{args.n}", lambda: DataSession(make_synthetic(args.n))))
    for name, make in cases:
        res = measure(app, win, make(), args.method, args.timeout)
        print(f"\n== {name} (n={res['n']:,}, method={args.method}) ==")
        print(f"run: {res['run_s']:.1f} s, finished={res['ok']} {res['failed'] or ''}")
        print(f"  event-loop stall during run:    {_fmt(res['run_stall'])}")
        print(f"  {res['run_floor']}")
        print(f"layout after run: waited {res['layout_wait_s']:.1f} s more")
        print(f"  event-loop stall during layout: {_fmt(res['layout_stall'])}")
        print(f"  {res['layout_floor']}")
        print(
            f"stop: UI reacted in {res['stop_ui_ms']:.1f} ms, "
            f"worker thread ended {res['stop_thread_ms']:.0f} ms after Stop"
        )
        if "metrics" in res:
            print(f"metrics: {res['metrics']}")
    win.close()
    return 0


def _fmt(s: dict[str, float]) -> str:
    """The stall figures; the worst gap is split into the GUI thread's own CPU, its wait for
    a core, and the rest (blocked: the GIL held by another thread of the window, or idle)."""
    rest = s["max_ms"] + TICK_MS - s["worst_cpu_ms"] - s["worst_queued_ms"]
    return (
        f"max {s['max_ms']:.0f} ms, p99 {s['p99_ms']:.1f} ms, p50 {s['p50_ms']:.1f} ms "
        f"over {s['ticks']} ticks; GUI-thread CPU in one gap: max {s['busy_max_ms']:.0f} ms; "
        f"worst gap = own CPU {s['worst_cpu_ms']:.0f} + waiting for a core "
        f"{s['worst_queued_ms']:.0f} + other {max(rest, 0):.0f} ms "
        f"({s.get('worst_major_faults', 0)} major page faults, "
        f"{s.get('worst_steal_ms', 0):.0f} ms stolen by the hypervisor; in the phase "
        f"{s.get('major_faults', 0)} and {s.get('steal_ms', 0) / 1000:.1f} s; worst gap with no "
        f"steal {s.get('max_unstolen_ms', s['max_ms']):.0f} ms), "
        f"{s['worst_at_s']:.1f} s after the start, {s['worst_before_end_s']:.1f} s before the end; "
        "longest gaps (ms, own CPU ms, major faults @ s): "
        + ", ".join(f"{g:.0f}, {c:.0f}, {f} @ {t:.1f}" for g, c, t, f in s.get("top", []))
    )


if __name__ == "__main__":
    sys.exit(main())
