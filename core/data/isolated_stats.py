"""One pass over a large file's views in a child process, so that a window's interpreter
stays free while it runs (the pass holds the interpreter lock for part of every block; h5py
holds it while reading).

- :func:`exact_summary_isolated`: the exact summary of a memory-mapped file
  (:func:`core.data.mapped.exact_summary`), including the NaN/Inf check deferred at opening;
- :func:`column_stats_isolated`: the column statistics of a streamed file's views
  (:func:`core.data.column_stats.column_stats`), handed back and cached on the sources, so the
  summary and every later preprocessing need no further pass.

A NaN/Inf or an unreadable file raises DataError; ``cancel`` (polled every 0.1 s) kills the
child and returns None.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from core.data.dataset import DataError, MultiViewDataset

__all__ = ["column_stats_isolated", "exact_summary_isolated"]

_MODULE = "core.data.isolated_stats"


def _run(args: list[str], name: str, cancel: Callable[[], bool] | None) -> dict | None:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", _MODULE, *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    while proc.poll() is None:
        if cancel is not None and cancel():
            proc.kill()
            proc.wait()
            return None
        time.sleep(0.1)
    out, err = proc.communicate()
    try:
        answer = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        last = (err.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
        raise DataError(f"{name}: the pass over the data stopped ({last})") from None
    if "error" in answer:
        raise DataError(answer["error"])
    return answer


def exact_summary_isolated(
    path: str | os.PathLike[str], cancel: Callable[[], bool] | None = None
) -> dict[str, object] | None:
    """The exact summary of the memory-mapped file ``path``, computed in a child."""
    return _run(["summary", str(path)], Path(path).name, cancel)


def column_stats_isolated(
    ds: MultiViewDataset, path: str | os.PathLike[str], cancel: Callable[[], bool] | None = None
) -> bool:
    """Fill the column statistics of the streamed views of ``ds`` (opened from ``path``) in a
    child; False when cancelled."""
    with tempfile.TemporaryDirectory(prefix="mvc-stats-") as tmp:
        out = Path(tmp) / "stats.pkl"
        if _run(["stats", str(path), str(out)], Path(path).name, cancel) is None:
            return False
        with open(out, "rb") as fh:
            stats = pickle.load(fh)  # written by our own child, just now
    for view, s in zip(ds.views, stats, strict=True):
        view._column_stats = s
    return True


def _child(mode: str, path: str, out: str | None) -> int:
    from core.data.column_stats import column_stats
    from core.data.mapped import exact_summary, open_mapped
    from core.data.streamed import open_streamed

    try:
        if mode == "summary":
            ds = open_mapped(path, min_bytes=0)
            if ds is None:
                raise DataError(f"{Path(path).name}: cannot be memory-mapped")
            answer = exact_summary(ds)
        else:
            stats = [column_stats(v) for v in open_streamed(path).views]
            with open(out, "wb") as fh:
                pickle.dump(stats, fh)
            answer = {"done": True}
    except DataError as exc:
        answer = {"error": str(exc)}
    sys.stdout.write(json.dumps(answer, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None))
