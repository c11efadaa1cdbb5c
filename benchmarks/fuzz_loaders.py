"""Fuzzing the loaders: damaged copies of real and generated files, each read in a child.

    MVC_DATASETS=../shared/datasets python benchmarks/fuzz_loaders.py --files 1000 --fork

Damage, to the bytes: bit flips, zeroed blocks, duplicated chunks, truncation, overwritten
header bytes. Damage to the structure (generated files only; the file is written anew with one
thing wrong, as a faulty exporter or a damaged reference would leave it):

    labels-as-view   a view list that points at the labels (a v7.3 cell reference to Y), or a
                     view that is the labels, a relabelling or a one-hot encoding of them
                     (v5 X = {view, Y}, an NPZ X2, CSV columns, a MuData modality, AnnData X)
    modality-order   a MuData ``mod-order`` that names a missing modality, leaves one out,
                     repeats one, adds one, or is a (valid) permutation
    label-length     a label vector (Y, y, an obs column used as labels) with entries added
                     or removed at a random place

Sources: the shared .mat files (when MVC_DATASETS is set) and files made here in every format
the app reads (MATLAB v5 with dense, sparse and cell variables, v7.3 with a cell of
references, NPZ, CSV, and the tests' AnnData .h5ad and MuData .h5mu). Each damaged file is
opened the way every command opens it (``core.data.open.open_dataset``, with the
``--label-column`` a user gives for the .h5ad/.h5mu files), directly or, with ``--isolated``,
through the reader child of ``core.data.isolated_load`` (what the app, ``mvc info`` and ``mvc
run`` do for HDF5 files), in a fresh child process with a memory limit and a time limit: the
reader's own size-based limit (30 s + 0.25 s per MB, ``core.data.isolated_load.time_limit``;
``--isolated`` waits 30 s more for the reader child to report it). The outcome is one of

    loaded          the dataset is the undamaged file's (same samples, views, labels, values)
    loaded, noted   it differs from the undamaged file, and a note (a warning) says so
    values changed  same samples, views and labels; some numbers inside a view differ and
                    no note says so: a flipped bit inside a number of a format with no
                    checksum (MATLAB v5 uncompressed, HDF5, CSV) cannot be told from data
    silently wrong  the views, the labels or the counts differ from the undamaged file and
                    nothing says so (for a structure mutation: anything differs, no note)
    clear error     a DataError whose message names the file (no raw bytes in it)
    stopped         the reader child was stopped at its size-based time limit (a clear error)
    raw exception   any other exception, a DataError without the file name or with control
                    characters (a bug: the user sees a traceback or garbage)
    crash           the child died of a signal (SIGSEGV, SIGBUS, ...)
    hang            the child did not finish within the limit (+ 30 s with ``--isolated``)
    memory          the child ran out of its memory limit

``--run METHOD`` also runs the method (auto preprocessing, as ``mvc run``) on what loaded: an
exception other than DataError/ParamError is a raw exception, and Python warnings that escape
(``RuntimeWarning: overflow``...) are counted. Prints the counts per outcome, per damage and per
source, and the worst examples with the damage that caused them (reproducible by seed). The
test suite runs a small seeded sample with every structure mutation
(tests/core/data/test_fuzz_loaders.py).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import resource
import select
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

OUTCOMES = (
    "loaded", "loaded, noted", "values changed", "silently wrong", "clear error", "stopped",
    "raw exception", "crash", "hang", "memory",
)  # fmt: skip
#: outcomes that are bugs
BAD = ("silently wrong", "raw exception", "crash", "hang")
BYTE_DAMAGES = ("flip", "zero", "duplicate", "truncate", "header")
STRUCTURAL = ("labels-as-view", "modality-order", "label-length")
DAMAGES = BYTE_DAMAGES + STRUCTURAL
#: s the harness waits beyond the reader child's own limit (``--isolated``) before a hang
GRACE = 30.0
#: structure mutations each generated kind of file can take
APPLIES = {
    "v5_cell": ("labels-as-view", "label-length"),
    "v5_compressed": ("labels-as-view", "label-length"),
    "v73": ("labels-as-view", "label-length"),
    "npz": ("labels-as-view", "label-length"),
    "csv": ("labels-as-view",),
    "h5ad": ("labels-as-view", "label-length"),
    "h5mu": ("labels-as-view", "modality-order", "label-length"),
}
#: the --label-column a user gives for the AnnData / MuData files the tests write
LABEL_COLUMNS = {"h5ad": "cell_type", "h5mu": "celltype"}
N = 60


@dataclass
class Source:
    path: Path
    kind: str  # a key of APPLIES, or "shared"
    label_column: str | None = None
    reference: dict | None = None  # the undamaged file's signature


@dataclass
class Case:
    source: str
    damage: str
    seed: int
    path: Path
    label_column: str | None = None
    outcome: str = ""
    detail: str = ""
    seconds: float = 0.0
    limit: float = 0.0
    warned: str = ""  # Python warnings that escaped (loading, and the run with --run)
    what: str = ""  # the structure mutation made
    sig: dict | None = None  # what loaded (see signature)


# ----------------------------------------------------------------------------- the files


def _data() -> tuple[np.ndarray, object, np.ndarray]:
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    labels = np.repeat(np.arange(3), N // 3) + 1
    dense = rng.normal(size=(N, 7))
    counts = sp.random(N, 40, density=0.2, random_state=1, format="csc") * 10
    return dense, counts, labels


def _leak(labels: np.ndarray, variant: str, rng: np.random.Generator) -> np.ndarray:
    """The labels as a view: equal, relabelled (another value per class) or one-hot."""
    if variant == "equal":
        return labels[:, None].astype(float)
    if variant == "relabel":
        values = rng.permutation(np.arange(3)) * float(rng.integers(2, 9)) + 0.5
        return values[labels - 1][:, None]
    return np.eye(3)[labels - 1]


def _resized(y: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, str]:
    """``y`` with 1-5 entries added (copies) or removed at a random place."""
    k = int(rng.integers(1, 6))
    at = int(rng.integers(0, y.size))
    if rng.random() < 0.5:
        return np.concatenate([y[:at], y[at : at + k], y[at:]]), f"{k} label(s) added at {at}"
    return np.delete(y, np.arange(at, min(y.size, at + k))), f"labels {at}.. removed ({k})"


def _cell(members: list) -> np.ndarray:
    cell = np.empty((1, len(members)), dtype=object)
    for i, m in enumerate(members):
        cell[0, i] = m
    return cell


def _write_v5_cell(path: Path, members: list | None = None, y=None) -> None:
    import scipy.io as sio

    dense, counts, labels = _data()
    members = [dense, counts] if members is None else members
    y = labels if y is None else y
    sio.savemat(path, {"X": _cell(members), "Y": y[:, None]}, do_compression=False)


def _write_v5_compressed(path: Path, extra: dict | None = None, y=None) -> None:
    import scipy.io as sio

    dense, counts, labels = _data()
    variables = {"x1": dense, "x2": counts.T, "gt": labels if y is None else y}
    sio.savemat(path, {**variables, **(extra or {})}, do_compression=True)


def _write_v73(path: Path, members: tuple = ("a", "b"), y=None, extra=None) -> None:
    """MATLAB v7.3: a cell X of references into #refs# (``"Y"``: a reference to the labels)."""
    import h5py

    dense, counts, labels = _data()
    y = labels if y is None else y
    with h5py.File(path, "w", userblock_size=512) as f:
        refs = f.create_group("#refs#")
        targets = {}
        for key, value in (("a", dense), ("b", counts.toarray()), ("c", extra)):
            if value is None:
                continue
            targets[key] = refs.create_dataset(key, data=np.asarray(value, dtype=float).T)
            targets[key].attrs["MATLAB_class"] = np.bytes_("double")
        targets["Y"] = f.create_dataset("Y", data=y[None, :].astype(float))
        targets["Y"].attrs["MATLAB_class"] = np.bytes_("double")
        cell = f.create_dataset("X", shape=(len(members), 1), dtype=h5py.ref_dtype)
        for i, m in enumerate(members):
            cell[i, 0] = targets[m].ref
        cell.attrs["MATLAB_class"] = np.bytes_("cell")
    with open(path, "r+b") as fh:
        fh.write(b"MATLAB 7.3 MAT-file".ljust(116) + b"\0" * 8 + b"\x00\x02IM")


