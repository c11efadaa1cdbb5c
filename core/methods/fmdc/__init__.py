"""FMDC: fast multi-view discrete clustering with anchor graphs (Qiang et al., AAAI 2021).

docs/methods/fmdc.md says what was built and where it departs from the paper; "spec §N" in
this package's comments is section N of docs/methods/spec/fmdc.md.
"""

from core.methods.fmdc.solver import FMDC

__all__ = ["FMDC"]
