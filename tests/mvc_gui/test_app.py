"""``mvc-gui --demo ... --run --screenshot F --exit`` end to end, in a subprocess (the real
entry point and exit status; QApplication.exit would disturb the test's own event loop)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtGui import QImage

from mvc_gui.app import parse_args

ROOT = Path(__file__).resolve().parents[2]
FAKE = (
    "import sys; from tests.mvc_gui.fake_solver import FakeSolver; "
    "from core.methods import REGISTRY; REGISTRY['fake'] = FakeSolver; "
    "from mvc_gui.app import main; sys.exit(main(sys.argv[1:]))"
)


def run_gui(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_CONFIG_HOME": str(tmp_path),
        "HOME": str(tmp_path),
        "PYTHONPATH": str(ROOT),
    }
    return subprocess.run(
        [sys.executable, "-c", FAKE, *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_parse_args():
    a = parse_args(["--demo", "--method", "fmdc", "--run", "--exit"])
    assert a.demo == "handwritten" and a.method == "fmdc" and a.run and a.exit
    assert parse_args(["data.mat"]).file == "data.mat"


def test_demo_run_screenshot_exit(tmp_path):
    shot = tmp_path / "shot.png"
    proc = run_gui(
        tmp_path,
        "--demo",
        "synthetic-400",
        "--method",
        "fake",
        "--run",
        "--screenshot",
        str(shot),
        "--exit",
        "--size",
        "1200x800",
    )
    assert proc.returncode == 0, proc.stderr
    image = QImage(str(shot))
    assert image.width() >= 1200 and image.height() >= 800
    settings = list(tmp_path.rglob("*.conf")) + list(tmp_path.rglob("*.ini"))
    assert settings, "QSettings were not written"


def test_bad_file_exits_nonzero(tmp_path):
    proc = run_gui(tmp_path, str(tmp_path / "nope.mat"), "--run", "--exit")
    assert proc.returncode == 1
    assert "nope.mat" in proc.stderr
