"""numba configuration, applied before any kernel is compiled.

* ``NUMBA_CACHE_DIR``: a per-user cache folder, so read-only installs and frozen builds can
  cache compiled kernels (the default writes next to the source, which fails there); in a
  frozen build :class:`FrozenCacheLocator` makes numba use it.
* threading layer: numba's default ``workqueue`` layer aborts the process when two threads
  call parallel kernels at once (the GUI runs the solver in a worker thread, sweeps may run
  more); prefer the thread-safe OpenMP layer when libgomp is present. Users can override both
  with the usual environment variables.
"""

from __future__ import annotations

import ctypes.util
import os
import sys
from pathlib import Path


def _user_cache_dir() -> Path:
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "mvc-studio" / "numba"


if "NUMBA_CACHE_DIR" not in os.environ:
    os.environ["NUMBA_CACHE_DIR"] = str(_user_cache_dir())

if "NUMBA_THREADING_LAYER" not in os.environ and ctypes.util.find_library("gomp"):
    os.environ["NUMBA_THREADING_LAYER"] = "omp"

_FROZEN = bool(getattr(sys, "frozen", False) and getattr(sys, "_MEIPASS", None))
if _FROZEN:  # numba looks this class up when the first cached kernel is compiled
    os.environ.setdefault("NUMBA_CACHE_LOCATOR_CLASSES", f"{__name__}.FrozenCacheLocator")

from numba import njit  # noqa: E402

if _FROZEN:
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


JIT = {"nogil": True, "cache": True, "fastmath": False}
PARALLEL_JIT = {"nogil": True, "cache": True, "parallel": True, "fastmath": False}

__all__ = ["JIT", "PARALLEL_JIT", "njit"]
