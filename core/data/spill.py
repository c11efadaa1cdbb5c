"""Preprocessed copies of large memory-mapped views on disk instead of in memory.

The app's solver child receives the views of a large file as read-only memory maps (shared
with the window and the layout child). A z-scored copy in memory would double the data in
the child (4 GB at 1M x 1000 float32); preprocessing every row block again at every pass
(``core.data.stream_stats.preprocess_in_blocks``, 2026-11-25) holds no copy but sends FMDC
down its one-thread streamed path and z-scores the data five times: the 1M run in the window
took 230 s against ~40 s on the command line, and the streamed anchors (Gaussian sketch)
lost 0.04 ACC.

Here the copy is made once, by the in-memory preprocessing itself (bit for bit its numbers),
into a memory map of an unnamed temporary file (:func:`spill_outputs`; the solver child's
decision: ``core.data.stream_stats.preprocess_spilled``): the method then runs its in-memory
path on it. Its pages are the page cache, not the process's private memory:
the kernel writes them back and drops them under memory pressure, as it does the input
file's, and the file disappears with the map (no name on Linux, deleted on close elsewhere).
"""

from __future__ import annotations

import contextvars
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

__all__ = ["disk_array", "output_array", "spill_outputs", "spilling"]


_SPILL: contextvars.ContextVar[tuple[str | None, int] | None] = contextvars.ContextVar(
    "mvc_spill", default=None
)


@contextmanager
def spill_outputs(folder: str | None = None, above: int = 0) -> Iterator[None]:
    """Within this block, dense preprocessing outputs larger than ``above`` bytes are
    :func:`disk_array` maps in ``folder`` (default: the temporary directory)."""
    token = _SPILL.set((folder, int(above)))
    try:
        yield
    finally:
        _SPILL.reset(token)


def spilling() -> bool:
    """Whether large outputs go to disk now (inside :func:`spill_outputs`)."""
    return _SPILL.get() is not None


def output_array(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """``np.empty(shape, dtype)``, or inside :func:`spill_outputs` a disk map when larger."""
    spec = _SPILL.get()
    nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    if spec is None or nbytes <= spec[1] or nbytes == 0:
        return np.empty(shape, dtype=dtype)
    return disk_array(shape, dtype, spec[0])


def disk_array(shape: tuple[int, ...], dtype: np.dtype, folder: str | None = None) -> np.ndarray:
    """A writable array of ``shape`` mapped from an unnamed temporary file (contents undefined
    until written). The file is gone once the array (and every view of it) is."""
    with tempfile.TemporaryFile(dir=folder, prefix="mvc-spill-") as fh:
        return np.memmap(fh, dtype=dtype, mode="w+", shape=shape)  # the map keeps the file
