"""Temporary data stores of the window's loads, and removing the ones a killed app left.

A load writes the data into a store folder (``core.data.store``) that the window and its
solver and layout children map; the window removes it when the data is replaced or the app
closes. After a kill nobody does, and a 1M-sample store is 4 GB of /tmp. Each store therefore
names its owner (process id and start time), and the next start removes the stores whose
owner is gone.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

__all__ = ["PREFIX", "new_store_dir", "remove_orphan_stores"]

PREFIX = "mvc-data-"
OWNER = "owner.txt"
UNOWNED_AFTER = 24 * 3600.0  # s: a store with no owner file (an older version) is kept a day


def _start_time(pid: int) -> str:
    """The process's start time in clock ticks since boot (Linux), '' where unknown."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def new_store_dir() -> str:
    """A new store folder owned by this process."""
    folder = tempfile.mkdtemp(prefix=PREFIX)
    pid = os.getpid()
    Path(folder, OWNER).write_text(f"{pid} {_start_time(pid)}")
    return folder


def _owner_alive(text: str) -> bool:
    parts = text.split()
    try:
        pid = int(parts[0])
        os.kill(pid, 0)
    except (ValueError, IndexError, ProcessLookupError):
        return False
    except PermissionError:
        return True  # another user's live process
    started = parts[1] if len(parts) > 1 else ""
    return not started or not _start_time(pid) or _start_time(pid) == started  # pid reused?


def remove_orphan_stores(root: str | None = None) -> list[str]:
    """Remove the stores under ``root`` (default the temp folder) whose owner has ended;
    returns the removed paths."""
    removed = []
    for folder in Path(root or tempfile.gettempdir()).glob(f"{PREFIX}*"):
        try:
            owner = folder / OWNER
            if owner.exists():
                orphan = not _owner_alive(owner.read_text())
            else:
                orphan = time.time() - folder.stat().st_mtime > UNOWNED_AFTER
        except OSError:
            continue
        if orphan and folder.is_dir():
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(str(folder))
    return removed
