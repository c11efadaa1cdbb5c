"""DTLL: discrete tensorized label learning.

docs/methods/dtll.md says what was built and where it departs from the paper.
"""

from core.methods.dtll.solver import DTLL

__all__ = ["DTLL"]
