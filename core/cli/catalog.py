"""What the commands know about the methods before importing them.

Importing the solvers takes numba, scikit-learn and every kernel module (about 1 s on a warm
disk, 5 s on a cold one) although ``mvc --help``, ``mvc methods`` and ``mvc info FILE`` need
none of it. Here:

* :func:`method_names` and :func:`streaming_methods` read the ``@register`` classes'
  ``name = "..."`` and ``streams = True`` from the sources of ``core/methods`` (no import);
  classes registered at run time (tests, plug-ins) join them once the registry is loaded.
* :data:`REGISTRY`: ``core.methods.REGISTRY`` seen from the commands, a read-only mapping
  whose keys are those names; looking up a value (the class) imports the solvers.
* :func:`method_table` (``mvc methods``): titles, summaries and parameter tables from a copy
  in the user's cache folder, kept under a key made of the sizes and times of ``core``'s
  sources; without a copy for these sources it imports the registry once and writes one.
* :func:`source_literal`: a module's constant (``NOISE_SCALES = (...)``) read from its source,
  for a parser's ``choices``, without importing the module.

Where there are no sources (a frozen build) everything is read from the imported registry.
``tests/core/cli/test_light_imports.py`` holds the sources and the registry to the same
answers.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import hashlib
import importlib
import importlib.util
import json
import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from core.methods.params import Param, ParamSpec

__all__ = [
    "REGISTRY",
    "MethodInfo",
    "method_names",
    "method_table",
    "source_literal",
    "streaming_methods",
]

_CORE = Path(__file__).resolve().parents[1]
_METHODS = _CORE / "methods"
#: the copy of the method table, in the folder of MVC Studio's caches
TABLE_FILE = "methods.json"


class MethodInfo(NamedTuple):
    """What ``mvc methods`` prints of a method (the class attributes of the same names)."""

    name: str
    title: str
    summary: str
    streams: bool
    param_spec: ParamSpec


# -- names, from the sources ----------------------------------------------------------------
def _method_files() -> Iterator[Path]:
    """The modules of ``core/methods`` in the order ``core.methods.discover`` imports them
    (pkgutil's: sorted names; a package's own modules sorted within it)."""
    for entry in sorted(os.listdir(_METHODS)):
        path = _METHODS / entry
        if (path / "__init__.py").is_file():
            yield from sorted(path.rglob("*.py"))
        elif entry.endswith(".py") and entry != "__init__.py":
            yield path


def _class_literals(node: ast.ClassDef) -> dict[str, Any]:
    """The class attributes assigned a literal in the class body."""
    out = {}
    for stmt in node.body:
        target, value = None, None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            target, value = stmt.target, stmt.value
        if isinstance(target, ast.Name):
            try:
                out[target.id] = ast.literal_eval(value)
            except ValueError:
                continue
    return out


def _registers(node: ast.stmt) -> bool:
    return isinstance(node, ast.ClassDef) and any(
        isinstance(d, ast.Name) and d.id == "register" for d in node.decorator_list
    )


@functools.cache
def _scanned() -> tuple[tuple[str, bool], ...] | None:
    """(name, streams) of every ``@register`` class in the sources, or None when a name is not
    a literal or there are no sources: then the registry answers."""
    found = []
    try:
        for path in _method_files():
            text = path.read_text(encoding="utf-8")
            if "@register" not in text:
                continue
            for node in ast.parse(text, filename=str(path)).body:
                if _registers(node):
                    attrs = _class_literals(node)
                    if not isinstance(attrs.get("name"), str):
                        return None
                    found.append((attrs["name"], attrs.get("streams") is True))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    return tuple(found) or None


def _loaded_registry() -> dict[str, type] | None:
    """``REGISTRY`` if the solvers' base module is loaded already (tests register fakes)."""
    base = sys.modules.get("core.methods.base")
    return getattr(base, "REGISTRY", None)


def _registry() -> dict[str, type]:
    # imports every solver, numba and scikit-learn
    from core.methods import REGISTRY as registry

    return registry


def method_names() -> list[str]:
    """The registered methods' names, in ``REGISTRY``'s order, without importing them."""
    scanned = _scanned()
    if scanned is None:
        return list(_registry())
    names = [name for name, _ in scanned]
    loaded = _loaded_registry() or {}
    return names + [name for name in loaded if name not in names]


