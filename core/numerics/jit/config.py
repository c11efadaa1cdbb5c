"""numba configuration, applied before any kernel is compiled.

* ``NUMBA_CACHE_DIR``: a per-user cache folder, so read-only installs and frozen builds can
  cache compiled kernels (the default writes next to the source, which fails there); in a
  frozen build :class:`FrozenCacheLocator` makes numba use it. Its subfolder is named by a
  digest of every kernel source file: numba checks only the caller's own file, so a cached
  kernel kept calling the old code of a kernel changed in another file (an edited
  ``select.py`` left ``graph.py``'s cached callers on the old selection). Old subfolders are
  pruned (:func:`prune_old_caches`).
* threading layer: numba's default ``workqueue`` layer aborts the process when two threads
  call parallel kernels at once (the GUI runs the solver in a worker thread, sweeps may run
  more); prefer the thread-safe OpenMP layer when libgomp is present. Users can override both
  with the usual environment variables.

Importing this module sets both and nothing more: numba itself is imported when a kernel
module first takes ``njit`` from here (a module ``__getattr__``), so ``import core`` and the
light commands (``mvc --help``, ``mvc methods``, ``mvc info``) never load it.
"""

from __future__ import annotations

import ctypes.util
import hashlib
import os
import shutil
import sys
import time
from pathlib import Path


def app_cache_dir() -> Path:
    """The per-user folder of MVC Studio's caches (numba's kernels in ``numba/``)."""
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "mvc-studio"


def _user_cache_dir() -> Path:
    return app_cache_dir() / "numba"


def kernel_sources_digest(root: Path, packages: tuple[str, ...] = ("core", "mvc_gui")) -> str:
    """Digest of the names and contents of the packages' source files that use numba (~6 ms
    for the ~300 files here). Not used in a frozen build, which has no source files."""
    digest = hashlib.sha1()
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if b"njit" in data:
                digest.update(path.relative_to(root).as_posix().encode() + b"\0" + data)
    return digest.hexdigest()[:16]


def _is_digest(name: str) -> bool:
    return len(name) == 16 and all(ch in "0123456789abcdef" for ch in name)


KEEP_CACHES = 3  # newest kernel-source versions kept; older ones are removed after a day
PRUNE_AFTER_S = 86_400


def prune_old_caches(base: Path, current: Path) -> None:
    """Remove cache subfolders of older kernel sources (each ~70 MB): all but the
    KEEP_CACHES most recently used, and only when unused for PRUNE_AFTER_S (a process
    still running an older version keeps its folder)."""
    try:
        current.mkdir(parents=True, exist_ok=True)
        os.utime(current)  # marks it as used
        # only these versioned folders: a frozen build's kernels live beside them
        folders = [d for d in base.iterdir() if d.is_dir() and _is_digest(d.name)]
    except OSError:
        return
    folders.sort(key=lambda d: d.stat().st_mtime, reverse=True)
    now = time.time()
    for old in folders[KEEP_CACHES:]:
        if old != current and now - old.stat().st_mtime > PRUNE_AFTER_S:
            shutil.rmtree(old, ignore_errors=True)


_FROZEN = bool(getattr(sys, "frozen", False) and getattr(sys, "_MEIPASS", None))

if "NUMBA_CACHE_DIR" not in os.environ:
    _base = _user_cache_dir()
    if _FROZEN:  # no sources to digest; the locator keys the cache by the program's hash
        os.environ["NUMBA_CACHE_DIR"] = str(_base)
    else:
        _cache = _base / kernel_sources_digest(Path(__file__).resolve().parents[3])
        prune_old_caches(_base, _cache)
        os.environ["NUMBA_CACHE_DIR"] = str(_cache)

if "NUMBA_THREADING_LAYER" not in os.environ and ctypes.util.find_library("gomp"):
    os.environ["NUMBA_THREADING_LAYER"] = "omp"

if _FROZEN:  # numba looks this class up when the first cached kernel is compiled
    os.environ.setdefault("NUMBA_CACHE_LOCATOR_CLASSES", f"{__name__}.FrozenCacheLocator")


def _frozen_cache_locator() -> type:
    from numba.core import caching, config

    class FrozenCacheLocator(caching.UserProvidedCacheLocator):
        """Cache locator for a PyInstaller build. Its code has relative file names
        (``core/numerics/jit/graph.py``, no source on disk), which numba's own locators reject or
        resolve against the working directory (one cache per folder the app was started
        from, outside NUMBA_CACHE_DIR). Anchored at the bundle folder they land in
        NUMBA_CACHE_DIR; freshness is the executable's hash (numba's rule for frozen code)."""

        @classmethod
        def from_function(cls, py_func, py_file):
            if not config.CACHE_DIR:
                return None
            locator = cls(py_func, os.path.join(sys._MEIPASS, py_file))
            try:
                locator.ensure_cache_path()
            except OSError:  # not writable: compile without caching, as numba does
                return None
            return locator

    return FrozenCacheLocator


def __getattr__(name: str) -> object:
    """``njit`` and a frozen build's ``FrozenCacheLocator`` (which numba looks up by name when
    it compiles the first cached kernel): numba is imported on their first use."""
    if name == "njit":
        from numba import njit

        value: object = njit
    elif name == "FrozenCacheLocator" and _FROZEN:
        value = _frozen_cache_locator()
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # looked up once
    return value


JIT = {"nogil": True, "cache": True, "fastmath": False}
PARALLEL_JIT = {"nogil": True, "cache": True, "parallel": True, "fastmath": False}

__all__ = ["JIT", "PARALLEL_JIT", "app_cache_dir", "njit"]  # noqa: F822 (njit: __getattr__)
