"""Where the window's thread spends its time, and what an idle process sees at the same load.

Used by ``gui_responsiveness.py`` and ``gui_million.py``:

* :class:`EventProfiler` times the GUI thread's **busy stretches**: the benchmarks drive the
  event loop themselves (:func:`process_events`, called by ``wait_until``), so each
  ``processEvents()`` call is one stretch of event handling (timers, queued signals, paints),
  timed in its own CPU and wall time. While a stretch runs, a sampler thread records the GUI
  thread's Python stack every 2 ms (so a long stretch names the code it was in) and where the
  window's other threads were (so a stretch that waited, not worked, names who held the GIL).
  Nothing overrides ``QApplication.notify``: PySide6 hands a Python ``notify`` override
  receivers that are not QObjects (a ``QWidgetItem`` while a combo box fills), and calling
  the base class with them raised ``TypeError`` and lost the event (2026-11-27).
* :func:`thread_sched` reads a thread's CPU time and its time waiting for a core from
  ``/proc/self/task/<tid>/schedstat`` (Linux): a stall's wall time = the GUI thread's own CPU +
  the time it was runnable but had no core + the rest (blocked: the GIL held by another of
  our threads, a page fault on a memory map, or the event loop idle).
* :class:`IdleProbe` runs a separate process at normal priority that only wakes every 5 ms
  and records how late it woke: the stall an idle window would show at the same load (the
  noise floor no change in the window can remove).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np

__all__ = [
    "CpuShares",
    "EventProfiler",
    "IdleProbe",
    "children",
    "process_events",
    "process_name",
    "steal_seconds",
    "thread_faults",
    "thread_sched",
]

_OURS = ("mvc_gui", "core", "pyqtgraph")
#: leaf frames of threads that wait (queue, pipe, condition), not work
_WAITING = {
    *("wait", "_wait_for_tstate_lock", "get", "recv", "recv_bytes", "_recv", "_recv_bytes"),
    *("poll", "_poll", "select", "accept", "readinto", "_sampler", "_run", "_watch"),
}
_ACTIVE: list[EventProfiler] = []  # the profiler process_events() reports to, if any


_SCHEDSTAT: dict[int, int] = {}  # tid: open descriptor of its schedstat


def thread_sched(tid: int) -> tuple[float, float]:
    """(CPU seconds, seconds waiting on a run queue) of thread ``tid`` of this process;
    zeros where schedstat is not available. The file stays open and is re-read with
    ``pread`` (~5 us: opening it through pathlib twice per busy stretch cost the GUI thread
    21 s over a 1M run)."""
    try:
        fd = _SCHEDSTAT.get(tid)
        if fd is None:
            fd = _SCHEDSTAT[tid] = os.open(f"/proc/self/task/{tid}/schedstat", os.O_RDONLY)
        run, wait, _ = os.pread(fd, 128, 0).split()
        return int(run) / 1e9, int(wait) / 1e9
    except (OSError, ValueError, AttributeError):
        return 0.0, 0.0


_STAT: dict[int, int] = {}  # tid: open descriptor of its stat


def thread_faults(tid: int) -> tuple[int, int]:
    """(minor, major) page faults of thread ``tid`` of this process so far; zeros where
    /proc is not available. A major fault waits for the disk: blocked time in a stall that
    is neither CPU nor waiting for a core."""
    try:
        fd = _STAT.get(tid)
        if fd is None:
            fd = _STAT[tid] = os.open(f"/proc/self/task/{tid}/stat", os.O_RDONLY)
        fields = os.pread(fd, 1024, 0).rsplit(b")", 1)[1].split()
        return int(fields[7]), int(fields[9])  # minflt, majflt (after state, ppid, ...)
    except (OSError, ValueError, IndexError):
        return 0, 0


_PROC_STAT: list[int] = []  # open descriptor of /proc/stat
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def steal_seconds() -> float:
    """CPU time the hypervisor gave to other guests while this machine's vCPUs wanted to run
    (all vCPUs summed, /proc/stat "steal"; 0 where unavailable): time a thread can neither
    run nor queue for, so it shows as blocked in a stall."""
    try:
        if not _PROC_STAT:
            _PROC_STAT.append(os.open("/proc/stat", os.O_RDONLY))
        return int(os.pread(_PROC_STAT[0], 256, 0).split(b"\n", 1)[0].split()[8]) / _TICK
    except (OSError, ValueError, IndexError):
        return 0.0


def process_events(app, pause: float = 0.001) -> None:
    """``app.processEvents()`` then ``time.sleep(pause)`` (one turn of the benchmarks' event
    loop), timed by the active :class:`EventProfiler` if there is one."""
    if _ACTIVE and threading.get_ident() == _ACTIVE[0].main_id:
        _ACTIVE[0].process(app, pause)
    else:
        app.processEvents()
        time.sleep(pause)


class CpuShares:
    """CPU seconds of each thread of this process (by its Python name) and of each child
    process between :meth:`start` and :meth:`report`: who competed with the GUI thread."""

    def __init__(self) -> None:
        self._t0: dict[str, float] = {}

    def _now(self) -> dict[str, float]:
        out: dict[str, float] = {}
        names = {t.native_id: t.name for t in threading.enumerate()}
        main = threading.main_thread().native_id
        for task in Path("/proc/self/task").iterdir():
            tid = int(task.name)
            name = "GUI" if tid == main else names.get(tid, "other")
            try:
                out[name] = (
                    out.get(name, 0.0) + int((task / "schedstat").read_text().split()[0]) / 1e9
                )
            except (OSError, ValueError, IndexError):
                pass
        tick = os.sysconf("SC_CLK_TCK")
        for kid in _descendants(os.getpid()):
            try:
                stat = Path(f"/proc/{kid}/stat").read_text().rsplit(")", 1)[1].split()
                name = process_name(kid)
                nice = int(stat[16])
                key = f"{name} (nice {nice})"
                out[key] = out.get(key, 0.0) + (int(stat[11]) + int(stat[12])) / tick
            except (OSError, ValueError, IndexError):
                pass
        return out

    def start(self) -> None:
        self._t0 = self._now()

    def report(self) -> str:
        now = self._now()
        used = {k: v - self._t0.get(k, 0.0) for k, v in now.items()}
        top = sorted(((v, k) for k, v in used.items() if v >= 0.05), reverse=True)
        return "CPU seconds by thread / child: " + ", ".join(f"{k} {v:.1f}" for v, k in top)


def children(pid: int) -> list[int]:
    """Child pids from /proc/<pid>/task/*/children (a scan of all of /proc would hold the
    GIL for tens of ms every sample and show up as stalls of the window it measures)."""
    kids = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            kids.extend(int(p) for p in task.read_text().split())
        except (OSError, ValueError):
            pass
    return kids


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        kids = children(todo.pop())
        out += kids
        todo += kids
    return out


def process_name(pid: int, window: int | None = None) -> str:
    """ "window" for the window's process (``window``, default this one), else the child's
    module (solver_process, ...)."""
    if pid == (window or os.getpid()):
        return "window"
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return str(pid)
    mods = [a.decode() for a in args if a.startswith((b"mvc_gui.", b"core.")) or a.endswith(b".py")]
    if mods:
        return mods[0].rsplit(".", 1)[-1]
    return "idle probe" if b"-c" in args else str(pid)


class EventProfiler:
    """The GUI thread's busy stretches (one ``processEvents()`` each) that took more than
    ``keep_ms`` of its own CPU or ``keep_ms`` more wall time than CPU (it was held up);
    created in the GUI thread, active from :meth:`start` to :meth:`stop`."""

    def __init__(self, keep_ms: float = 2.0, sample_ms: float = 2.0) -> None:
        self.keep, self.sample = keep_ms / 1000, sample_ms / 1000
        self.main_id = threading.get_ident()
        self.main_tid = threading.get_native_id()
        self.events: list[dict] = []
        self.total_cpu = 0.0
        self._current: tuple[Counter, Counter] | None = None
        self._paints: Counter | None = None  # GUI-thread CPU per plot painted in the stretch
        self._pausing = False  # in the pause after processEvents(): not the GUI's own code
        threading.Thread(target=self._sampler, daemon=True, name="stack-sampler").start()

    def start(self) -> None:
        self.events, self.total_cpu = [], 0.0
        _ACTIVE[:] = [self]

    def stop(self) -> list[dict]:
        _ACTIVE[:] = []
        return self.events

    def process(self, app, pause: float) -> None:
        """One busy stretch: ``app.processEvents()`` and the pause after it, timed and
        sampled (the GUI thread gets the GIL back after the pause: a long wait there is a
        stretch held up by another thread)."""
        samples: tuple[Counter, Counter] = (Counter(), Counter())
        self._current, self._pausing, self._paints = samples, False, Counter()
        wall0, cpu0, queued0 = time.perf_counter(), time.thread_time(), self._queued()
        try:
            app.processEvents()
            self._pausing = True
            time.sleep(pause)
        finally:
            self._current, paints, self._paints = None, self._paints, None
            cpu = time.thread_time() - cpu0
            wall = time.perf_counter() - wall0 - pause
            self.total_cpu += cpu
            if cpu >= self.keep or wall - cpu >= self.keep:
                self.events.append(
                    {
                        "at": wall0,
                        "cpu_ms": cpu * 1000,
                        "wall_ms": wall * 1000,
                        "queued_ms": (self._queued() - queued0) * 1000,
                        "where": samples[0].most_common(3),
                        "others": samples[1].most_common(3),
                        "paints": paints.most_common(4),
                    }
                )

    def time_paints(self) -> None:
        """Also time each pyqtgraph view's paint event (GUI-thread CPU per plot) within a
        stretch. Call before the window is built: PySide6 may not see a later override."""
        import pyqtgraph as pg

        original, profiler = pg.GraphicsView.paintEvent, self

        def paint_event(view, ev):
            t0 = time.thread_time()
            try:
                return original(view, ev)
            finally:
                paints = profiler._paints
                if paints is not None:
                    paints[_owner(view)] += (time.thread_time() - t0) * 1000

        pg.GraphicsView.paintEvent = paint_event

    def _queued(self) -> float:
        return thread_sched(self.main_tid)[1]

    def _sampler(self) -> None:
        while True:
            time.sleep(self.sample)
            samples = self._current
            if samples is None:
                continue
            frames = sys._current_frames()
            frame = frames.get(self.main_id)
            if frame is not None and not self._pausing:
                samples[0][_where(frame)] += 1
            names = {t.ident: t.name for t in threading.enumerate()}
            mine = threading.get_ident()
            for ident, other in frames.items():
                if ident in (self.main_id, mine):
                    continue
                if other.f_code.co_name in _WAITING:
                    continue  # a thread waiting for work holds no GIL
                samples[1][f"[{names.get(ident, ident)}] {_where(other)}"] += 1

    def report(self, limit_ms: float = 30.0, most: int = 8, gap=None) -> str:
        """The stretches over ``limit_ms`` of GUI-thread CPU and those held up over
        ``limit_ms`` (wall - CPU), longest first, with where they were; with ``gap`` =
        (start, end), also the stretches (over 2 ms) inside that gap."""
        long = sorted(
            (e for e in self.events if e["cpu_ms"] > limit_ms), key=lambda e: -e["cpu_ms"]
        )
        held = sorted(
            (e for e in self.events if e["wall_ms"] - e["cpu_ms"] > limit_ms),
            key=lambda e: e["cpu_ms"] - e["wall_ms"],
        )
        lines = [
            f"  GUI-thread busy stretches over {limit_ms:.0f} ms of its own CPU: {len(long)} "
            f"(GUI-thread CPU in stretches: {self.total_cpu:.1f} s)"
        ]
        lines += [_event_line(e) for e in long[:most]]
        lines.append(f"  stretches held up over {limit_ms:.0f} ms (wall - CPU): {len(held)}")
        lines += [_event_line(e) for e in held[:most]]
        if gap is not None:
            inside = [e for e in self.events if gap[0] - 0.01 <= e["at"] <= gap[1]]
            lines.append(f"  the stretches over {self.keep * 1000:.0f} ms in the busiest gap:")
            lines += [_event_line(e) for e in inside[:most]]
        return "\n".join(lines)


def _event_line(e: dict) -> str:
    where = "; ".join(f"{w} x{c}" for w, c in e["where"]) or "(no Python frame sampled)"
    line = (
        f"    {e['cpu_ms']:5.0f} ms CPU ({e['wall_ms']:.0f} ms wall, "
        f"{e['queued_ms']:.0f} ms waiting for a core): {where}"
    )
    if e.get("paints"):
        line += "\n      paints (ms CPU): " + ", ".join(f"{w} {ms:.0f}" for w, ms in e["paints"])
    if e["others"] and e["wall_ms"] - e["cpu_ms"] - e["queued_ms"] > 10:
        line += "\n      other threads meanwhile: " + "; ".join(f"{w} x{c}" for w, c in e["others"])
    return line


def _owner(view) -> str:
    """The class of the plot (mvc_gui) a pyqtgraph view belongs to."""
    w = view
    while w is not None:
        if type(w).__module__.startswith("mvc_gui"):
            return type(w).__name__
        w = w.parent()
    return type(view).__name__


def _where(frame) -> str:
    """The innermost frame of our code (mvc_gui, core, pyqtgraph) and the leaf frame."""
    ours = None
    f = frame
    while f is not None:
        parts = Path(f.f_code.co_filename).parts
        if any(p in _OURS for p in parts[-4:]):
            ours = f
            break
        f = f.f_back
    text = _frame_text(ours) if ours is not None else "(outside our code)"
    if frame.f_code is EventProfiler.process.__code__:
        return "(in Qt: no Python frame below processEvents)"
    if frame is not ours:
        text += f" <- {_frame_text(frame)}"
    return text


def _frame_text(f) -> str:
    return f"{Path(f.f_code.co_filename).name}:{f.f_lineno} {f.f_code.co_name}"


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
