"""A million samples in the GUI: open the file, run a method, see the layout (issue 13, item 5).

Writes a synthetic float32 dataset (``--n`` samples, 3 views of 100/300/600 features, 10
clusters; benchmarks/_scale_data.py) as an uncompressed NPZ, then in the real main window
(offscreen) opens it the way File > Open does (reader child, memory-mapped store), runs
``--method`` with its defaults (solver child) and waits for the layout (layout child). A 5 ms
QTimer records the event-loop stalls of each phase (as benchmarks/gui_responsiveness.py), and
a sampler process (benchmarks/pss_sampler.py: not a thread of the window, whose GIL and
memory-map lock it would take) records the summed proportional set size (PSS: shared pages
counted once across the processes that map them) of the window's process and its children.

    python benchmarks/gui_million.py [--n 1000000] [--method fmdc] [--folder /tmp/mvc-1m]
        [--dims 100,300,600] [--trace] [--screenshot PNG]

Each phase also reports how late an idle process at normal priority woke at the same load
(the noise floor: benchmarks/gui_probes.IdleProbe) and how the worst stall splits into the
GUI thread's own CPU, its wait for a core and the rest. ``--trace`` lists the GUI thread's
busy stretches (one ``processEvents()`` each) that took more than 30 ms of its own CPU or were
held up for more than 30 ms, with the code they were in (benchmarks/gui_probes.py).
``--dims 4,6,10`` keeps the window's work (it depends on n, not on the dimensions) at a
fraction of the memory and run time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import zipfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _scale_data import (
    GENERATOR_VERSION,
    SCALE_DIMS,
    load_average,
    synthetic_file,
    write_synthetic,
)
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from benchmarks.gui_probes import CpuShares, EventProfiler, IdleProbe
from benchmarks.gui_responsiveness import StallMeter, StallTracer, _fmt, wait_until
from benchmarks.pss_sampler import PssSampler


def write_npz(folder: Path, n: int, dims: tuple[int, ...] = SCALE_DIMS) -> Path:
    """The synthetic views as ``X0..`` and ``y`` in a stored (uncompressed) NPZ."""
    tag = "" if tuple(dims) == SCALE_DIMS else "_" + "-".join(map(str, dims))
    data = write_synthetic(folder / f"npy{tag}", n, dims, 10, "float32")
    path = folder / f"synthetic_{n}{tag}_v{GENERATOR_VERSION}.npz"
    if path.exists():
        return path
    tmp = path.with_suffix(".part")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
        for i in range(len(dims)):
            zf.write(data / f"view{i}.npy", f"X{i}.npy")
        zf.write(data / "labels.npy", "y.npy")
    tmp.rename(path)
    return path


class Phases:
    """Per phase: the stall meter, the idle probe at the same load, the summed PSS and (with
    ``--trace``) the GUI thread's busy stretches over 30 ms."""

    def __init__(self, pss: PssSampler, trace: float | None, stacks: bool) -> None:
        self.pss, self.meter, self.probe = pss, StallMeter(), IdleProbe()
        self.cpu = CpuShares()
        self.limit = trace or 30.0
        self.profiler = EventProfiler() if trace else None
        if self.profiler is not None:
            self.profiler.time_paints()
        if stacks:
            StallTracer(self.meter)

    def start(self, name: str) -> None:
        self.pss.phase(name)
        self.probe.start()
        self.cpu.start()
        if self.profiler is not None:
            self.profiler.start()
        self.meter.start()

    def stop(self) -> str:
        """The phase's stall line, the noise floor and the long events."""
        lines = [_fmt(self.meter.stop()), "  " + self.cpu.report(), "  " + self.probe.stop()]
        if self.profiler is not None:
            self.profiler.stop()
            lines.append(self.profiler.report(self.limit, gap=self.meter.busiest_gap()))
        return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--dims", default=",".join(map(str, SCALE_DIMS)), help="view dimensions")
    ap.add_argument("--method", default="fmdc")
    ap.add_argument("--folder", default=None, help="where the data are written (kept)")
    ap.add_argument("--timeout", type=float, default=1800.0)
    ap.add_argument("--after-frame", type=float, default=60.0, help="s watched after a frame")
    ap.add_argument("--trace", action="store_true", help="GUI-thread busy stretches over 30 ms")
    ap.add_argument("--trace-ms", type=float, default=30.0, help="--trace: list stretches over")
    ap.add_argument("--trace-stacks", action="store_true", help="stacks during stalls > 150 ms")
    ap.add_argument("--profile", default=None, help="cProfile stats of the GUI thread during "
                    "the run and the layout, written to PROFILE.run / PROFILE.layout")  # fmt: skip
    ap.add_argument("--screenshot", default=None, help="PNG of the window at the end")
    ap.add_argument("--skip-run", action="store_true", help="only open the file (and wait for "
                    "the exact summary of a memory-mapped one)")  # fmt: skip
    args = ap.parse_args()
    dims = tuple(int(d) for d in args.dims.split(","))
    path = synthetic_file(args.folder, "mvc-gui", args.n, write_npz, dims)
    folder = path.parent
    app = QApplication.instance() or QApplication([])
    from mvc_gui.run.gui_gc import collect_in_gui_thread
    from mvc_gui.run.priority import favour_event_loop
    from mvc_gui.window.main_window import MainWindow

    favour_event_loop()  # as mvc-gui does at start (mvc_gui/app.py)
    settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    pss = PssSampler()
    phases = Phases(pss, args.trace_ms if args.trace else None, args.trace_stacks)
    win = MainWindow(settings)  # after Phases: --trace times the plots' paint events
    collect_in_gui_thread(freeze=True)  # as mvc-gui does once its window is built
    win.resize(1280, 800)
    win.show()
    wait_until(app, lambda: False, 2.0)
    phases.start("idle")
    wait_until(app, lambda: False, 5.0)
    print(f"idle window, 5 s: event-loop stall {phases.stop()}")

    loaded: list[object] = []
    win.data_loaded.connect(lambda: loaded.append(time.perf_counter()))
    win.loading.failed.connect(lambda m, _d: loaded.append(m))
    phases.start("open")
    t0 = time.perf_counter()
    win.open_path(str(path))
    wait_until(app, lambda: bool(loaded), args.timeout)
    wait_until(app, lambda: False, 1.0)
    secs = time.perf_counter() - t0 - 1.0
    print(f"open: {secs:.1f} s to the dataset panel; stall {phases.stop()}")
    if not loaded or isinstance(loaded[0], str) or win.session is None:
        print(f"  failed: {loaded[:1]}")
        return 1
    ds = win.session.dataset
    print(f"  {ds.n_samples:,} samples, dims {ds.dims}, dtypes {[v.dtype.name for v in ds.views]}")
    if args.skip_run:
        return _open_only(app, win, pss, phases, t0, args.timeout)

    frames: list[tuple[float, bool]] = []
    win.embedder.layout_updated.connect(
        lambda _l, final: frames.append((time.perf_counter(), final))
    )
    finished, failed = [], []
    win.controller.run_finished.connect(finished.append)
    win.controller.run_failed.connect(lambda m, _d: failed.append(m))
    win.method_panel.set_method(args.method)
    win.method_panel.reset_defaults()
    phases.start("run")
    profile = _profile_start(args.profile)
    t0 = time.perf_counter()
    win.run()
    wait_until(app, lambda: bool(finished or failed), args.timeout)
    t_end = time.perf_counter()
    _profile_stop(profile, args.profile, "run")
    print(f"run ({args.method}): {t_end - t0:.1f} s, ok={bool(finished)} {failed[:1] or ''}")
    print(f"  event-loop stall during the run: {phases.stop()}")
    if finished:
        print(f"  metrics: { {k: round(v, 4) for k, v in finished[-1].result.metrics.items()} }")
    phases.start("layout after the run")
    profile = _profile_start(args.profile)
    # the layout child starts with the data, so frames may predate the run's end; a 1M layout
    # refines for many minutes: wait for points on screen, then --after-frame seconds more
    wait_until(app, lambda: bool(frames) or not win.embedder.busy, args.timeout)
    t_frame = time.perf_counter()
    done = lambda: any(f for _t, f in frames) or not win.embedder.busy  # noqa: E731
    wait_until(app, lambda: done() or time.perf_counter() - t_frame > args.after_frame, 1e9)
    first = f"{max(frames[0][0] - t_end, 0.0):.1f} s" if frames else "none"
    final = [t for t, f in frames if f]
    last = f"{final[-1] - t_end:.1f} s" if final else f"not within {args.after_frame:g} s more"
    print(f"layout: on screen {first} after the run's end, final {last}, {len(frames)} frames")
    _profile_stop(profile, args.profile, "layout")
    print(f"  event-loop stall during the layout: {phases.stop()}")
    print(pss.stop())
    if args.screenshot:
        emb = win.plots["embedding"]
        emb.scatter.wait_rendered()
        wait_until(app, lambda: False, 0.5)
        win.grab().save(args.screenshot)
        emb.grab().save(str(Path(args.screenshot).with_suffix("")) + "_embedding.png")
        print(f"screenshots: {args.screenshot} (+ _embedding.png)")
    print(f"load average at the end: {load_average()}")
    win.close()
    return 0


