"""Layer 3, methods: the solver protocol, parameter tables, the registry and the methods.

``base`` (protocol, ``Reporter``, ``REGISTRY``), ``params`` (``ParamSpec``: validation, CLI
flags, GUI widgets), ``baselines``, and one package per method (``fmdc/``, ``alpc/``,
``rgmvc/``, ``dtll/``, ``mvsc_hfd/``), each with ``solver.py`` (the estimator), ``updates.py``
(its update rules) and its own numba kernels (``jit*.py``). Importing this package registers
every method.

May import: ``core.data``, ``core.numerics``. A method package imports only those, ``base``
and ``params``: never another method.
"""

from core.methods.alpc.solver import ALPC
from core.methods.base import REGISTRY, BaseSolver, IterationState
from core.methods.baselines import AnchorSpectralSingleView, KMeansConcat
from core.methods.dtll.solver import DTLL
from core.methods.fmdc.solver import FMDC
from core.methods.mvsc_hfd.solver import MVSCHFD
from core.methods.rgmvc.solver import RGMVC

__all__ = [
    "ALPC",
    "DTLL",
    "FMDC",
    "MVSCHFD",
    "REGISTRY",
    "RGMVC",
    "AnchorSpectralSingleView",
    "BaseSolver",
    "IterationState",
    "KMeansConcat",
]