def _write_npz(path: Path, extra: dict | None = None, y=None, drop: str | None = None) -> None:
    import scipy.sparse as sp

    dense, counts, labels = _data()
    csr = sp.csr_matrix(counts)
    arrays = {"X0": dense, "X1_data": csr.data, "X1_indices": csr.indices,
              "X1_indptr": csr.indptr, "X1_shape": np.asarray(csr.shape),
              "y": labels - 1 if y is None else y, "name": np.asarray("gen")}  # fmt: skip
    if drop:
        arrays = {k: v for k, v in arrays.items() if not k.startswith(drop)}
    np.savez_compressed(path, **{**arrays, **(extra or {})})


def _write_csv(path: Path, extra: dict | None = None) -> None:
    dense, _, labels = _data()
    columns = {f"a:f{i}": [f"{v:.5g}" for v in dense[:, i]] for i in range(7)}
    columns.update(extra or {})
    columns["label"] = [str(v) for v in labels]
    rows = [",".join(columns)] + [",".join(c[i] for c in columns.values()) for i in range(N)]
    path.write_text("\n".join(rows) + "\n")


def _write_anndata(path: Path, kind: str) -> None:
    sys.path.append(str(ROOT / "tests"))  # appended: tests/core must not hide core
    from table_fixtures import write_h5ad, write_h5mu

    (write_h5ad if kind == "h5ad" else write_h5mu)(path)


