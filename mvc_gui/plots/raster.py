"""Rasterising a large scatter into an ARGB pixel buffer, and doing it off the GUI thread.

At a million points, stroking every dot with QPainter takes the GUI thread 0.3-0.5 s per frame
(docs/benchmarks/gui_million.md). :func:`splat` writes the points' square dots straight into a
``(h, w)`` uint32 buffer in one pass (a few ms at 1M; numba, ``nogil``: the window keeps
running while a :class:`Renderer` thread calls it), and the GUI thread only blits the image.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
from PySide6.QtCore import QObject, Signal

from core.numerics.jit.config import JIT, njit
from mvc_gui.run.priority import lower_thread_priority

__all__ = ["Renderer", "premultiplied_argb", "rasterise", "splat", "warm_up"]


@njit(**JIT)
def splat(
    xy: np.ndarray, gid: np.ndarray, sizes: np.ndarray, m: np.ndarray, top: np.ndarray
) -> None:
    """Mark in ``top`` (h x w, zeros) the highest group drawn on each pixel.

    Point ``i`` belongs to group ``gid[i]`` (0: not drawn) and covers a square of
    ``sizes[gid[i]]`` pixels from floor(x' - (size - 1) / 2), floor(y' - (size - 1) / 2) on,
    where ``m`` = (m11, m12, m21, m22, dx, dy) maps data to device pixels as QTransform does
    (x' = m11 x + m21 y + dx, y' = m12 x + m22 y + dy). A higher group wins a pixel (later
    groups are drawn on top), whatever the order of the points: the points are read in one
    sequential pass (reading them group by group costs ~7x more at 1M, in memory traffic).
    Points off the buffer or not finite are skipped.
    """
    h, w = top.shape
    m11, m12, m21, m22, dx, dy = m[0], m[1], m[2], m[3], m[4], m[5]
    for i in range(xy.shape[0]):
        g = gid[i]
        if g == 0:
            continue
        s = sizes[g]
        off = (s - 1) / 2.0
        x, y = xy[i, 0], xy[i, 1]
        fx = np.floor(x * m11 + y * m21 + dx - off)
        fy = np.floor(x * m12 + y * m22 + dy - off)
        if not (fx > -s and fx < w and fy > -s and fy < h):  # also drops NaN
            continue
        px, py = int(fx), int(fy)
        for yy in range(max(py, 0), min(py + s, h)):
            for xx in range(max(px, 0), min(px + s, w)):
                if g > top[yy, xx]:
                    top[yy, xx] = g


def rasterise(
    xy: np.ndarray, gid: np.ndarray, argb: np.ndarray, sizes: np.ndarray, m, w: int, h: int
) -> np.ndarray:
    """``(h, w)`` premultiplied ARGB32 pixels of the points (transparent background): group
    ``g`` (1-based in ``gid``) in colour ``argb[g - 1]``, ``sizes[g - 1]`` pixels wide."""
    top = np.zeros((h, w), dtype=gid.dtype)
    pts = np.ascontiguousarray(xy if xy.dtype in (np.float32, np.float64) else xy.astype(float))
    size = np.concatenate([[1], sizes]).astype(np.int64)
    splat(pts, gid, size, np.asarray(m, dtype=np.float64), top)
    lut = np.concatenate([[0], argb]).astype(np.uint32)
    return lut[top]


_warm = threading.Lock()
_warmed = False


def warm_up(background: bool = True) -> None:
    """Load the compiled :func:`splat` now, once per process (in a daemon thread by default).

    Loading it from numba's cache takes ~0.3 s of the GIL (compiling it, ~1 s): done at the
    first large frame, in the render thread, that starved the GUI thread of the GIL and froze
    the window just as the first layout appeared. Called when the window is built instead.
    """
    global _warmed
    with _warm:
        if _warmed:
            return
        _warmed = True

    def load() -> None:
        lower_thread_priority()
        for dtype in (np.float32, np.float64):  # layout frames, and final layouts
            xy = np.zeros((1, 2), dtype=dtype)
            rasterise(xy, np.ones(1, np.uint16), np.zeros(1, np.uint32), np.ones(1, np.int64),
                      (1.0, 0.0, 0.0, 1.0, 0.0, 0.0), 2, 2)  # fmt: skip

    if background:
        threading.Thread(target=load, name="raster-warm-up", daemon=True).start()
    else:
        load()


def premultiplied_argb(rgba: tuple[int, int, int, int]) -> int:
    """A colour as one premultiplied ARGB32 word (QImage.Format_ARGB32_Premultiplied)."""
    r, g, b, a = rgba
    return (a << 24) | ((r * a // 255) << 16) | ((g * a // 255) << 8) | (b * a // 255)


class Renderer(QObject):
    """One daemon thread running the latest submitted job; ``done`` (queued to the GUI
    thread) says a result is ready. Jobs submitted while one runs replace each other, so a
    burst of frames costs one render, not a queue of stale ones."""

    done = Signal()

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._job: tuple[Any, Callable[[], Any]] | None = None
        self._result: tuple[Any, Any] | None = None
        self.pending: Any = None  # key of the job submitted or running, None when idle
        self._thread: threading.Thread | None = None

    def submit(self, key: Any, job: Callable[[], Any]) -> None:
        with self._lock:
            self._job, self.pending = (key, job), key
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="scatter", daemon=True)
                self._thread.start()
        self._wake.set()

    def take(self) -> tuple[Any, Any] | None:
        """The newest finished (key, result), once."""
        with self._lock:
            out, self._result = self._result, None
            return out

    def _loop(self) -> None:
        lower_thread_priority()  # a 1M-point frame is 35-75 ms of a core the GUI may need
        while True:
            self._wake.wait()
            with self._lock:
                self._wake.clear()
                job, self._job = self._job, None
            if job is None:
                continue
            key, fn = job
            try:
                result = fn()
            except Exception:  # a failed frame is not drawn; the next one is
                result = None
            with self._lock:
                self._result = (key, result)
                if self._job is None:
                    self.pending = None
            self.done.emit()
