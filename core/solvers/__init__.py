"""Deprecated alias of :mod:`core.methods` (moved in 0.2.0; removed in 0.3.0).

``from core.solvers import FMDC`` keeps working for one release; use ``core.methods``.

May import: ``core.methods`` (what it aliases).
"""

import warnings

from core.methods import *  # noqa: F403
from core.methods import __all__  # noqa: F401

warnings.warn(
    "core.solvers is deprecated: import from core.methods instead (removed in 0.3.0)",
    DeprecationWarning,
    stacklevel=2,
)
