"""Session files (Qt-free): the data source, the user's choices and the run history as JSON.

A session file lets a teacher prepare a class in advance: reopening it loads the same data,
restores the view selection, preprocessing, method and parameters, the runs (labels, curves,
metrics), which can then be shown and compared without rerunning, and the named groups of
samples (optional: sessions saved before groups existed open as they did). The schema is
documented in ``docs/sessions.md``; :func:`load_session` checks it and raises
:class:`SessionFileError` with a message that names the offending key. Files are written atomically
(``core.records.runs.atomic_write``).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from core.data.atomic import atomic_write
from core.records.runs import RunResult, _jsonable, package_versions
from core.records.session_codec import SessionFileError, decode_labels, encode_labels

__all__ = [
    "FORMAT", "VERSION", "DataSource", "SessionFileError", "SessionState", "StoredGroup",
    "StoredRun",
    "decode_labels", "encode_labels", "load_session", "parse_session", "resolve_data_path",
    "save_session", "session_json",
]  # fmt: skip

FORMAT = "mvc-studio-session"
VERSION = 1


# -- the model ---------------------------------------------------------------------------------
@dataclass
class DataSource:
    """Where the data came from: a file (absolute and session-relative path) or a demo.

    ``kind`` is ``"file"`` or ``"demo"``. Demos are named as
    ``mvc_gui.model.data_session.load_demo``
    accepts them (``handwritten``, ``two_moons``, ``synthetic-3000``); synthetic sets also
    keep their generator parameters (``n``, ``dims``, ``c``, ``seed``).
    """

    kind: str
    name: str
    n_samples: int
    view_names: list[str]
    path: str | None = None
    relative_path: str | None = None
    demo: str | None = None
    synthetic: dict[str, Any] | None = None
    #: kind "tables": the :class:`core.data.io.DataSpec` (views aligned by id) as a dict
    spec: dict[str, Any] | None = None
    #: the samples' own ids in data order (checked when the session is reopened)
    sample_ids: list[str] | None = None


@dataclass
class StoredRun:
    """One run of the history: its record (labels included), convergence curves and time."""

    number: int
    result: RunResult
    seconds: float | None = None
    iterations: list[int] = field(default_factory=list)
    objective: list[float] = field(default_factory=list)
    metric_iterations: list[int] = field(default_factory=list)
    metric_curves: dict[str, list[float]] = field(default_factory=dict)


@dataclass
class StoredGroup:
    """A named group of samples (0-based indices into the data) and its colour."""

    name: str
    indices: np.ndarray
    colour: str | None = None


@dataclass
class SessionState:
    source: DataSource
    included: list[bool]
    preprocessing: list[str]
    method: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    runs: list[StoredRun] = field(default_factory=list)
    #: the user's named groups of samples (optional in the file: older sessions have none)
    groups: list[StoredGroup] = field(default_factory=list)
    created: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    versions: dict[str, str] = field(default_factory=package_versions)

    @property
    def seed(self) -> Any:
        return self.params.get("random_state")


# -- writing -----------------------------------------------------------------------------------
def _run_record(run: StoredRun) -> dict[str, Any]:
    r = run.result
    return {
        "number": run.number,
        "method": r.method,
        "params": r.params,
        "seed": r.params.get("random_state"),
        "metrics": r.metrics,
        "timings": r.timings,
        "seconds": run.seconds,
        "n_iter": r.n_iter,
        "converged": r.converged,
        "stopped": r.stopped_early,
        "objective_history": r.objective_history,
        "history": r.history,
        "view_weights": r.view_weights,
        "view_names": r.view_names,
        "class_names": r.class_names,
        "preprocessing": r.preprocessing,
        "dataset": r.dataset,
        "versions": r.versions,
        "created": r.created,
        "curve": {
            "iterations": run.iterations,
            "objective": run.objective,
            "metric_iterations": run.metric_iterations,
            "metrics": run.metric_curves,
        },
        "labels": encode_labels(r.labels),
    }


def session_json(state: SessionState, session_path: str | os.PathLike[str]) -> str:
    """The session as JSON text; a file source also gets its path relative to the session
    file's folder (so a folder holding both can be moved or copied to another machine)."""
    src = state.source
    data: dict[str, Any] = {
        "kind": src.kind,
        "name": src.name,
        "n_samples": src.n_samples,
        "view_names": src.view_names,
    }
    if src.kind == "file":
        absolute = Path(src.path or "").resolve()
        data["path"] = str(absolute)
        try:
            rel = os.path.relpath(absolute, Path(session_path).resolve().parent)
        except ValueError:  # another drive on Windows
            rel = None
        data["relative_path"] = None if rel is None else Path(rel).as_posix()
    elif src.kind == "tables":
        data["spec"] = src.spec
    else:
        data["demo"] = src.demo
        if src.synthetic is not None:
            data["synthetic"] = src.synthetic
    if src.sample_ids is not None:
        data["sample_ids"] = list(src.sample_ids)
    record = {
        "format": FORMAT,
        "version": VERSION,
        "created": state.created,
        "versions": state.versions,
        "data": data,
        "views": {"included": state.included, "preprocessing": state.preprocessing},
        "method": {"name": state.method, "params": state.params, "seed": state.seed},
        "runs": [_run_record(r) for r in state.runs],
        "groups": [
            {"name": g.name, "colour": g.colour, "indices": encode_labels(g.indices)}
            for g in state.groups
        ],
    }
    return json.dumps(_jsonable(record), indent=1)


