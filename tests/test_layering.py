"""The layout's rules, read from the source (docs/architecture.md): layers import only
downward, a method package imports no other method, core never imports Qt, the GUI's
model is Qt-free, and no two modules import each other in a circle.

Every import counts, also those inside functions: a lazy import still ties two modules.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
QT = ("PySide6", "pyqtgraph", "superqt", "shiboken6")

#: core layers, bottom first: a module may import its own layer and the ones before it
CORE_LAYERS = ("data", "numerics", "methods", "records", "experiments", "analysis", "cli")
#: mvc_gui packages, bottom first (the entry point ``app`` and ``__main__`` may import all)
GUI_LAYERS = ("model", "run", "plots", "panels", "tools", "window")
#: what a method package (core/methods/<name>/) may import besides itself
METHOD_PACKAGE_MAY_IMPORT = (
    "core.data",
    "core.numerics",
    "core.methods.base",
    "core.methods.params",
)
#: deprecated aliases kept for one release (CHANGELOG.md): they import what they alias
ALIASES = ("core.solvers",)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def modules() -> dict[str, Path]:
    found = {}
    for top in ("core", "mvc_gui"):
        for path in sorted((ROOT / top).rglob("*.py")):
            found[_module_name(path)] = path
    return found


def _resolve(name: str) -> str:
    """The longest prefix of ``name`` that is one of our modules (``from a.b import c``
    names module ``a.b.c`` when it exists, else ``a.b``)."""
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        candidate = ".".join(parts[:k])
        if candidate in modules():
            return candidate
    return name


@cache
def imports_of(module: str) -> tuple[str, ...]:
    """Every module ``module`` imports (ours resolved to a module, others as written)."""
    path = modules()[module]
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(_resolve(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                out.add(_resolve(f"{base}.{alias.name}"))
    out.discard(module)
    return tuple(sorted(out))


def _ours(name: str) -> bool:
    return name.split(".")[0] in ("core", "mvc_gui")


def _layer(module: str, layers: tuple[str, ...]) -> int | None:
    parts = module.split(".")
    return layers.index(parts[1]) if len(parts) > 1 and parts[1] in layers else None


def _violations() -> Iterator[str]:
    for module in modules():
        if module.startswith(ALIASES):
            continue
        for target in imports_of(module):
            yield from _check(module, target)


def _check(module: str, target: str) -> Iterator[str]:
    top = module.split(".")[0]
    if top == "core":
        if target.startswith(QT) or target.startswith("mvc_gui"):
            yield f"{module} imports {target}: core never imports Qt or the GUI"
        if not target.startswith("core."):
            return
        if target.startswith(ALIASES):
            yield f"{module} imports the deprecated alias {target}"
        own, other = _layer(module, CORE_LAYERS), _layer(target, CORE_LAYERS)
        if own is not None and other is not None and other > own:
            yield f"{module} (layer {CORE_LAYERS[own]}) imports {target} (layer above)"
        parts = module.split(".")
        if len(parts) > 3 and parts[1] == "methods":  # core.methods.<name>.<module>
            package = ".".join(parts[:3])
            if not target.startswith((package, *METHOD_PACKAGE_MAY_IMPORT)):
                yield f"{module} imports {target}: methods import data, numerics, base, params"
        return
    if not _ours(target) and not target.startswith(QT):
        return
    own = _layer(module, GUI_LAYERS)
    if own is None:  # app, __main__: the entry point may import everything
        return
    if GUI_LAYERS[own] == "model" and (target.startswith(QT) or target.startswith("mvc_gui")):
        if not target.startswith("mvc_gui.model"):
            yield f"{module} imports {target}: the GUI model is Qt-free and imports only core"
    other = _layer(target, GUI_LAYERS) if target.startswith("mvc_gui") else None
    if other is not None and other > own:
        yield f"{module} ({GUI_LAYERS[own]}) imports {target} (a package above it)"


def test_layers_import_only_downward():
    bad = sorted(set(_violations()))
    assert not bad, "\n".join(bad)


def _circles() -> list[list[str]]:
    """Strongly connected components of two or more modules (Tarjan)."""
    graph = {m: [t for t in imports_of(m) if t in modules()] for m in modules()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_import_circles():
    assert _circles() == []


@pytest.mark.parametrize("package", ["core", "mvc_gui"])
def test_every_package_says_what_it_holds_and_may_import(package):
    missing = []
    for init in sorted((ROOT / package).rglob("__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        if module := _module_name(init):
            if not doc or ("May import" not in doc and module.count(".") <= 1):
                missing.append(module)
    assert not missing, f"packages without a docstring saying what they may import: {missing}"


def test_the_rules_catch_a_violation():
    """The checker itself: an upward import and a method importing another are reported."""
    assert list(_check("core.data.dataset", "core.methods.base"))
    assert list(_check("core.methods.fmdc.solver", "core.methods.alpc.updates"))
    assert list(_check("core.numerics.anchors", "PySide6.QtCore"))
    assert list(_check("mvc_gui.model.palette", "PySide6.QtGui"))
    assert list(_check("mvc_gui.plots.base", "mvc_gui.tools.runs"))
    assert not list(_check("core.methods.fmdc.solver", "core.numerics.graphs"))
