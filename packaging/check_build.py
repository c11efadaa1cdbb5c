"""Build the one-folder app if needed, then check that the frozen programs really work.

    python packaging/check_build.py             # builds dist/mvc-studio/ if it is missing
    python packaging/check_build.py --rebuild   # always rebuilds (timed)

Checks, each with fresh HOME / XDG folders (cold numba cache, no saved settings):

1. ``mvc-studio --demo --run --method fmdc --screenshot PNG --exit`` (offscreen Qt) exits 0
   and writes a full-size, non-blank screenshot; run twice, the second run reuses the
   compiled kernels from NUMBA_CACHE_DIR (``$XDG_CACHE_HOME/mvc-studio/numba``).
2. ``mvc run --demo --method fmdc`` from another working directory: exit 0, labels and run
   record written, ACC >= 0.9, package versions recorded, no second kernel cache created;
   ``mvc sweep`` of 2 cells on 2 loky worker processes (joblib) writes 2 ok rows.
3. The GUI's child processes started the way the GUI starts them (``PROGRAM -m MODULE``):
   a full FMDC run in the solver child and a t-SNE layout in the embedding child.

Prints a short report (build time, folder size, run times); exit status 1 if a check fails.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from multiprocessing.connection import Listener
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DIST = ROOT / "dist" / "mvc-studio"
GUI = DIST / "mvc-studio"
CLI = DIST / "mvc"
sys.path.insert(0, str(ROOT))

failures: list[str] = []


def check(ok: bool, what: str) -> None:
    print(f"  [{'ok' if ok else 'FAIL'}] {what}")  # noqa: T201
    if not ok:
        failures.append(what)


def folder_size(folder: Path) -> tuple[int, int]:
    files = [p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()]
    return sum(p.stat().st_size for p in files), len(files)


def clean_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "MVC_"))}
    env.update(
        QT_QPA_PLATFORM="offscreen",
        HOME=str(home),
        XDG_CACHE_HOME=str(home / "cache"),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_DATA_HOME=str(home / "data"),
    )
    return env


def timed(
    cmd: list[str], env: dict[str, str], cwd: Path
) -> tuple[subprocess.CompletedProcess, float]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=600)
    return proc, time.perf_counter() - t0


def screenshot_facts(path: Path) -> tuple[int, int, int]:
    """Width, height and the number of distinct colours on a coarse grid."""
    from PySide6.QtGui import QImage

    image = QImage(str(path))
    colours = {
        image.pixel(x, y) for x in range(0, image.width(), 8) for y in range(0, image.height(), 8)
    }
    return image.width(), image.height(), len(colours)


def check_gui(home: Path, shot: Path, label: str) -> float:
    cmd = [str(GUI), "--demo", "--run", "--method", "fmdc", "--screenshot", str(shot), "--exit"]
    proc, seconds = timed(cmd, clean_env(home), home)
    check(proc.returncode == 0, f"GUI {label} run exits 0 ({seconds:.1f} s)")
    if proc.returncode != 0:
        print(proc.stderr[-3000:])  # noqa: T201
    if shot.is_file():
        width, height, colours = screenshot_facts(shot)
        size_kb = shot.stat().st_size / 1024
        check(
            (width, height) == (1600, 950) and colours > 50 and size_kb > 50,
            f"screenshot {width}x{height}, {colours} colours, {size_kb:.0f} KB: {shot}",
        )
    else:
        check(False, f"screenshot written: {shot}")
    return seconds


def kernel_caches(home: Path) -> set[str]:
    folder = home / "cache" / "mvc-studio" / "numba"
    return {p.name for p in folder.iterdir()} if folder.is_dir() else set()


def check_cli(home: Path) -> float:
    elsewhere = home / "elsewhere"
    elsewhere.mkdir()
    before = kernel_caches(home)
    labels, report = elsewhere / "labels.csv", elsewhere / "run.json"
    cmd = [str(CLI), "run", "--demo", "--method", "fmdc", "--out", str(labels)]
    proc, seconds = timed([*cmd, "--report", str(report), "--quiet"], clean_env(home), elsewhere)
    check(proc.returncode == 0, f"CLI run exits 0 ({seconds:.1f} s)")
    if proc.returncode != 0 or not report.is_file():
        print(proc.stderr[-3000:])  # noqa: T201
        return seconds
    record = json.loads(report.read_text())
    acc = record.get("metrics", {}).get("acc", 0.0)
    rows = len(labels.read_text().splitlines()) - 1
    check(rows == 2000 and acc >= 0.9, f"CLI labels: {rows} rows, ACC {acc:.4f}")
    versions = record.get("versions", {})
    check(
        {"numpy", "numba", "scikit-learn"} <= set(versions),
        f"run record lists package versions ({len(versions)} entries)",
    )
    check(
        kernel_caches(home) == before and not (home / "cache" / "numba").exists(),
        "kernels reused from NUMBA_CACHE_DIR when started from another folder",
    )
    return seconds


def check_sweep(home: Path) -> float:
    """joblib's loky workers (and its resource tracker) are started through the program too."""
    out = home / "elsewhere" / "sweep.csv"
    cmd = [str(CLI), "sweep", "--demo", "--method", "fmdc", "--grid", "n_neighbors=5,10"]
    cmd += ["--n-jobs", "2", "--backend", "loky", "--out", str(out), "--quiet"]
    proc, seconds = timed(cmd, clean_env(home), home / "elsewhere")
    check(proc.returncode == 0, f"CLI sweep on 2 loky workers exits 0 ({seconds:.1f} s)")
    rows = out.read_text().splitlines()[1:] if out.is_file() else []
    ok = [r for r in rows if ",ok," in r]
    check(len(rows) == 2 and len(ok) == 2, f"sweep CSV: {len(rows)} rows, {len(ok)} ok")
    if proc.returncode != 0 or len(ok) != 2:
        print(proc.stderr[-3000:])  # noqa: T201
    return seconds