def _profile_start(path: str | None):
    """--profile: a deterministic profile of the GUI thread (cProfile sees only the thread it
    was enabled in: the window's own Python work, Qt's calls included as builtins)."""
    if path is None:
        return None
    import cProfile

    profile = cProfile.Profile()
    profile.enable()
    return profile


def _profile_stop(profile, path: str | None, phase: str) -> None:
    if profile is None:
        return
    profile.disable()
    profile.dump_stats(f"{path}.{phase}")
    print(f"  GUI-thread profile of the {phase}: {path}.{phase} (python -m pstats)")


def _open_only(app, win, pss, phases: Phases, t0: float, timeout: float) -> int:
    """--skip-run: wait for the exact summary of a memory-mapped file, then stop."""
    exact: list[float] = []
    win.loading.summary_updated.connect(lambda: exact.append(time.perf_counter()))
    phases.start("exact summary")
    if win.session.store_dir is None:  # mapped in place: the exact summary follows
        header = win.dataset_panel.header.text
        wait_until(app, lambda: bool(exact) or "summary from" not in header(), timeout)
        when = f"{exact[0] - t0:.1f} s after the open started" if exact else "not in time"
        print(f"exact summary: {when}")
    print(f"  stall meanwhile {phases.stop()}")
    print(pss.stop())
    win.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
