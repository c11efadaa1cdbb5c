"""Pickling that sends a memory-mapped array as its file, not its bytes.

A dataset opened from a store (``core.data.store.open_store``: the isolated loader's
hand-back) has memory-mapped views. Sent to the solver or embedding child as bytes, every
child would hold its own copy (8 GB per child for 1M x 1000 float64). Pickled by
:func:`dumps`, a whole-file read-only map travels as (file, dtype, shape, offset) and the
child maps the same file: the operating system shares the pages between all processes.
"""

from __future__ import annotations

import io
import mmap
import os
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["dumps", "open_shared_map"]


def open_shared_map(filename: str, dtype: str, shape: tuple, offset: int, order: str) -> Any:
    """The read-only memory map a :func:`dumps` reference names."""
    return np.memmap(
        filename, dtype=np.dtype(dtype), mode="r", shape=shape, offset=offset, order=order
    )


def _root_map(obj: np.ndarray) -> np.memmap | None:
    base = obj
    while isinstance(base, np.ndarray):
        if isinstance(base, np.memmap) and isinstance(base.base, mmap.mmap):
            return base
        base = base.base
    return None


def _file_map_reference(obj: object) -> tuple | None:
    # an array whose memory is a contiguous part of a read-only file map (np.load with
    # mmap_mode, a store's views, a row slice of them); anything else pickles by value
    if type(obj) not in (np.ndarray, np.memmap):
        return None
    root = _root_map(obj)  # type: ignore[arg-type]
    if root is None or root.filename is None or root.mode not in ("r", "c"):
        return None
    if not os.path.exists(root.filename):  # removed while mapped: the child could not open it
        return None
    if not (obj.flags.c_contiguous or obj.flags.f_contiguous) or obj.size == 0:
        return None
    delta = obj.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    order = "C" if obj.flags.c_contiguous else "F"
    return (str(root.filename), obj.dtype.str, tuple(obj.shape), int(root.offset) + delta, order)


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj: object) -> Any:
        ref = _file_map_reference(obj)
        if ref is None:
            return NotImplemented
        return open_shared_map, ref


def dumps(msg: Any, buffer_callback: Callable[[pickle.PickleBuffer], Any]) -> bytes:
    """``pickle.dumps(msg, protocol=5, buffer_callback=...)`` with file maps by reference."""
    out = io.BytesIO()
    _Pickler(out, protocol=5, buffer_callback=buffer_callback).dump(msg)
    return out.getvalue()
