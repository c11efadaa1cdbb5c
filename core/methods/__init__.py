"""Layer 3, methods: the solver protocol, parameter tables, the registry and the methods.

``base`` (protocol, ``Reporter``, ``REGISTRY``), ``params`` (``ParamSpec``: validation, CLI
flags, GUI widgets), ``baselines``, and one package per method (``fmdc/``, ``alpc/``,
``rgmvc/``, ``dtll/``, ``mvsc_hfd/``), each with ``solver.py`` (the estimator), ``updates.py``
(its update rules) and its own numba kernels (``jit*.py``). The first use of ``REGISTRY`` (or
of a class name, ``from core.methods import FMDC``) discovers every method package and module
here, so their ``@register`` classes join ``REGISTRY``: a new method is a new package, named
nowhere else. Only then: importing this package, or a light module of it (``params``), loads
no solver, numba or scikit-learn (``mvc --help`` does not need them; ``core.cli.catalog``).
Each class declares what it can do (``supports_incomplete``, ``streams``, ``tune_grid``,
``panel_notes``, ``auto_preprocessing``); ``tests/core/methods/test_checklist.py`` holds every
registered method to CONTRIBUTING's list.

May import: ``core.data``, ``core.numerics``. A method package imports only those, ``base``
and ``params``: never another method.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

_discovered = False


def discover() -> dict[str, type]:
    """Import every method package and module here (each registers its estimators) and
    return ``REGISTRY``. Idempotent; the first call takes the seconds of the solvers'
    imports (numba, scikit-learn)."""
    global _discovered
    from core.methods.base import REGISTRY

    if not _discovered:
        modules = [info.name for info in pkgutil.iter_modules(__path__)]
        for name in modules:
            # a method package registers its estimator in its __init__ (it re-exports the solver)
            importlib.import_module(f"{__name__}.{name}")

        # the order of the modules here, whatever imported a method first (a baseline used by
        # an analysis registers before discovery): the same order as the sources' scan
        def position(item: tuple[str, type]) -> int:
            module = item[1].__module__.split(".")
            return modules.index(module[2]) if len(module) > 2 and module[2] in modules else 99

        ordered = sorted(REGISTRY.items(), key=position)  # stable: a module's own order kept
        REGISTRY.clear()
        REGISTRY.update(ordered)
        _discovered = True
    return REGISTRY


def _classes() -> dict[str, type]:
    """The estimator classes by their class names (``from core.methods import <ClassName>``)."""
    return {cls.__name__: cls for cls in discover().values()}


def __getattr__(name: str) -> Any:
    if name == "__all__":
        return [
            "REGISTRY",
            "BaseSolver",
            "IterationState",
            "discover",
            *sorted(_classes()),
        ]
    if name.startswith("_"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name in ("BaseSolver", "IterationState"):
        from core.methods import base

        return getattr(base, name)
    registry = discover()
    if name == "REGISTRY":
        return registry
    if name in globals():  # a submodule: discover() imported it
        return globals()[name]
    classes = _classes()
    if name in classes:
        return classes[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__getattr__("__all__")})
