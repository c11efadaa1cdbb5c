"""A killed app leaves its data store in the temp folder; the next start removes it, and only
stores whose owner has ended."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from mvc_gui.model import data_stores
from mvc_gui.model.data_stores import new_store_dir, remove_orphan_stores


def test_stores_of_ended_owners_are_removed_and_live_ones_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(data_stores.tempfile, "tempdir", str(tmp_path))
    mine = Path(new_store_dir())
    (mine / "view0.npy").write_bytes(b"x" * 100)
    # a store made by a process that has ended (as after a kill)
    code = "from mvc_gui.model.data_stores import new_store_dir; print(new_store_dir())"
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    dead = Path(subprocess.check_output([sys.executable, "-c", code], env=env, text=True).strip())
    assert dead.parent == tmp_path and dead.exists()
    # a store of an older version (no owner file): kept for a day, then removed
    old = tmp_path / f"{data_stores.PREFIX}old"
    old.mkdir()
    recent = tmp_path / f"{data_stores.PREFIX}recent"
    recent.mkdir()
    day_ago = time.time() - data_stores.UNOWNED_AFTER - 60
    os.utime(old, (day_ago, day_ago))
    other = tmp_path / "someone-else"
    other.mkdir()

    removed = remove_orphan_stores(str(tmp_path))

    assert sorted(removed) == sorted([str(dead), str(old)])
    assert mine.exists() and recent.exists() and other.exists() and not dead.exists()


def test_an_owner_line_with_a_reused_pid_is_an_orphan(tmp_path):
    folder = tmp_path / f"{data_stores.PREFIX}reused"
    folder.mkdir()
    # our own pid, but a start time that is not ours: the pid was reused after the owner died
    (folder / data_stores.OWNER).write_text(f"{os.getpid()} 1")
    if not data_stores._start_time(os.getpid()):
        (folder / data_stores.OWNER).write_text("999999999")  # no /proc: a pid that cannot exist
    assert remove_orphan_stores(str(tmp_path)) == [str(folder)]
