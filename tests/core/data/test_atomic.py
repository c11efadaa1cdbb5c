"""Atomic writes: a kill -9 at any moment leaves the old file or the new one, never a torn one;
a failed write leaves no temporary file; the file keeps its mode."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from core.data.atomic import atomic_path, atomic_write, open_atomic

WRITER = """
import sys
sys.path.insert(0, {root!r})
from core.data.atomic import atomic_write
path, i = sys.argv[1], 0
print("ready", flush=True)
while True:  # each version is one long line of its own digit, 4 MB
    i += 1
    atomic_write(path, str(i % 10) * (4 << 20) + "\\n")
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_kill_9_during_writes_never_leaves_a_torn_file(tmp_path):
    target = tmp_path / "labels.csv"
    atomic_write(target, "0" * (4 << 20) + "\n")
    root = str(Path(__file__).resolve().parents[3])
    rng = np.random.default_rng(0)
    for _ in range(12):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER.format(root=root), str(target)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(float(rng.uniform(0.0, 0.3)))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        text = target.read_text()
        assert len(text) == (4 << 20) + 1 and len(set(text[:-1])) == 1, "torn file"
    # a killed write can leave its hidden temporary file behind, never anything else
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "labels.csv"]
    assert all(n.startswith(".labels.csv.") and n.endswith(".tmp") for n in leftovers)


def test_a_failed_write_keeps_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "run.json"
    atomic_write(target, "old")
    with pytest.raises(RuntimeError), open_atomic(target) as fh:
        fh.write("half of the new")
        raise RuntimeError("disk full")
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["run.json"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_mode_is_kept_or_the_usual_one(tmp_path):
    target = tmp_path / "a.csv"
    atomic_write(target, "x")
    umask = os.umask(0o022)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask
    target.chmod(0o640)
    atomic_write(target, b"y")
    assert target.stat().st_mode & 0o777 == 0o640 and target.read_bytes() == b"y"
    with atomic_path(tmp_path / "plot.png", suffix=".png") as tmp:
        tmp.write_bytes(b"png")
    assert (tmp_path / "plot.png").read_bytes() == b"png"
