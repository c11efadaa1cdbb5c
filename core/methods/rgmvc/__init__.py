"""RG-MVC: robust, convex, parameter-free graph fusion (Liang et al., AAAI 2022).

docs/methods/rgmvc.md says what was built and where it departs from the paper; "spec §N" in
this package's comments is section N of docs/methods/spec/rgmvc.md.
"""

from core.methods.rgmvc.solver import RGMVC

__all__ = ["RGMVC"]
