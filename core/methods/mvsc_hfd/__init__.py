"""MVSC-HFD: anchor subspace clustering with hierarchical feature descent (Ou et al.).

docs/methods/mvsc_hfd.md says what was built and where it departs from the paper; "spec §N" in
this package's comments is section N of docs/methods/spec/mvsc_hfd.md.
"""

from core.methods.mvsc_hfd.solver import MVSCHFD

__all__ = ["MVSCHFD"]