WRITERS = {
    "v5_cell": ("gen_v5_cell.mat", _write_v5_cell),
    "v5_compressed": ("gen_v5_compressed.mat", _write_v5_compressed),
    "v73": ("gen_v73.mat", _write_v73),
    "npz": ("gen.npz", _write_npz),
    "csv": ("gen.csv", _write_csv),
    "h5ad": ("gen.h5ad", lambda p: _write_anndata(p, "h5ad")),
    "h5mu": ("gen.h5mu", lambda p: _write_anndata(p, "h5mu")),
}


def make_sources(folder: Path) -> list[Source]:
    """Small files in every format the app reads, written here."""
    out = []
    for kind, (name, write) in WRITERS.items():
        write(folder / name)
        out.append(Source(folder / name, kind, LABEL_COLUMNS.get(kind)))
    return out


def _h5_labels(f, kind: str) -> tuple[object, np.ndarray]:
    """The obs group of the label column and the cell ids."""
    obs = f["obs"]
    return obs[LABEL_COLUMNS[kind]], np.asarray(obs["_index"].asstr()[()])


def mutate(kind: str, mutation: str, path: Path, rng: np.random.Generator) -> str:
    """Write a generated file of ``kind`` to ``path`` with ``mutation``; says what was done."""
    import h5py

    dense, counts, labels = _data()
    if mutation == "labels-as-view":
        variant = str(rng.choice(["equal", "relabel", "onehot"]))
        leak = _leak(labels, variant, rng)
        replace = bool(rng.random() < 0.5)
        if kind == "v5_cell":
            members = [dense, counts]
            at = int(rng.integers(0, 2 if replace else 3))
            members[at : at + int(replace)] = [leak]
            _write_v5_cell(path, members)
            return f"X{{{at + 1}}} {'replaced by' if replace else 'added:'} labels ({variant})"
        if kind == "v5_compressed":
            name = "x2" if replace else "x3"
            _write_v5_compressed(path, extra={name: leak})
            return f"{name} = labels ({variant})"
        if kind == "v73":
            target = "Y" if variant == "equal" else "c"
            members = ("a", target) if replace else ("a", target, "b")
            _write_v73(path, members, extra=None if target == "Y" else leak)
            return f"cell X = {members} (c: labels {variant})"
        if kind == "npz":
            if replace:
                _write_npz(path, extra={"X1": leak}, drop="X1_")
                return f"X1 replaced by labels ({variant})"
            _write_npz(path, extra={"X2": leak})
            return f"X2 = labels ({variant})"
        if kind == "csv":
            extra = {f"c:k{j}": [f"{v:g}" for v in leak[:, j]] for j in range(leak.shape[1])}
            _write_csv(path, extra)
            return f"view c = labels ({variant})"
        _write_anndata(path, kind)
        with h5py.File(path, "r+") as f:
            col, ids = _h5_labels(f, kind)
            codes = col["codes"][()].astype(int)
            mapped = _leak(codes + 1, variant, rng)
            if kind == "h5ad":
                del f["X"]
                f.create_dataset("X", data=mapped)
                return f"X replaced by the {LABEL_COLUMNS[kind]} codes ({variant})"
            group = f["mod"].create_group("lab")
            group.attrs.update({"encoding-type": "anndata", "encoding-version": "0.1.0"})
            group.create_dataset("X", data=mapped)
            obs = group.create_group("obs")
            obs.attrs.update({"encoding-type": "dataframe", "encoding-version": "0.2.0",
                              "_index": "_index", "column-order": []})  # fmt: skip
            obs.create_dataset("_index", data=ids.astype(object), dtype=h5py.string_dtype())
            return f"modality 'lab' = the celltype codes ({variant})"
    if mutation == "modality-order":
        _write_anndata(path, kind)
        variant = str(rng.choice(["missing", "omit", "duplicate", "extra", "permute"]))
        order = {"missing": ["rna", "atac"], "omit": [str(rng.choice(["rna", "prot"]))],
                 "duplicate": ["rna", "rna", "prot"], "extra": ["rna", "prot", "atac"],
                 "permute": ["prot", "rna"]}[variant]  # fmt: skip
        with h5py.File(path, "r+") as f:
            f["mod"].attrs["mod-order"] = np.array(order, dtype=object)
        return f"mod-order {order} ({variant})"
    if mutation == "label-length":
        if kind in ("h5ad", "h5mu"):
            _write_anndata(path, kind)
            with h5py.File(path, "r+") as f:
                col, _ = _h5_labels(f, kind)
                codes, what = _resized(col["codes"][()], rng)
                del col["codes"]
                col.create_dataset("codes", data=codes)
            return f"obs '{LABEL_COLUMNS[kind]}' codes: {what}"
        y, what = _resized(labels, rng)
        if kind == "v5_cell":
            _write_v5_cell(path, y=y)
        elif kind == "v5_compressed":
            _write_v5_compressed(path, y=y)
        elif kind == "v73":
            _write_v73(path, y=y)
        else:
            _write_npz(path, y=y - 1)
        return what
    raise ValueError(f"no mutation {mutation!r} for {kind}")


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


