"""Fuzzing the loaders: damaged copies of real and generated files, each read in a child.

    MVC_DATASETS=../shared/datasets python benchmarks/fuzz_loaders.py --files 1000 --fork

Damage: bit flips, zeroed blocks, duplicated chunks, truncation, overwritten header bytes.
Sources: the shared .mat files (when MVC_DATASETS is set) and files made here in every format
the app reads (MATLAB v5 with dense, sparse and cell variables, v7.3, NPZ, CSV, and the
tests' AnnData .h5ad and MuData .h5mu). Each damaged
file is read by ``core.data.io.load_dataset`` (or, with ``--isolated``, by
``core.data.isolated_load.load_isolated``, the app's path) in a fresh child process with a
time and a memory limit; the outcome is one of

    loaded        the loader returned a dataset
    clear error   a DataError whose message names the file
    raw exception any other exception (a bug: the user sees a traceback)
    crash         the child died of a signal (SIGSEGV, SIGBUS, ...)
    hang          the child did not finish within the time limit
    memory        the child ran out of its memory limit

Prints the counts per outcome and source, and the worst examples (crashes, hangs, raw
exceptions first) with the damage that caused them, so they can be reproduced by seed.
The test suite runs a small seeded sample (tests/core/data/test_fuzz_loaders.py).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUTCOMES = ("loaded", "clear error", "raw exception", "crash", "hang", "memory")
DAMAGES = ("flip", "zero", "duplicate", "truncate", "header")

_CHILD = """
import sys, json
sys.path.insert(0, {root!r})
path = sys.argv[1]
try:
    from core.data.dataset import DataError
    if {isolated}:
        from core.data.isolated_load import load_isolated as load_dataset
    else:
        from core.data.io import load_dataset
    ds = load_dataset(path)
    print(json.dumps({{"outcome": "loaded", "detail": f"{{ds.n_samples}} x {{ds.dims}}"}}))
except MemoryError as exc:
    print(json.dumps({{"outcome": "memory", "detail": "MemoryError"}}))
except DataError as exc:
    import os
    named = os.path.basename(path) in str(exc)
    why = "" if named else "DataError without the file name: "
    print(json.dumps({{"outcome": "clear error" if named else "raw exception",
                      "detail": why + str(exc)[:300]}}))
except Exception as exc:
    text = f"{{type(exc).__name__}}: {{exc}}"[:300]
    print(json.dumps({{"outcome": "raw exception", "detail": text}}))
