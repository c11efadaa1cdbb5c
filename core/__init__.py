"""MVC Studio core: everything but the GUI, in layers that import only downward.

``data`` -> ``numerics`` -> ``methods`` -> ``records`` -> ``experiments`` -> ``cli``
(docs/architecture.md). Qt-free by design: numpy, scipy, numba and scikit-learn only;
``tests/test_layering.py`` enforces both rules.

May import: numpy, scipy, numba, scikit-learn and the other non-Qt dependencies; never Qt
or ``mvc_gui``.
"""

# numba's cache folder and threading layer must be set before numba is first imported
from core.numerics.jit import config as _jit_config  # noqa: F401

__version__ = "0.2.0"