# ----------------------------------------------------------------------------- reading


def _digest(x: object) -> str:
    import scipy.sparse as sp

    h = hashlib.sha1()
    if sp.issparse(x):
        m = sp.csr_matrix(x, dtype=np.float64, copy=True)
        m.sum_duplicates()
        m.sort_indices()
        for part in (m.data, m.indices.astype(np.int64), m.indptr.astype(np.int64)):
            h.update(np.ascontiguousarray(part).tobytes())
        h.update(str(m.shape).encode())
    else:
        arr = np.ascontiguousarray(np.asarray(x))
        h.update(arr.astype(np.float64 if arr.dtype.kind == "f" else arr.dtype).tobytes())
        h.update(str(arr.shape).encode())
    return h.hexdigest()[:16]


def signature(ds) -> dict:
    """What a damaged copy is compared on: samples, views (name, width, content), labels."""
    return {
        "n": ds.n_samples,
        "views": [
            {"name": name, "d": int(v.shape[1]), "hash": _digest(v)}
            for name, v in zip(ds.view_names, ds.views, strict=True)
        ],
        "labels": None if ds.labels is None else _digest(ds.labels),
        "n_classes": ds.n_classes,
        "label_variable": ds.meta.get("label_variable"),
        "metadata": sorted(ds.metadata),
        "warnings": list(ds.warnings),
    }


def _open(path: Path, label_column: str | None, isolated: bool, memory: int | None):
    from core.data.open import DataSource, OpenPolicy, open_dataset

    policy = OpenPolicy(isolate=isolated, stream="off", memory=memory if isolated else None)
    return open_dataset(DataSource(file=str(path), label_column=label_column), policy)


def _run_method(ds, method: str) -> None:
    from core.data.prepare import prepare_views
    from core.methods import REGISTRY

    cls = REGISTRY[method]
    k = ds.n_classes if (ds.n_classes or 0) >= 2 else "auto"
    views, _ = prepare_views(ds.views, "auto", cls.auto_preprocessing, ds.observed)
    cls(n_clusters=k, max_iter=5).fit(views, observed=ds.observed)


