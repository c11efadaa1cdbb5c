"""Reading a file in a child process: a reader that crashes, hangs or runs out of memory
takes down only the child, and the caller gets a clear :class:`DataError`.

Readers are written in C and Cython (scipy's MATLAB reader, h5py, zlib); a damaged file
made scipy's reader kill the whole process with SIGSEGV (docs/scipy_loadmat_crash.md).
:func:`load_isolated` runs :func:`core.data.io.load_dataset` in ``python -m
core.data.isolated_load PATH STORE``, with a time limit and (on POSIX) an address-space limit.
The child writes the dataset into a store folder (:mod:`core.data.store`) and the caller opens
it memory-mapped, so a large dataset is not copied through a pipe, the caller's thread is
never blocked by an unpickling, and other processes can open the same store. The child
reports what it is reading as JSON lines on stdout; when it dies, the message says what it
was reading. ``cancel`` (a callable) is polled every 0.1 s.

Time limit: by default it follows the size of what is read, ``BASE_TIMEOUT`` (30 s: starting
Python and the readers) plus ``SECONDS_PER_MB`` (0.25 s) per MB of the file(s), so a 10 MB
file that loops inside libhdf5 (a zeroed block in an ``.h5ad`` did) is stopped after 32.5 s,
not after 10 minutes, while a 2 GB file (about a minute on a laptop) still gets 9 minutes.
While the child reads, ``progress`` is told the elapsed time and the limit every second.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

try:
    import resource as _resource
except ImportError:  # Windows
    _resource = None  # type: ignore[assignment]

from core.data.dataset import DETAIL_LIMIT, DataError, MultiViewDataset, printable
from core.data.io.aligned import SPEC_FORMAT, DataSpec
from core.data.store import open_store

__all__ = [
    "BASE_TIMEOUT", "DEFAULT_TIMEOUT", "SECONDS_PER_MB", "LoadCancelled",
    "default_memory_limit", "load_isolated", "time_limit",
]  # fmt: skip

#: s: the reader child's time limit for any file (starting Python, importing the readers)
BASE_TIMEOUT = 30.0
#: s per MB of the file(s) read, on top of BASE_TIMEOUT: 4 MB/s, about a tenth of what a
#: laptop reads a MATLAB file at (2 GB in a minute), so a busy machine is not cut short
SECONDS_PER_MB = 0.25
#: None: the limit follows the file's size (:func:`time_limit`)
DEFAULT_TIMEOUT: float | None = None
_MODULE = "core.data.isolated_load"


class LoadCancelled(Exception):
    """The caller cancelled the load; nothing was loaded."""


def default_memory_limit() -> int | None:
    """Address space allowed to the reader: 80 % of the machine's memory (POSIX), so a damaged
    size field that promises terabytes fails in the child instead of swapping the machine."""
    try:
        pages, page = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None
    return int(0.8 * pages * page)


def _limit(memory: int | None) -> Callable[[], None] | None:
    if memory is None or os.name != "posix":
        return None

    def apply() -> None:  # runs in the child before it starts Python
        import resource

        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = memory if hard == resource.RLIM_INFINITY else min(memory, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    return apply


def _size(path: str | os.PathLike[str] | DataSpec) -> int:
    """Bytes of what is read: the file, a folder's files, or a description's files."""
    if isinstance(path, DataSpec):
        files = [v.path.split("#")[0] for v in path.views] + ([path.meta] if path.meta else [])
        return sum(_size(f) for f in dict.fromkeys(files))
    p = Path(path)
    try:
        if p.is_dir():
            return sum(f.stat().st_size for f in p.iterdir() if f.is_file())
        return p.stat().st_size
    except OSError:
        return 0


def time_limit(path: str | os.PathLike[str] | DataSpec) -> float:
    """The default time limit for reading ``path``: ``BASE_TIMEOUT`` + ``SECONDS_PER_MB`` per
    MB (a description file: the sizes of the files it names)."""
    if not isinstance(path, DataSpec):
        spec = _description(path)
        path = spec if spec is not None else path
    return BASE_TIMEOUT + SECONDS_PER_MB * _size(path) / 2**20


def _limit_text(timeout: float, sized: bool) -> str:
    if not sized:
        return f"{timeout:g} s ("
    rule = f"{BASE_TIMEOUT:g} s + {SECONDS_PER_MB:g} s per MB"
    return f"{timeout:.0f} s (the limit for its size: {rule}; "


def _reader(stream, out: queue.Queue) -> None:
    with contextlib.suppress(ValueError, OSError):  # closed under it: the child was killed
        for line in stream:
            out.put(line)
    out.put(None)


def _drain(stream, out: list[str], keep: int = 1 << 16) -> None:
    """Read ``stream`` to its end, keeping its last ``keep`` characters."""
    with contextlib.suppress(ValueError, OSError):
        while chunk := stream.read(4096):
            out.append(chunk)
            while len(out) > 1 and sum(map(len, out)) > keep:
                out.pop(0)


def _close(proc: subprocess.Popen, readers: list[threading.Thread]) -> None:
    """Wait for the pipes' readers (the child has ended: they are at the end), then close."""
    for reader in readers:
        reader.join(timeout=2.0)
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            with contextlib.suppress(OSError, ValueError):
                stream.close()


