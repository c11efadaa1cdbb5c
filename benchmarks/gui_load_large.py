"""Loading a large file in the GUI: the worst event-loop stall, and how fast Cancel acts.

Writes an uncompressed NPZ of about ``--gb`` GB (3 dense float64 views) into a temporary
folder, then in the real main window (offscreen) opens it with File > Open's path (the reader
runs in a child process, the dataset comes back memory-mapped) while a 5 ms QTimer records the
gaps between its ticks (as benchmarks/gui_responsiveness.py does): a stall is a gap minus the
interval, the time the window could not react. Measured until the dataset is shown (plus
``--after`` s). Then the file is opened again and Cancel is clicked after ``--cancel-after`` s:
the time until the window says so and the reader child is gone. The file is deleted at the end.

    python benchmarks/gui_load_large.py [--gb 2] [--n 100000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
import zipfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from benchmarks.gui_responsiveness import StallMeter, StallTracer, _fmt, wait_until


def write_large_npz(path: Path, n: int, gb: float) -> int:
    """Three dense views and labels, written view by view (never all in memory)."""
    total = int(gb * 2**30 / 8 / n)
    dims = [total // 2, total // 3, total - total // 2 - total // 3]
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 10, n)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
        for i, d in enumerate(dims):
            view = rng.standard_normal((n, d)) + labels[:, None] * 0.1
            with zf.open(f"X{i}.npy", "w", force_zip64=True) as fh:
                np.lib.format.write_array(fh, view, allow_pickle=False)
            del view
        with zf.open("y.npy", "w") as fh:
            np.lib.format.write_array(fh, labels, allow_pickle=False)
    return path.stat().st_size


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gb", type=float, default=2.0)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--after", type=float, default=2.0, help="s measured after the data shows")
    ap.add_argument("--idle", type=float, default=10.0, help="s of the idle baseline")
    ap.add_argument("--cancel-after", type=float, default=3.0)
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--trace", action="store_true", help="print stacks during stalls")
    args = ap.parse_args()
    app = QApplication.instance() or QApplication([])
    from mvc_gui.window.main_window import MainWindow

    folder = Path(tempfile.mkdtemp(prefix="mvc-large-"))
    try:
        path = folder / "large.npz"
        t0 = time.perf_counter()
        size = write_large_npz(path, args.n, args.gb)
        print(f"wrote {path.name}: {size / 2**30:.2f} GB in {time.perf_counter() - t0:.0f} s")
        settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
        win = MainWindow(settings)
        win.show()
        meter = StallMeter()
        if "--trace" in sys.argv:
            StallTracer(meter, limit_ms=100.0)
        # the baseline: the same window, idle, for as long (the machine's own noise)
        wait_until(app, lambda: False, 3.0)
        meter.start()
        wait_until(app, lambda: False, args.idle)
        print(f"idle window for {args.idle:g} s: event-loop stall {_fmt(meter.stop())}")
        loaded, stages = [], []
        win.data_loaded.connect(lambda: loaded.append(time.perf_counter()))
        win.loading.failed.connect(lambda m, _d: loaded.append(m))
        meter.start()
        t0 = time.perf_counter()
        win.open_path(str(path))
        ok = wait_until(
            app,
            lambda: (stages.append(win.stage_label.text()) or True) and bool(loaded),
            args.timeout,
        )
        load_s = time.perf_counter() - t0
        wait_until(app, lambda: False, args.after)
        stall = meter.stop()
        ds = win.session.dataset if win.session else None
        print(f"load: {load_s:.1f} s, ok={ok and ds is not None}, "
              f"{'' if ds is None else f'{ds.n_samples:,} samples, dims {ds.dims}'}")  # fmt: skip
        if isinstance(loaded[-1:] and loaded[-1], str):
            print(f"  failed: {loaded[-1]}")
        print(f"  event-loop stall while loading (+{args.after:g} s): {_fmt(stall)}")
        shown = list(dict.fromkeys(s for s in stages if s.startswith("Loading")))
        print(f"  stage labels shown: {len(shown)}, e.g. {shown[:3]}")
        win.embedder.shutdown(30.0)
        # Cancel: open again, click Cancel while the child reads
        meter.start()
        worker = win.open_path(str(path))
        wait_until(app, lambda: False, args.cancel_after)
        cancelled = []
        worker.cancelled.connect(lambda: cancelled.append(time.perf_counter()))
        t1 = time.perf_counter()
        win.loading.cancel_button.click()
        wait_until(app, lambda: bool(cancelled), 30.0)
        worker.join(30.0)
        gone = time.perf_counter() - t1
        stall = meter.stop()
        said = win.stage_label.text()
        print(f"cancel after {args.cancel_after:g} s: window said so in "
              f"{(cancelled[0] - t1) * 1000 if cancelled else float('nan'):.0f} ms, "
              f"reader child gone in {gone * 1000:.0f} ms; label: {said!r}")  # fmt: skip
        print(f"  event-loop stall while loading then cancelling: {_fmt(stall)}")
        print(f"  dataset kept: {win.session is not None and win.session.dataset is ds}")
        win.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
