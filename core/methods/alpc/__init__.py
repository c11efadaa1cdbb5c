"""ALPC: anchor learning with potential cluster constraints (Chen et al., AAAI 2025).

docs/methods/alpc.md says what was built and where it departs from the paper; "spec §N" in
this package's comments is section N of docs/methods/spec/alpc.md.
"""

from core.methods.alpc.solver import ALPC

__all__ = ["ALPC"]
