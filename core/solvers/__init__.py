"""All solvers, registered by name in ``REGISTRY`` (the CLI and GUI list them from there)."""

from core.solvers.alpc import ALPC
from core.solvers.base import REGISTRY, BaseSolver, IterationState
from core.solvers.baselines import AnchorSpectralSingleView, KMeansConcat
from core.solvers.dtll import DTLL
from core.solvers.fmdc import FMDC
from core.solvers.mvsc_hfd import MVSCHFD
from core.solvers.rgmvc import RGMVC

__all__ = [
    "ALPC",
    "DTLL",
    "FMDC",
    "MVSCHFD",
    "REGISTRY",
    "RGMVC",
    "AnchorSpectralSingleView",
    "BaseSolver",
    "IterationState",
    "KMeansConcat",
]
