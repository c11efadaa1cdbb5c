"""Deprecated alias of :mod:`core.methods.base` (moved in 0.2.0; removed in 0.3.0)."""

from core.methods.base import *  # noqa: F403
from core.methods.base import __all__  # noqa: F401