def load_isolated(
    path: str | os.PathLike[str] | DataSpec,
    *,
    timeout: float | None = DEFAULT_TIMEOUT,
    memory: int | str | None = "auto",
    progress: Callable[[float, str], None] | None = None,
    cancel: Callable[[], bool] | None = None,
    store: str | os.PathLike[str] | None = None,
    child_module: str = _MODULE,
) -> MultiViewDataset:
    """:func:`core.data.io.load_dataset` in a child process, the result memory-mapped.

    ``store``: the folder the child writes into (kept, so other processes can open it; the
    caller removes it). Without it a temporary folder is used and removed once the dataset
    is open (on POSIX the memory maps stay valid; elsewhere the arrays are read into memory).
    ``child_module`` replaces the child (tests use a reader that crashes or hangs).
    ``timeout``: seconds, or None for :func:`time_limit` (by the file's size).
    Raises DataError (damaged file, crash, time-out, memory) or LoadCancelled.
    """
    sized = timeout is None
    if timeout is None:
        timeout = time_limit(path)
    spec, source = (path, "") if isinstance(path, DataSpec) else (_description(path), str(path))
    if spec is not None:  # views from several files: sent as JSON, named by their files
        # a description file (the CLI writes one for its table flags) is read here: the
        # messages name the user's tables, never a file the user did not write
        arg = json.dumps({**spec.to_dict(), "source": source})
        name, suffix = _spec_files(spec), ""
    else:
        arg = str(path)
        name, suffix = Path(path).name, Path(path).suffix
    limit = default_memory_limit() if memory == "auto" else memory
    folder = Path(store) if store is not None else Path(tempfile.mkdtemp(prefix="mvc-data-"))
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    # Linux: start the child with vfork (no preexec_fn: forking a large GUI process copies its
    # page tables while holding the GIL) and cap it from here; it is still starting Python
    later = limit is not None and _resource is not None and hasattr(_resource, "prlimit")
    proc = subprocess.Popen(
        [sys.executable, "-m", child_module, arg, str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=None if later else _limit(limit),
    )
    if later:
        with contextlib.suppress(OSError, ValueError):
            _resource.prlimit(proc.pid, _resource.RLIMIT_AS, (limit, limit))
    lines: queue.Queue = queue.Queue()
    errors: list[str] = []  # stderr, drained as it comes: a full pipe would stall the child
    readers = [
        threading.Thread(target=_reader, args=(proc.stdout, lines), daemon=True),
        threading.Thread(target=_drain, args=(proc.stderr, errors), daemon=True),
    ]
    for reader in readers:
        reader.start()
    doing, answer, fraction = f"opening {name}", None, 0.0
    start = time.monotonic()
    deadline, told = start + timeout, start
    try:
        while True:
            try:
                line = lines.get(timeout=0.1)
            except queue.Empty:
                line = ""
            if line is None:
                break
            if line:
                msg = json.loads(line)
                if "what" in msg:
                    doing, fraction = msg["what"], float(msg.get("fraction", 0.0))
                    if progress is not None:
                        progress(fraction, doing)
                else:
                    answer = msg
            if cancel is not None and cancel():
                raise LoadCancelled(f"loading {name} was cancelled")
            now = time.monotonic()
            if now > deadline:
                raise DataError(
                    f"{name}: reading did not finish within {_limit_text(timeout, sized)}"
                    f"stopped while reading {_read_what(doing)}); nothing was loaded"
                )
            if progress is not None and now - told >= 1.0:  # the elapsed time, meanwhile
                told = now
                progress(fraction, f"{doing} ({now - start:.0f} s of at most {timeout:.0f} s)")
        code = proc.wait()
        _close(proc, readers)
        stderr = "".join(errors)
    except BaseException:
        proc.kill()
        proc.wait()
        _close(proc, readers)
        if store is None:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    try:
        if answer is not None and "error" in answer:
            raise DataError(printable(answer["error"]))
        if code != 0 or answer is None:
            raise DataError(_death_message(name, suffix, code, _read_what(doing), limit, stderr))
        dataset = open_store(folder, mmap=os.name == "posix")
    except BaseException:
        if store is None:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    if store is None:
        shutil.rmtree(folder, ignore_errors=True)  # the memory maps stay valid (POSIX)
    return dataset


def _description(path: str | os.PathLike[str]) -> DataSpec | None:
    """The :class:`DataSpec` a table description file holds (paths relative to its folder),
    or None for any other file (the child reads it, and names it in its messages)."""
    p = Path(path)
    try:
        with open(p, "rb") as fh:
            head = fh.read(4096)
        if not head.lstrip().startswith(b"{") or SPEC_FORMAT.encode() not in head:
            return None
        spec = DataSpec.from_dict(json.loads(p.read_text(encoding="utf-8")))
    except (OSError, ValueError):  # a folder, unreadable, not JSON: the child says what
        return None
    for v in spec.views:
        v.path = str(p.parent / v.path)
    if spec.meta:
        spec.meta = str(p.parent / spec.meta)
    return spec


def _spec_files(spec: DataSpec) -> str:
    """The files a description names, for messages: ``rna.csv, prot.tsv``."""
    names = [Path(v.path).name for v in spec.views] + ([Path(spec.meta).name] if spec.meta else [])
    return ", ".join(dict.fromkeys(names)) or "the views"


def _read_what(doing: str) -> str:
    """What was being read, for "while reading ...": the loader's own "reading x.mat (mat5)"
    and the first "opening x.mat" are the file."""
    return doing.removeprefix("reading ").removeprefix("opening ")


def _death_message(
    name: str, suffix: str, code: int, doing: str, limit: int | None, stderr: str
) -> str:
    reader = "the MATLAB reader" if suffix.lower() == ".mat" else "the reader"
    if code < 0:
        with contextlib.suppress(ValueError):
            sig = signal.Signals(-code).name
            return (
                f"{name}: the file is damaged: {reader} crashed ({sig}) while reading "
                f"{doing}; nothing was loaded"
            )
    if "MemoryError" in stderr or "Cannot allocate" in stderr:
        cap = f" (limit {limit / 2**30:.1f} GB)" if limit else ""
        return f"{name}: reading {doing} needed more memory than allowed{cap}; nothing was loaded"
    last = stderr.strip().splitlines()[-1:] or [f"exit status {code}"]
    return (
        f"{name}: the reader stopped while reading {doing} ({printable(last[0], DETAIL_LIMIT)}); "
        "nothing was loaded"
    )


def _child(path: str, folder: str) -> int:
    """The child: load, write the store, answer with one JSON line (or die trying)."""
    from core.data.io import load_dataset
    from core.data.store import write_store

    def say(fraction: float, what: str) -> None:
        _answer({"fraction": fraction, "what": what})

    try:
        if path.startswith("{"):  # a DataSpec (views and metadata from several files)
            from core.data.io import load_spec

            obj = json.loads(path)
            dataset = load_spec(DataSpec.from_dict(obj), source=obj.get("source", ""), progress=say)
        else:
            dataset = load_dataset(path, progress=say)
        say(1.0, "writing the data for the app")
        write_store(dataset, folder, summary=True)
    except DataError as exc:
        _answer({"error": str(exc)})
        return 0
    except MemoryError:
        spec = DataSpec.from_dict(json.loads(path)) if path.startswith("{") else None
        name = Path(path).name if spec is None else _spec_files(spec)
        _answer({"error": f"{name}: not enough memory to load this file"})
        return 0
    _answer({"done": True})
    return 0


def _answer(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1], sys.argv[2]))