def streaming_methods() -> list[str]:
    """Names of the methods that accept row-block views (``streams`` on the class)."""
    scanned = _scanned()
    if scanned is None:
        return [name for name, cls in _registry().items() if cls.streams]
    names = [name for name, streams in scanned if streams]
    loaded = _loaded_registry() or {}
    return names + [n for n, cls in loaded.items() if cls.streams and n not in dict(scanned)]


class _Registry(Mapping[str, type]):
    """``core.methods.REGISTRY`` for the commands: keys without importing, values imported."""

    def __getitem__(self, name: str) -> type:
        return _registry()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(method_names())

    def __len__(self) -> int:
        return len(method_names())

    def __contains__(self, name: object) -> bool:
        return name in method_names()

    def __repr__(self) -> str:
        return f"<registry of {', '.join(method_names())}>"


REGISTRY: Mapping[str, type] = _Registry()


# -- the method table, from a copy ----------------------------------------------------------
def _sources_key() -> str | None:
    """Names, sizes and modification times of ``core``'s sources (~2 ms: no file is read),
    with the Python version; None without sources."""
    digest = hashlib.sha1(f"{sys.version}\0{_CORE}".encode())
    count = 0
    for path in sorted(_CORE.rglob("*.py")):
        try:
            st = path.stat()
        except OSError:
            continue
        name = path.relative_to(_CORE).as_posix()
        digest.update(f"{name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
        count += 1
    return digest.hexdigest()[:16] if count else None


def _table_path() -> Path:
    from core.numerics.jit.config import app_cache_dir

    return app_cache_dir() / TABLE_FILE


def _info_json(info: MethodInfo) -> dict[str, Any]:
    return {
        **info._asdict(),
        "param_spec": [dataclasses.asdict(p) for p in info.param_spec],
    }


def _info_from_json(data: dict[str, Any]) -> MethodInfo:
    params = [Param(**{**p, "choices": tuple(p["choices"])}) for p in data["param_spec"]]
    return MethodInfo(
        data["name"],
        data["title"],
        data["summary"],
        data["streams"],
        ParamSpec(*params),
    )


def _same(a: MethodInfo, b: MethodInfo) -> bool:
    return a[:4] == b[:4] and list(a.param_spec) == list(b.param_spec)


def _read_table(key: str) -> list[MethodInfo] | None:
    try:
        data = json.loads(_table_path().read_text(encoding="utf-8"))
        if data.get("key") != key:
            return None
        return [_info_from_json(m) for m in data["methods"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_table(key: str, infos: list[MethodInfo]) -> None:
    """Keep a copy, when it reads back the same (a default JSON cannot hold is not kept)."""
    methods = [_info_json(i) for i in infos]
    text = json.dumps({"key": key, "methods": methods})
    try:
        back = [_info_from_json(m) for m in json.loads(text)["methods"]]
    except (ValueError, TypeError):
        return
    if not all(_same(a, b) for a, b in zip(infos, back, strict=True)):
        return
    from core.data.atomic import atomic_write

    try:
        path = _table_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, text)
    except OSError:
        pass  # a read-only home: the registry answers every time


def _info(cls: type) -> MethodInfo:
    return MethodInfo(cls.name, cls.title, cls.summary, bool(cls.streams), cls.param_spec)


def method_table() -> list[MethodInfo]:
    """Every method's name, title, summary and parameters, in ``REGISTRY``'s order: from the
    copy for these sources when there is one, else from the registry (then copied)."""
    key = _sources_key()
    scanned = [name for name, _ in _scanned() or ()]
    infos = _read_table(key) if key else None
    if infos is None or [i.name for i in infos] != scanned:
        infos = [_info(cls) for cls in _registry().values()]
        if key and scanned:
            _write_table(key, [i for i in infos if i.name in scanned])
        return infos
    loaded = _loaded_registry() or {}
    return infos + [_info(cls) for name, cls in loaded.items() if name not in scanned]


# -- constants of modules not imported yet --------------------------------------------------
def source_literal(module: str, name: str) -> Any:
    """The literal a module assigns to ``name`` at its top level, read from its source (its
    own imports may take seconds); imported when there is no source or it is no literal."""
    spec = importlib.util.find_spec(module)
    origin = getattr(spec, "origin", None)
    if origin and origin.endswith(".py"):
        try:
            tree = ast.parse(Path(origin).read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError):
            tree = None
        for node in tree.body if tree else ():
            targets = node.targets if isinstance(node, ast.Assign) else []
            if isinstance(node, ast.AnnAssign):
                targets = [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                try:
                    return ast.literal_eval(node.value)
                except ValueError:
                    break
    return getattr(importlib.import_module(module), name)
