"""ALPC: anchor learning with potential cluster constraints (Chen et al., AAAI 2025).

docs/methods/alpc.md says what was built and where it departs from the paper.
"""

from core.methods.alpc.solver import ALPC

__all__ = ["ALPC"]
