"""Layer 6, the ``mvc`` command line: ``main`` (run, info, methods), ``experiments`` (sweep,
robustness), ``params`` (flags generated from each method's ParamSpec).

May import: every other layer of ``core``.
"""

from core.cli.main import main

__all__ = ["main"]