"""


@dataclass
class Case:
    source: str
    damage: str
    seed: int
    path: Path
    outcome: str = ""
    detail: str = ""


def make_sources(folder: Path) -> list[Path]:
    """Small files in every format the app reads, written here."""
    import h5py
    import scipy.io as sio
    import scipy.sparse as sp

    from core.data.dataset import MultiViewDataset
    from core.data.io import save_npz

    rng = np.random.default_rng(0)
    n = 60
    labels = np.repeat(np.arange(3), n // 3) + 1
    dense = rng.normal(size=(n, 7))
    counts = sp.random(n, 40, density=0.2, random_state=1, format="csc") * 10
    out = []
    p = folder / "gen_v5_cell.mat"
    cell = np.empty((1, 2), dtype=object)
    cell[0, 0], cell[0, 1] = dense, counts
    sio.savemat(p, {"X": cell, "Y": labels[:, None]}, do_compression=False)
    out.append(p)
    p = folder / "gen_v5_compressed.mat"
    sio.savemat(p, {"x1": dense, "x2": counts.T, "gt": labels}, do_compression=True)
    out.append(p)
    p = folder / "gen_v73.mat"
    with h5py.File(p, "w", userblock_size=512) as f:
        d = f.create_dataset("X1", data=dense.T)
        d.attrs["MATLAB_class"] = np.bytes_("double")
        d = f.create_dataset("Y", data=labels[None, :].astype(float))
        d.attrs["MATLAB_class"] = np.bytes_("double")
    with open(p, "r+b") as fh:
        fh.write(b"MATLAB 7.3 MAT-file".ljust(116) + b"\0" * 8 + b"\x00\x02IM")
    out.append(p)
    p = folder / "gen.npz"
    save_npz(
        MultiViewDataset(views=[dense, sp.csr_matrix(counts)], labels=labels - 1, name="gen"), p
    )
    out.append(p)
    p = folder / "gen.csv"
    header = ",".join([*(f"a:f{i}" for i in range(7)), "label"])
    rows = [",".join([*(f"{v:.5g}" for v in dense[i]), str(labels[i])]) for i in range(n)]
    p.write_text(header + "\n" + "\n".join(rows) + "\n")
    out.append(p)
    # AnnData / MuData, as the tests write them (tests/table_fixtures.py)
    sys.path.insert(0, str(ROOT / "tests"))
    from table_fixtures import write_h5ad, write_h5mu

    for name, write in (("gen.h5ad", write_h5ad), ("gen.h5mu", write_h5mu)):
        write(folder / name)
        out.append(folder / name)
    return out


def damage(data: bytes, kind: str, rng: np.random.Generator) -> bytes:
    buf = bytearray(data)
    size = len(buf)
    if kind == "flip":
        for _ in range(int(rng.integers(1, 9))):
            pos = int(rng.integers(0, size))
            buf[pos] ^= 1 << int(rng.integers(0, 8))
    elif kind == "zero":
        length = int(rng.integers(1, max(2, size // 8)))
        start = int(rng.integers(0, max(1, size - length)))
        buf[start : start + length] = bytes(length)
    elif kind == "duplicate":
        length = int(rng.integers(1, max(2, size // 8)))
        start = int(rng.integers(0, max(1, size - length)))
        at = int(rng.integers(0, size))
        buf[at:at] = buf[start : start + length]
    elif kind == "truncate":
        buf = buf[: int(rng.integers(0, size))]
    elif kind == "header":
        for _ in range(int(rng.integers(1, 6))):
            pos = int(rng.integers(0, min(size, 256)))
            buf[pos] = int(rng.integers(0, 256))
    return bytes(buf)


def _limit_memory(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def run_case(case: Case, timeout: float, memory: int, isolated: bool = False) -> Case:
    code = _CHILD.format(root=str(ROOT), isolated=isolated)
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code, str(case.path)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            preexec_fn=lambda: _limit_memory(memory),
        )
    except subprocess.TimeoutExpired:
        case.outcome, case.detail = "hang", f"no answer within {timeout:g} s"
        return case
    if proc.returncode < 0:
        sig = signal.Signals(-proc.returncode).name
        case.outcome, case.detail = "crash", sig
        return case
    try:
        answer = json.loads(proc.stdout.strip().splitlines()[-1])
        case.outcome, case.detail = answer["outcome"], answer["detail"]
    except (IndexError, json.JSONDecodeError, KeyError):
        tail = proc.stderr.strip().splitlines()[-1:] or ["no output"]
        memoryish = "MemoryError" in proc.stderr or "Cannot allocate" in proc.stderr
        case.outcome = "memory" if memoryish else "raw exception"
        case.detail = f"exit {proc.returncode}: {tail[0][:200]}"
    return case


def _outcome_in_child(path: Path) -> dict:
    """The child's side of --fork: what the _CHILD script prints, as a dict."""
    from core.data.dataset import DataError
    from core.data.io import load_dataset

    try:
        ds = load_dataset(path)
        return {"outcome": "loaded", "detail": f"{ds.n_samples} x {ds.dims}"}
    except MemoryError:
        return {"outcome": "memory", "detail": "MemoryError"}
    except DataError as exc:
        named = path.name in str(exc)
        why = "" if named else "DataError without the file name: "
        return {
            "outcome": "clear error" if named else "raw exception",
            "detail": why + str(exc)[:300],
        }
    except Exception as exc:
        return {"outcome": "raw exception", "detail": f"{type(exc).__name__}: {exc}"[:300]}