def start_child(module: str, home: Path):
    """Start ``PROGRAM -m MODULE ADDRESS KEY`` as the GUI does; (process, connection or None
    if it did not connect within two minutes)."""
    key = os.urandom(16)
    listener = Listener(authkey=key)
    cmd = [str(GUI), "-m", module, listener.address, key.hex()]
    proc = subprocess.Popen(cmd, env=clean_env(home), cwd=home)
    accepted: list = []
    waiter = threading.Thread(target=lambda: accepted.append(listener.accept()), daemon=True)
    waiter.start()
    deadline = time.monotonic() + 120
    while waiter.is_alive() and proc.poll() is None and time.monotonic() < deadline:
        waiter.join(0.2)
    if not accepted:
        proc.kill()
    return proc, (accepted[0] if accepted else None)


def check_children(home: Path) -> float:
    from core.data.demo import load_demo
    from core.methods import FMDC
    from mvc_gui.run.solver_process import recv_message, send_message

    ds = load_demo("handwritten")
    methods = ["auto"] * ds.n_views
    t0 = time.perf_counter()
    proc, conn = start_child("mvc_gui.run.solver_process", home)
    check(conn is not None and conn.recv() == ("ready", None), "solver child (frozen -m) connects")
    if conn is None:
        return time.perf_counter() - t0
    job = (1, FMDC(n_clusters=10, random_state=0), ds.views, methods, ds.labels, False)
    send_message(conn, ("run", job))
    frames, end = [], None
    while end is None:
        kind, payload = recv_message(conn)
        if kind == "frame":
            frames.append(payload)
        elif kind == "end":
            end = payload
    acc = frames[-1].metrics.get("acc", 0.0) if frames else 0.0
    check(
        end.status == "finished" and acc >= 0.9,
        f"solver child run: {end.status}, {len(frames)} frames, ACC {acc:.4f}",
    )
    conn.send(("quit", None, None))
    check(proc.wait(30) == 0, "solver child exits 0 on quit")

    small = [v[:300] for v in ds.views]
    proc, conn = start_child("mvc_gui.run.embedding_process", home)
    check(conn is not None, "embedding child (frozen -m) connects")
    if conn is None:
        return time.perf_counter() - t0
    send_message(conn, ("embed", 7, (small, methods)))
    layouts, result = 0, None
    while result is None:
        kind, _job, payload = recv_message(conn)
        if kind == "frame":
            layouts += 1
        elif kind == "end":
            result = payload
    layout, error, _chosen = result
    shape = None if layout is None else layout.shape
    check(shape == (300, 2) and not error, f"embedding child: layout {shape}, {layouts} frames")
    conn.send(("quit", None, None))
    check(proc.wait(30) == 0, "embedding child exits 0 on quit")
    return time.perf_counter() - t0


def build(rebuild: bool) -> float | None:
    if GUI.is_file() and not rebuild:
        return None
    t0 = time.perf_counter()
    subprocess.run(["bash", str(ROOT / "packaging" / "build.sh")], cwd=ROOT, check=True)
    return time.perf_counter() - t0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rebuild", action="store_true", help="rebuild even if dist/ exists")
    args = parser.parse_args()
    build_seconds = build(args.rebuild)
    size, count = folder_size(DIST)
    with tempfile.TemporaryDirectory(prefix="mvc-check-") as tmp:
        home = Path(tmp)
        print("checks:")  # noqa: T201
        cold = check_gui(home, home / "cold.png", "cold-cache")
        caches = kernel_caches(home)
        check(bool(caches), f"kernels cached under NUMBA_CACHE_DIR: {sorted(caches)}")
        warm = check_gui(home, home / "warm.png", "warm-cache")
        keep = Path(tempfile.gettempdir()) / "mvc-studio-frozen-screenshot.png"
        if (home / "warm.png").is_file():
            keep.write_bytes((home / "warm.png").read_bytes())
        cli = check_cli(home)
        sweep = check_sweep(home)
        try:
            children = check_children(home)
        except (EOFError, OSError) as exc:  # a child died mid-run
            check(False, f"child processes: {exc!r}")
            children = float("nan")
    built = "reused existing build" if build_seconds is None else f"{build_seconds:.0f} s"
    print(  # noqa: T201
        f"report:\n  build: {built}\n  folder: {DIST} = {size / 2**20:.0f} MiB in {count} files\n"
        f"  GUI --demo --run --method fmdc --screenshot --exit: {cold:.1f} s cold cache, "
        f"{warm:.1f} s warm cache\n  CLI mvc run --demo --method fmdc: {cli:.1f} s\n"
        f"  CLI mvc sweep (2 cells, 2 loky workers): {sweep:.1f} s\n"
        f"  child processes (FMDC run + t-SNE of 300 samples): {children:.1f} s\n"
        f"  screenshot kept at {keep}\n"
        f"  {len(failures)} failed check(s)"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
