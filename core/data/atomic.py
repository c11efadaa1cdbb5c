"""Atomic file writes: a temporary file in the target's folder, flushed to disk, then renamed
over the target. A crash or a kill at any moment leaves the old file or the new one, never a
torn one, and a failed write leaves no temporary file behind.

The new file keeps the mode of the file it replaces, or gets the mode a plain ``open`` would
give (``mkstemp`` alone makes it private, 0600).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

__all__ = ["atomic_path", "atomic_write", "check_writable", "open_atomic"]


def _read_umask() -> int:
    """The process umask, read once at import (os.umask both reads and sets it, which is
    not safe once worker threads create files)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable (POSIX; a no-op where folders cannot be opened)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], suffix: str = ".tmp") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; when the block ends without an error the file
    written there (by any writer: h5py, an image library...) is synced and renamed onto
    ``path``, else removed."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = target.stat().st_mode & 0o777 if target.exists() else 0o666 & ~_UMASK
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=suffix, dir=target.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
        _fsync_dir(target.parent)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


@contextlib.contextmanager
def open_atomic(path: str | os.PathLike[str], mode: str = "w") -> Iterator[IO]:
    """``open`` for writing (``"w"`` text as UTF-8 with untranslated newlines, or ``"wb"``)
    whose content replaces ``path`` only when the block ends without an error."""
    if mode not in ("w", "wb"):
        raise ValueError(f"open_atomic writes with mode 'w' or 'wb', not {mode!r}")
    with atomic_path(path) as tmp:
        kwargs = {"encoding": "utf-8", "newline": ""} if mode == "w" else {}
        with open(tmp, mode, **kwargs) as fh:
            yield fh


def atomic_write(path: str | os.PathLike[str], data: str | bytes) -> Path:
    """Write ``data`` (text as UTF-8, or bytes) to ``path`` atomically; returns the path."""
    with open_atomic(path, "wb" if isinstance(data, bytes) else "w") as fh:
        fh.write(data)
    return Path(path)


def check_writable(path: str | os.PathLike[str], what: str = "") -> Path:
    """Raise OSError saying why no file can be written at ``path`` (``what``: the flag or
    field that named it), so a long run is refused before it starts, not failed at its end."""
    target = Path(path)
    label = f"{what} {target}" if what else str(target)
    if target.is_dir():
        raise IsADirectoryError(f"{label} is a folder: give a file name")
    folder = next((p for p in (target.parent, *target.parent.parents) if p.exists()), None)
    if folder is not None and not folder.is_dir():
        raise NotADirectoryError(f"cannot write {label}: {folder} is a file, not a folder")
    if folder is not None and not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(f"cannot write {label}: no permission to write in {folder}")
    return target
