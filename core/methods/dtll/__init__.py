"""DTLL: discrete tensorized label learning.

docs/methods/dtll.md says what was built and where it departs from the paper; "spec §N" in
this package's comments is section N of docs/methods/spec/dtll.md.
"""

from core.methods.dtll.solver import DTLL

__all__ = ["DTLL"]
