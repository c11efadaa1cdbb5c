"""Where the window's thread spends its time, and what an idle process sees at the same load.

Used by ``gui_responsiveness.py`` and ``gui_million.py``:

* :class:`ProfiledApp` is a ``QApplication`` whose ``notify`` times every top-level event of
  the GUI thread (its own CPU time and wall time); while an event runs, a sampler thread
  records the GUI thread's Python stack every 2 ms, so a long event names the code it was in
  (a queued signal's slot, a paint event's ``paint`` methods, a timer's callback).
* :func:`thread_sched` reads a thread's CPU time and its time waiting for a core from
  ``/proc/self/task/<tid>/schedstat`` (Linux): a stall's wall time = the GUI thread's own CPU +
  the time it was runnable but had no core + the rest (blocked: the GIL held by another of
  our threads, or the event loop idle).
* :class:`IdleProbe` runs a separate process at normal priority that only wakes every 5 ms
  and records how late it woke: the stall an idle window would show at the same load (the
  noise floor no change in the window can remove).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication

__all__ = ["EventProfiler", "IdleProbe", "ProfiledApp", "thread_sched"]

_OURS = ("mvc_gui", "core", "pyqtgraph")


def thread_sched(tid: int) -> tuple[float, float]:
    """(CPU seconds, seconds waiting on a run queue) of thread ``tid`` of this process;
    zeros where schedstat is not available."""
    try:
        run, wait, _ = Path(f"/proc/self/task/{tid}/schedstat").read_text().split()
        return int(run) / 1e9, int(wait) / 1e9
    except (OSError, ValueError):
        return 0.0, 0.0


class EventProfiler:
    """Top-level events of the GUI thread that took more than ``keep_ms`` of its own CPU."""

    def __init__(self, keep_ms: float = 2.0, sample_ms: float = 2.0) -> None:
        self.keep, self.sample = keep_ms / 1000, sample_ms / 1000
        self.main_id = threading.get_ident()
        self.events: list[dict] = []
        self.total_cpu = 0.0
        self._current: Counter | None = None
        self._on = False
        threading.Thread(target=self._sampler, daemon=True, name="stack-sampler").start()

    def start(self) -> None:
        self.events, self.total_cpu, self._on = [], 0.0, True

    def stop(self) -> list[dict]:
        self._on = False
        return self.events

    def begin(self) -> tuple[float, float, Counter]:
        samples: Counter = Counter()
        self._current = samples
        return time.perf_counter(), time.thread_time(), samples

    def end(self, started: tuple[float, float, Counter], receiver, event) -> None:
        self._current = None
        wall0, cpu0, samples = started
        cpu = time.thread_time() - cpu0
        self.total_cpu += cpu
        if cpu < self.keep or not self._on:
            return
        try:
            what = f"{type(receiver).__name__} {QEvent.Type(event.type()).name}"
        except (RuntimeError, ValueError):
            what = "(deleted receiver)"
        self.events.append(
            {
                "at": wall0,
                "cpu_ms": cpu * 1000,
                "wall_ms": (time.perf_counter() - wall0) * 1000,
                "event": what,
                "where": samples.most_common(3),
            }
        )

    def _sampler(self) -> None:
        while True:
            time.sleep(self.sample)
            samples = self._current
            if samples is None:
                continue
            frame = sys._current_frames().get(self.main_id)
            if frame is not None:
                samples[_where(frame)] += 1

    def report(self, limit_ms: float = 30.0, most: int = 8, gap=None) -> str:
        """The events over ``limit_ms`` of GUI-thread CPU, longest first, with where they were;
        with ``gap`` = (start, end), also the events (over 2 ms) inside that gap."""
        long = sorted(
            (e for e in self.events if e["cpu_ms"] > limit_ms), key=lambda e: -e["cpu_ms"]
        )
        lines = [
            f"  GUI-thread events over {limit_ms:.0f} ms of its own CPU: {len(long)} "
            f"(GUI-thread CPU in events: {self.total_cpu:.1f} s)"
        ]
        lines += [_event_line(e) for e in long[:most]]
        if gap is not None:
            inside = [e for e in self.events if gap[0] <= e["at"] <= gap[1]]
            lines.append(f"  the events over {self.keep * 1000:.0f} ms in the busiest gap:")
            lines += [_event_line(e) for e in inside[:most]]
        return "\n".join(lines)


def _event_line(e: dict) -> str:
    where = "; ".join(f"{w} x{c}" for w, c in e["where"]) or "(no Python frame sampled)"
    return f"    {e['cpu_ms']:5.0f} ms CPU ({e['wall_ms']:.0f} ms wall) {e['event']}: {where}"


def _where(frame) -> str:
    """The innermost frame of our code (mvc_gui, core, pyqtgraph) and the leaf frame."""
    leaf, ours = frame, None
    f = frame
    while f is not None:
        parts = Path(f.f_code.co_filename).parts
        if any(p in _OURS for p in parts[-4:]):
            ours = f
            break
        f = f.f_back
    text = _frame_text(ours) if ours is not None else "(outside our code)"
    if leaf is not ours:
        text += f" <- {_frame_text(leaf)}"
    return text


def _frame_text(f) -> str:
    return f"{Path(f.f_code.co_filename).name}:{f.f_lineno} {f.f_code.co_name}"


class ProfiledApp(QApplication):
    """A QApplication that hands every top-level GUI-thread event to ``profiler`` (if set)."""

    profiler: EventProfiler | None = None
    _depth = 0

    def notify(self, receiver, event) -> bool:
        p = self.profiler
        if p is None or threading.get_ident() != p.main_id:
            return super().notify(receiver, event)
        top = ProfiledApp._depth == 0
        ProfiledApp._depth += 1
        started = p.begin() if top else None
        try:
            return super().notify(receiver, event)
        finally:
            ProfiledApp._depth -= 1
            if started is not None:
                p.end(started, receiver, event)


_PROBE = r"""
import json, select, sys, time
gaps = []
last = time.perf_counter()
while True:
    ready, _, _ = select.select([sys.stdin], [], [], 0.005)
    now = time.perf_counter()
    gaps.append((now - last) * 1000 - 5.0)
    last = now
    if ready:
        break
print(json.dumps(gaps))
"""


class IdleProbe:
    """A process at normal priority waking every 5 ms: how late it wakes is the stall an
    idle window shows at the machine's current load (our children included)."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen | None = None

    def start(self) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, "-c", _PROBE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def stop(self) -> str:
        if self._proc is None:
            return "idle probe: not started"
        out, _ = self._proc.communicate("stop\n", timeout=30)
        self._proc = None
        g = np.maximum(np.array(json.loads(out)[1:] or [0.0]), 0)
        return (
            f"idle process at the same load (noise floor): wake-up late max {g.max():.0f} ms, "
            f"p99 {np.percentile(g, 99):.1f} ms over {g.size} wake-ups"
        )