_PLAIN = re.compile(r"^[^\x00-\x08\x0b-\x1f\x7f]*$")


def _outcome_in_child(
    path: Path,
    label_column: str | None = None,
    isolated: bool = False,
    memory: int | None = None,
    run: str | None = None,
) -> dict:
    """The child's side: open the file (and run ``run``), return the outcome as a dict."""
    from core.data.dataset import DataError
    from core.methods.params import ParamError

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        answer = _open_outcome(path, label_column, isolated, memory, DataError)
        if run and answer.get("loaded") is not None:
            try:
                _run_method(answer["loaded"], run)
            except (DataError, ParamError) as exc:
                answer["run"] = f"refused: {str(exc)[:200]}"
            except MemoryError:
                answer.update(outcome="memory", detail=f"{run}: MemoryError")
            except Exception as exc:
                text = f"{run}: {type(exc).__name__}: {exc}"[:300]
                answer.update(outcome="raw exception", detail=text)
    answer.pop("loaded", None)
    seen = {f"{w.category.__name__}: {str(w.message)[:100]}" for w in caught}
    answer["warned"] = "; ".join(sorted(seen))[:400]
    return answer


def _open_outcome(path, label_column, isolated, memory, data_error) -> dict:
    try:
        ds = _open(path, label_column, isolated, memory)
    except MemoryError:
        return {"outcome": "memory", "detail": "MemoryError"}
    except data_error as exc:
        text = str(exc)
        if not _PLAIN.match(text) or len(text) > 1000:
            return {"outcome": "raw exception", "detail": f"unreadable message: {text[:200]!r}"}
        if "did not finish within" in text:
            return {"outcome": "stopped", "detail": text[:300]}
        named = path.name in text
        why = "" if named else "DataError without the file name: "
        return {"outcome": "clear error" if named else "raw exception", "detail": why + text[:300]}
    except Exception as exc:
        return {"outcome": "raw exception", "detail": f"{type(exc).__name__}: {exc}"[:300]}
    sig = signature(ds)
    return {"outcome": "loaded", "detail": f"{ds.n_samples} x {ds.dims}", "sig": sig, "loaded": ds}