def run_case_forked(case: Case, timeout: float, memory: int) -> Case:
    """Like :func:`run_case`, in a fork of this process (the readers are imported once, so a
    case costs milliseconds instead of a Python start-up): same outcomes, same limits."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: limit, read, answer, exit without cleanup
        os.close(read)
        code = 0
        try:
            _limit_memory(memory)
            os.write(write, json.dumps(_outcome_in_child(case.path)).encode())
        except BaseException:
            code = 1
        os._exit(code)
    os.close(write)
    deadline = time.monotonic() + timeout
    chunks, status = [], None
    with os.fdopen(read, "rb") as pipe:
        while status is None:
            if select.select([pipe], [], [], 0.05)[0]:
                chunk = os.read(pipe.fileno(), 1 << 16)
                if chunk:
                    chunks.append(chunk)
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
            elif time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                case.outcome, case.detail = "hang", f"no answer within {timeout:g} s"
                return case
        chunks.append(pipe.read())
    if os.WIFSIGNALED(status):
        case.outcome, case.detail = "crash", signal.Signals(os.WTERMSIG(status)).name
        return case
    try:
        answer = json.loads(b"".join(chunks))
        case.outcome, case.detail = answer["outcome"], answer["detail"]
    except (json.JSONDecodeError, KeyError):
        case.outcome, case.detail = "raw exception", f"exit {os.WEXITSTATUS(status)}, no answer"
    return case


def make_cases(sources: list[Path], n_files: int, seed: int, folder: Path) -> list[Case]:
    rng = np.random.default_rng(seed)
    cases = []
    for i in range(n_files):
        src = sources[i % len(sources)]
        kind = DAMAGES[int(rng.integers(len(DAMAGES)))]
        case_seed = int(rng.integers(2**31 - 1))
        data = damage(src.read_bytes(), kind, np.random.default_rng(case_seed))
        path = folder / f"{i:05d}_{kind}_{src.stem}{src.suffix}"
        path.write_bytes(data)
        cases.append(Case(src.name, kind, case_seed, path))
    return cases


def fuzz(
    n_files: int,
    seed: int,
    shared: Path | None,
    timeout: float = 30.0,
    memory: int = 4 << 30,
    max_source_bytes: int = 40 << 20,
    isolated: bool = False,
    fork: bool = False,
    generated_only: bool = False,
) -> list[Case]:
    """Generate and read ``n_files`` damaged files; returns the cases with their outcomes.
    ``fork``: each case in a fork of this process (POSIX; much faster, same outcomes)."""
    with tempfile.TemporaryDirectory(prefix="mvc-fuzz-") as tmp:
        folder = Path(tmp)
        sources = make_sources(folder)
        if shared is not None and not generated_only:
            mats = sorted(p for p in shared.glob("*.mat") if p.stat().st_size <= max_source_bytes)
            sources += mats
        cases = make_cases(sources, n_files, seed, folder)
        for case in cases:
            if fork and not isolated:
                run_case_forked(case, timeout, memory)
            else:
                run_case(case, timeout, memory, isolated)
            case.path.unlink(missing_ok=True)
        return cases


def report(cases: list[Case]) -> str:
    counts = Counter(c.outcome for c in cases)
    lines = [f"{len(cases)} damaged files"]
    lines += [f"  {o:<14} {counts.get(o, 0)}" for o in OUTCOMES]
    bad = [c for c in cases if c.outcome in ("crash", "hang", "raw exception", "memory")]
    order = {o: i for i, o in enumerate(("crash", "hang", "raw exception", "memory"))}
    bad.sort(key=lambda c: order[c.outcome])
    if bad:
        lines.append("worst examples (source, damage, seed: outcome, detail):")
        lines += [f"  {c.source}, {c.damage}, {c.seed}: {c.outcome}, {c.detail}" for c in bad[:20]]
    by_source = Counter((c.source, c.outcome) for c in cases)
    lines.append(
        "per source: " + "; ".join(f"{s} {o} {k}" for (s, o), k in sorted(by_source.items()))
    )
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument(
        "--isolated",
        action="store_true",
        help="read through core.data.isolated_load (what the app and `mvc info` do): a reader "
        "that dies in its child must come back as a clear error",
    )
    ap.add_argument(
        "--fork",
        action="store_true",
        help="read each file in a fork of this process (readers imported once: much faster)",
    )
    ap.add_argument(
        "--generated-only",
        action="store_true",
        help="damage only the files made here (v5, v7.3, NPZ, CSV), not the shared .mat files",
    )
    args = ap.parse_args()
    root = os.environ.get("MVC_DATASETS")
    shared = Path(root) if root else None
    cases = fuzz(
        args.files,
        args.seed,
        shared,
        args.timeout,
        isolated=args.isolated,
        fork=args.fork,
        generated_only=args.generated_only,
    )
    print(report(cases))
    bad = sum(c.outcome in ("crash", "hang", "raw exception") for c in cases)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
