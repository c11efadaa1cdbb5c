"""RG-MVC: robust, convex, parameter-free graph fusion (Liang et al., AAAI 2022).

docs/methods/rgmvc.md says what was built and where it departs from the paper.
"""

from core.methods.rgmvc.solver import RGMVC

__all__ = ["RGMVC"]