def _limit_memory(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def child_main(argv: list[str]) -> None:
    """``python benchmarks/fuzz_loaders.py --child PATH LABEL ISOLATED MEMORY RUN``."""
    path, label, isolated, memory, run = argv
    answer = _outcome_in_child(Path(path), label or None, isolated == "1", int(memory), run or None)
    sys.stdout.write(json.dumps(answer) + "\n")


def _limits(case: Case, timeout: float | None, isolated: bool) -> float:
    """The case's limit (the reader's, by size) and how long the harness waits."""
    from core.data.isolated_load import time_limit

    case.limit = float(timeout) if timeout is not None else time_limit(case.path)
    return case.limit + (GRACE if isolated else 0.0)


def run_case(
    case: Case,
    timeout: float | None,
    memory: int,
    isolated: bool = False,
    run: str | None = None,
) -> Case:
    """Read ``case`` in a fresh interpreter (what the outcomes mean: see the module doc)."""
    wait = _limits(case, timeout, isolated)
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    argv = [str(case.path), case.label_column or "", "1" if isolated else "0", str(memory)]
    t0 = time.monotonic()
    proc = subprocess.Popen(  # its own process group: a reader child of its own goes too
        [sys.executable, str(Path(__file__).resolve()), "--child", *argv, run or ""],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
        preexec_fn=lambda: _limit_memory(memory),
    )
    try:
        stdout, stderr = proc.communicate(timeout=wait)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        case.outcome, case.detail = "hang", f"no answer within {wait:g} s"
        case.seconds = time.monotonic() - t0
        return case
    case.seconds = time.monotonic() - t0
    if proc.returncode < 0:
        case.outcome, case.detail = "crash", signal.Signals(-proc.returncode).name
        return case
    try:
        _take(case, json.loads(stdout.strip().splitlines()[-1]))
    except (IndexError, json.JSONDecodeError, KeyError):
        tail = stderr.strip().splitlines()[-1:] or ["no output"]
        memoryish = "MemoryError" in stderr or "Cannot allocate" in stderr
        case.outcome = "memory" if memoryish else "raw exception"
        case.detail = f"exit {proc.returncode}: {tail[0][:200]}"
    return case


def run_case_forked(
    case: Case,
    timeout: float | None,
    memory: int,
    isolated: bool = False,
    run: str | None = None,
) -> Case:
    """Like :func:`run_case`, in a fork of this process (the readers are imported once, so a
    case costs milliseconds instead of a Python start-up): same outcomes, same limits."""
    wait = _limits(case, timeout, isolated)
    read, write = os.pipe()
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: limit, read, answer, exit without cleanup
        os.close(read)
        code = 0
        try:
            os.setpgid(0, 0)  # its own group: a reader child of its own is killed with it
            _limit_memory(memory)
            answer = _outcome_in_child(case.path, case.label_column, isolated, memory, run)
            data = json.dumps(answer).encode()
            while data:
                data = data[os.write(write, data) :]
        except BaseException:
            code = 1
        os._exit(code)
    os.close(write)
    with contextlib.suppress(OSError):  # also here: no race with the child's own call
        os.setpgid(pid, pid)
    deadline = time.monotonic() + wait
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
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                case.outcome, case.detail = "hang", f"no answer within {wait:g} s"
                case.seconds = time.monotonic() - t0
                return case
        chunks.append(pipe.read())
    case.seconds = time.monotonic() - t0
    if os.WIFSIGNALED(status):
        case.outcome, case.detail = "crash", signal.Signals(os.WTERMSIG(status)).name
        return case
    try:
        _take(case, json.loads(b"".join(chunks)))
    except (json.JSONDecodeError, KeyError):
        case.outcome, case.detail = "raw exception", f"exit {os.WEXITSTATUS(status)}, no answer"
    return case


def _take(case: Case, answer: dict) -> None:
    case.outcome, case.detail = answer["outcome"], answer["detail"]
    case.warned = answer.get("warned", "")
    case.sig = answer.get("sig")
    if answer.get("run"):
        case.detail += f"; run {answer['run']}"


# ----------------------------------------------------------------------------- judging


def _notes(sig: dict, names: tuple[str, ...]) -> set[str]:
    out = set()
    for w in sig["warnings"]:
        for name in names:
            w = w.replace(name, "<file>")
        out.add(w)
    return out


def _named_dims(sig: dict, stems: tuple[str, ...]) -> dict[str, int]:
    """Widths of the views by name (positional names "view 2" left out; a view named after
    its file, as an .h5ad's X is, is "<file>")."""
    return {
        "<file>" if v["name"] in stems else v["name"]: v["d"]
        for v in sig["views"]
        if not re.fullmatch(r"view \d+", v["name"])
    }


def judge(case: Case, source: Source) -> None:
    """Turn "loaded" into loaded / loaded, noted / values changed / silently wrong, by the
    undamaged file's signature."""
    sig, ref = case.sig, source.reference
    if case.outcome != "loaded" or sig is None or ref is None:
        return
    names = (case.path.name, source.path.name, case.path.stem, source.path.stem)
    noted = bool(_notes(sig, names) - _notes(ref, names))
    same_structure = (
        sig["n"] == ref["n"]
        and sorted(v["d"] for v in sig["views"]) == sorted(v["d"] for v in ref["views"])
        and _named_dims(sig, names[2:]) == _named_dims(ref, names[2:])
        and (sig["labels"] is None) == (ref["labels"] is None)
        and sig["label_variable"] == ref["label_variable"]
        and sig["metadata"] == ref["metadata"]
    )
    same_values = (
        sorted(v["hash"] for v in sig["views"]) == sorted(v["hash"] for v in ref["views"])
        and sig["labels"] == ref["labels"]
        and sig["n_classes"] == ref["n_classes"]
    )
    if same_structure and same_values:
        case.outcome = "loaded"
    elif noted:
        case.outcome = "loaded, noted"
    elif same_structure and case.damage in BYTE_DAMAGES and sig["labels"] == ref["labels"]:
        case.outcome = "values changed"  # numbers inside a view: no checksum to tell
    else:
        case.outcome = "silently wrong"
        what = []
        if sig["n"] != ref["n"]:
            what.append(f"n {ref['n']} -> {sig['n']}")
        dims = [v["d"] for v in sig["views"]], [v["d"] for v in ref["views"]]
        if sorted(dims[0]) != sorted(dims[1]):
            what.append(f"dims {dims[1]} -> {dims[0]}")
        if sig["labels"] != ref["labels"]:
            what.append(f"labels differ (classes {ref['n_classes']} -> {sig['n_classes']})")
        if not what:
            what.append("view values or names differ")
        case.detail = f"{case.detail}: {', '.join(what)}, no note"


# ----------------------------------------------------------------------------- driving


def make_cases(
    sources: list[Source],
    n_files: int,
    seed: int,
    folder: Path,
    structural: float = 0.3,
    every_structural: bool = False,
) -> list[Case]:
    """``n_files`` damaged files taking the sources in turn: a structure mutation (where the
    source takes one) with probability ``structural``, else damaged bytes; with
    ``every_structural`` also one file per source and structure mutation it takes."""
    rng = np.random.default_rng(seed)
    plan = []
    for i in range(n_files):
        src = sources[i % len(sources)]
        kinds = APPLIES.get(src.kind, ())
        if kinds and rng.random() < structural:
            kind = str(kinds[int(rng.integers(len(kinds)))])
        else:
            kind = BYTE_DAMAGES[int(rng.integers(len(BYTE_DAMAGES)))]
        plan.append((src, kind, int(rng.integers(2**31 - 1))))
    if every_structural:
        for src in sources:
            for kind in APPLIES.get(src.kind, ()):
                plan.append((src, kind, int(rng.integers(2**31 - 1))))
    cases = []
    for i, (src, kind, case_seed) in enumerate(plan):
        path = folder / f"{i:05d}_{kind}_{src.path.stem}{src.path.suffix}"
        case_rng = np.random.default_rng(case_seed)
        if kind in STRUCTURAL:
            what = mutate(src.kind, kind, path, case_rng)
        else:
            path.write_bytes(damage(src.path.read_bytes(), kind, case_rng))
            what = ""
        cases.append(Case(src.path.name, kind, case_seed, path, src.label_column, what=what))
    return cases


def fuzz(
    n_files: int,
    seed: int,
    shared: Path | None,
    timeout: float | None = None,
    memory: int = 4 << 30,
    max_source_bytes: int = 40 << 20,
    isolated: bool = False,
    fork: bool = False,
    generated_only: bool = False,
    structural: float = 0.3,
    every_structural: bool = False,
    run: str | None = None,
    progress: bool = False,
) -> list[Case]:
    """Generate and read ``n_files`` damaged files; returns the cases with their outcomes.
    ``fork``: each case in a fork of this process (POSIX; much faster, same outcomes).
    ``timeout`` None: the reader's size-based limit (core.data.isolated_load.time_limit)."""
    with tempfile.TemporaryDirectory(prefix="mvc-fuzz-") as tmp:
        folder = Path(tmp)
        sources = make_sources(folder)
        if shared is not None and not generated_only:
            mats = sorted(p for p in shared.glob("*.mat") if p.stat().st_size <= max_source_bytes)
            sources += [Source(p, "shared") for p in mats]
        for src in sources:  # the undamaged file, opened the same way, in this process
            src.reference = signature(_open(src.path, src.label_column, False, None))
        by_name = {s.path.name: s for s in sources}
        cases = make_cases(sources, n_files, seed, folder, structural, every_structural)
        t0 = time.monotonic()
        for k, case in enumerate(cases):
            if fork:
                run_case_forked(case, timeout, memory, isolated, run)
            else:
                run_case(case, timeout, memory, isolated, run)
            judge(case, by_name[case.source])
            case.path.unlink(missing_ok=True)
            if progress and (k + 1) % 50 == 0:
                counts = Counter(c.outcome for c in cases[: k + 1])
                sys.stderr.write(
                    f"{k + 1}/{len(cases)} in {time.monotonic() - t0:.0f} s: "
                    + ", ".join(f"{o} {counts[o]}" for o in OUTCOMES if counts[o])
                    + "\n"
                )
        return cases


def report(cases: list[Case]) -> str:
    counts = Counter(c.outcome for c in cases)
    lines = [f"{len(cases)} damaged files"]
    lines += [f"  {o:<15} {counts.get(o, 0)}" for o in OUTCOMES]
    warned = [c for c in cases if c.warned]
    lines.append(f"  warnings escaped in {len(warned)} case(s)")
    for text, k in Counter(w for c in warned for w in c.warned.split("; ")).most_common(8):
        lines.append(f"    {k} x {text}")
    slowest = max(cases, key=lambda c: c.seconds / max(c.limit, 1e-9), default=None)
    if slowest is not None:
        lines.append(
            f"  slowest against its limit: {slowest.seconds:.1f} s of {slowest.limit:.1f} s "
            f"({slowest.source}, {slowest.damage}, {slowest.outcome})"
        )
    lines.append("per damage (" + ", ".join(OUTCOMES) + "):")
    for kind in DAMAGES:
        row = Counter(c.outcome for c in cases if c.damage == kind)
        if row:
            lines.append(f"  {kind:<15} " + " ".join(f"{row.get(o, 0):>4}" for o in OUTCOMES))
    bad = [c for c in cases if c.outcome in (*BAD, "memory")]
    order = {o: i for i, o in enumerate(("crash", "hang", "silently wrong", "raw exception"))}
    bad.sort(key=lambda c: order.get(c.outcome, 9))
    if bad:
        lines.append("worst examples (source, damage, seed: outcome, detail):")
        for c in bad[:20]:
            what = c.what
            lines.append(
                f"  {c.source}, {c.damage}{f' ({what})' if what else ''}, {c.seed}: "
                f"{c.outcome}, {c.detail}"
            )
    noted = [c for c in cases if c.damage in STRUCTURAL and c.outcome == "loaded, noted"][:3]
    if noted:
        lines.append("structure mutations noted, e.g.:")
        lines += [f"  {c.source}, {c.what}: {c.detail}" for c in noted]
    by_source = Counter((c.source, c.outcome) for c in cases)
    lines.append(
        "per source: " + "; ".join(f"{s} {o} {k}" for (s, o), k in sorted(by_source.items()))
    )
    return "\n".join(lines)


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child_main(sys.argv[2:])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="seconds per file (default: the reader's limit for the file's size, "
        "30 s + 0.25 s per MB)",
    )
    ap.add_argument(
        "--isolated",
        action="store_true",
        help="read through core.data.isolated_load (what the app, `mvc info` and `mvc run` "
        "do for HDF5 files): a reader that dies or loops in its child must come back as a "
        "clear error",
    )
    ap.add_argument(
        "--fork",
        action="store_true",
        help="read each file in a fork of this process (readers imported once: much faster)",
    )
    ap.add_argument(
        "--generated-only",
        action="store_true",
        help="damage only the files made here, not the shared .mat files",
    )
    ap.add_argument(
        "--structural",
        type=float,
        default=0.3,
        help="share of the generated files given a structure mutation (default 0.3)",
    )
    ap.add_argument(
        "--every-structural",
        action="store_true",
        help="also one file per generated source and structure mutation it takes",
    )
    ap.add_argument("--run", metavar="METHOD", help="also run METHOD on what loaded (e.g. fmdc)")
    ap.add_argument("--json", metavar="PATH", help="write every case (outcome, detail) here")
    args = ap.parse_args()
    root = os.environ.get("MVC_DATASETS")
    shared = Path(root) if root else None
    t0 = time.monotonic()
    cases = fuzz(
        args.files,
        args.seed,
        shared,
        args.timeout,
        isolated=args.isolated,
        fork=args.fork,
        generated_only=args.generated_only,
        structural=args.structural,
        every_structural=args.every_structural,
        run=args.run,
        progress=True,
    )
    print(report(cases))
    print(f"{time.monotonic() - t0:.0f} s")
    if args.json:
        rows = [
            {"source": c.source, "damage": c.damage, "what": c.what,
             "seed": c.seed, "outcome": c.outcome, "detail": c.detail,
             "seconds": round(c.seconds, 2), "limit": round(c.limit, 1), "warned": c.warned}
            for c in cases
        ]  # fmt: skip
        Path(args.json).write_text(json.dumps(rows, indent=1))
    bad = sum(c.outcome in BAD for c in cases)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