def save_session(path: str | os.PathLike[str], state: SessionState) -> Path:
    """Write the session atomically (temporary file, then rename)."""
    return atomic_write(path, session_json(state, path))


# -- reading -----------------------------------------------------------------------------------
def _need(obj: dict, key: str, kind: type, where: str, optional: bool = False) -> Any:
    value = obj.get(key)
    if value is None:
        if optional:
            return None
        raise SessionFileError(f"{where}: the key '{key}' is missing")
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise SessionFileError(f"{where}: '{key}' must be {kind.__name__}, got {value!r:.60}")
    return value


def _floats(values: Any, where: str) -> list[float]:
    if not isinstance(values, list):
        raise SessionFileError(f"{where} must be a list of numbers")
    out = []
    for v in values:
        if v is None:
            out.append(float("nan"))  # non-finite values are written as null
        elif isinstance(v, int | float) and not isinstance(v, bool):
            out.append(float(v))
        else:
            raise SessionFileError(f"{where} must be a list of numbers, found {v!r:.40}")
    return out


def _ints(values: Any, where: str) -> list[int]:
    if not isinstance(values, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in values
    ):
        raise SessionFileError(f"{where} must be a list of integers")
    return list(values)


def _parse_source(data: Any) -> DataSource:
    if not isinstance(data, dict):
        raise SessionFileError("'data' must be an object describing the data source")
    kind = _need(data, "kind", str, "data")
    if kind not in ("file", "demo", "tables"):
        raise SessionFileError(f"data: 'kind' must be 'file', 'demo' or 'tables', got {kind!r}")
    src = DataSource(
        kind=kind,
        name=_need(data, "name", str, "data"),
        n_samples=_need(data, "n_samples", int, "data"),
        view_names=[str(v) for v in _need(data, "view_names", list, "data")],
    )
    ids = _need(data, "sample_ids", list, "data", optional=True)
    if ids is not None:
        if len(ids) != src.n_samples or not all(isinstance(i, str) for i in ids):
            raise SessionFileError(f"data: 'sample_ids' must be {src.n_samples} strings")
        src.sample_ids = ids
    if kind == "file":
        src.path = _need(data, "path", str, "data")
        src.relative_path = _need(data, "relative_path", str, "data", optional=True)
    elif kind == "tables":
        src.spec = _need(data, "spec", dict, "data")
    else:
        src.demo = _need(data, "demo", str, "data")
        synthetic = _need(data, "synthetic", dict, "data", optional=True)
        if synthetic is not None:
            for key in ("n", "c", "seed"):
                _need(synthetic, key, int, "data.synthetic")
            _ints(_need(synthetic, "dims", list, "data.synthetic"), "data.synthetic.dims")
        src.synthetic = synthetic
    return src


