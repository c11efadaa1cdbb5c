"""Layer 3, methods: the solver protocol, parameter tables, the registry and the methods.

``base`` (protocol, ``Reporter``, ``REGISTRY``), ``params`` (``ParamSpec``: validation, CLI
flags, GUI widgets), ``baselines``, and one package per method (``fmdc/``, ``alpc/``,
``rgmvc/``, ``dtll/``, ``mvsc_hfd/``), each with ``solver.py`` (the estimator), ``updates.py``
(its update rules) and its own numba kernels (``jit*.py``). Importing this package discovers
every method package and module here, so their ``@register`` classes join ``REGISTRY``: a
new method is a new package, named nowhere else. Each class declares what it can do
(``supports_incomplete``, ``streams``, ``tune_grid``, ``panel_notes``, ``auto_preprocessing``);
``tests/core/methods/test_checklist.py`` holds every registered method to CONTRIBUTING's list.

May import: ``core.data``, ``core.numerics``. A method package imports only those, ``base``
and ``params``: never another method.
"""

import importlib
import pkgutil

from core.methods.base import REGISTRY, BaseSolver, IterationState

for _info in pkgutil.iter_modules(__path__):
    # a method package registers its estimator in its __init__ (it re-exports the solver)
    importlib.import_module(f"{__name__}.{_info.name}")

#: the estimator classes by their class names (``from core.methods import <ClassName>``)
_CLASSES = {cls.__name__: cls for cls in REGISTRY.values()}
globals().update(_CLASSES)

__all__ = ["REGISTRY", "BaseSolver", "IterationState", *sorted(_CLASSES)]