def _parse_run(obj: Any, i: int) -> StoredRun:
    where = f"runs[{i}]"
    if not isinstance(obj, dict):
        raise SessionFileError(f"{where} must be an object")
    labels = decode_labels(obj.get("labels"), f"{where}.labels")
    curve = _need(obj, "curve", dict, where, optional=True) or {}
    weights = obj.get("view_weights")

    def numbers(key: str) -> dict[str, float]:  # metrics, timings: numeric entries only
        table = _need(obj, key, dict, where, optional=True) or {}
        return {str(k): float(v) for k, v in table.items() if isinstance(v, int | float)}

    result = RunResult(
        method=_need(obj, "method", str, where),
        params=_need(obj, "params", dict, where),
        labels=labels,
        view_names=[str(v) for v in _need(obj, "view_names", list, where, optional=True) or []],
        view_weights=None if weights is None else _floats(weights, f"{where}.view_weights"),
        objective_history=_floats(obj.get("objective_history", []), f"{where}.objective_history"),
        history={
            str(k): _floats(v, f"{where}.history.{k}")
            for k, v in (_need(obj, "history", dict, where, optional=True) or {}).items()
        },
        n_iter=_need(obj, "n_iter", int, where),
        converged=bool(obj.get("converged", False)),
        stopped_early=bool(_need(obj, "stopped", bool, where)),
        metrics=numbers("metrics"),
        timings=numbers("timings"),
        dataset=dict(_need(obj, "dataset", dict, where, optional=True) or {}),
        preprocessing=[str(p) for p in _need(obj, "preprocessing", list, where, True) or []],
        class_names=[str(c) for c in _need(obj, "class_names", list, where, True) or []],
        versions=dict(_need(obj, "versions", dict, where, optional=True) or {}),
        created=str(obj.get("created", "")),
    )
    seconds = obj.get("seconds")
    curves = curve.get("metrics") or {}
    if not isinstance(curves, dict):
        raise SessionFileError(f"{where}.curve.metrics must be an object")
    return StoredRun(
        number=_need(obj, "number", int, where),
        result=result,
        seconds=float(seconds) if isinstance(seconds, int | float) else None,
        iterations=_ints(curve.get("iterations", []), f"{where}.curve.iterations"),
        objective=_floats(curve.get("objective", []), f"{where}.curve.objective"),
        metric_iterations=_ints(
            curve.get("metric_iterations", []), f"{where}.curve.metric_iterations"
        ),
        metric_curves={str(k): _floats(v, f"{where}.curve.metrics.{k}") for k, v in curves.items()},
    )


def _parse_groups(entries: Any, n_samples: int) -> list[StoredGroup]:
    """The named groups (a list of name, colour, indices), checked against the data size."""
    if not isinstance(entries, list):
        raise SessionFileError("'groups' must be a list of groups")
    groups: list[StoredGroup] = []
    for i, obj in enumerate(entries):
        where = f"groups[{i}]"
        if not isinstance(obj, dict):
            raise SessionFileError(f"{where} must be an object")
        name = _need(obj, "name", str, where)
        if name in (g.name for g in groups):
            raise SessionFileError(f"{where}: the name {name!r} is used twice")
        colour = _need(obj, "colour", str, where, optional=True)
        indices = decode_labels(obj.get("indices"), f"{where}.indices")
        if indices.size and (indices.min() < 0 or indices.max() >= n_samples):
            raise SessionFileError(
                f"{where}.indices: sample indices must lie in 0..{n_samples - 1} (the data "
                f"has {n_samples} samples)"
            )
        groups.append(StoredGroup(name, np.unique(indices), colour))
    return groups


def parse_session(record: Any) -> SessionState:
    """Check a decoded JSON document and build the session (SessionFileError if invalid)."""
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise SessionFileError(f'not an MVC Studio session file (no "format": "{FORMAT}")')
    version = record.get("version")
    if type(version) is not int or version != VERSION:
        hint = (
            "it was written by a newer MVC Studio: update the application"
            if type(version) is int and version > VERSION
            else f"this MVC Studio reads version {VERSION}"
        )
        raise SessionFileError(f"unsupported session file version {version!r}: {hint}")
    source = _parse_source(record.get("data"))
    views = _need(record, "views", dict, "session")
    included = _need(views, "included", list, "views")
    if not all(isinstance(v, bool) for v in included):
        raise SessionFileError("views: 'included' must be a list of true/false")
    preprocessing = [str(p) for p in _need(views, "preprocessing", list, "views")]
    if len(included) != len(preprocessing):
        raise SessionFileError(
            f"views: {len(included)} 'included' flags but {len(preprocessing)} preprocessing "
            "entries"
        )
    method = _need(record, "method", dict, "session", optional=True) or {}
    runs = [
        _parse_run(r, i) for i, r in enumerate(_need(record, "runs", list, "session", True) or [])
    ]
    for i, run in enumerate(runs):
        if run.result.labels.size != source.n_samples:
            raise SessionFileError(
                f"runs[{i}].labels: {run.result.labels.size} labels, but the data has "
                f"{source.n_samples} samples"
            )
        run.result.sample_ids = source.sample_ids  # the data's own ids, stored once
    groups = _parse_groups(record.get("groups") or [], source.n_samples)
    return SessionState(
        source=source,
        included=list(included),
        preprocessing=preprocessing,
        method=_need(method, "name", str, "method", optional=True),
        params=dict(_need(method, "params", dict, "method", optional=True) or {}),
        runs=runs,
        groups=groups,
        created=str(record.get("created", "")),
        versions=dict(record.get("versions") or {}),
    )


def load_session(path: str | os.PathLike[str]) -> SessionState:
    """Read and check a session file. Raises SessionFileError naming the file."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise SessionFileError(f"cannot read the session file {p}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SessionFileError(_not_text(p, raw, exc)) from None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        head = text.lstrip()[:1]
        what = "" if head in ("{", "[") else " (an MVC Studio session file is JSON text)"
        raise SessionFileError(
            f"{p.name} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}){what}"
        ) from None
    try:
        return parse_session(record)
    except SessionFileError as exc:
        raise SessionFileError(f"{p.name}: {exc}") from None


#: what the first bytes of a file say it is, for the message on a file that is not text
_MAGIC = (
    (b"\x1f\x8b", "a gzip-compressed file (.gz): decompress it first"),
    (b"BZh", "a bzip2-compressed file (.bz2): decompress it first"),
    (b"\xfd7zXZ\x00", "an xz-compressed file (.xz): decompress it first"),
    (b"\x28\xb5\x2f\xfd", "a zstd-compressed file (.zst): decompress it first"),
    (b"PK\x03\x04", "a zip archive (or an .npz): extract the session file from it"),
    (b"\x89HDF", "an HDF5 file (data, e.g. MATLAB v7.3 or .h5ad): open it as data"),
    (b"MATLAB", "a MATLAB .mat file (data): open it as data"),
)


def _not_text(p: Path, raw: bytes, exc: UnicodeDecodeError) -> str:
    """Why ``p`` cannot be a session file: what it looks like (compressed, data), never the
    codec's words alone."""
    what = next((w for magic, w in _MAGIC if raw.startswith(magic)), None)
    if what is None and raw[:1] in (b"\x78",) and raw[1:2] in (b"\x01", b"\x5e", b"\x9c", b"\xda"):
        what = "zlib-compressed data: decompress it first"
    if what is None:
        what = f"binary, not text (byte 0x{raw[exc.start]:02x} at offset {exc.start} is not UTF-8)"
    return f"{p.name} is not an MVC Studio session file (JSON text): it is {what}"


def resolve_data_path(source: DataSource, session_path: str | os.PathLike[str]) -> Path:
    """The data file of a file source: the absolute path if it exists, else the path
    relative to the session file. Raises SessionFileError naming what was tried."""
    tried = []
    if source.path:
        p = Path(source.path)
        if p.exists():
            return p
        tried.append(str(p))
    if source.relative_path:
        p = (Path(session_path).resolve().parent / source.relative_path).resolve()
        if p.exists():
            return p
        tried.append(str(p))
    if not tried:
        raise SessionFileError("the session names no data file")
    also = f" (also looked for {tried[1]})" if len(tried) > 1 else ""
    raise SessionFileError(f"the session's data file is missing: {tried[0]}{also}")
