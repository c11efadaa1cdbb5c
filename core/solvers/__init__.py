"""All solvers, registered by name in ``REGISTRY`` (the CLI and GUI list them from there)."""

from core.solvers.base import REGISTRY, BaseSolver, IterationState
from core.solvers.baselines import AnchorSpectralSingleView, KMeansConcat
from core.solvers.fmdc import FMDC

__all__ = [
    "FMDC",
    "REGISTRY",
    "AnchorSpectralSingleView",
    "BaseSolver",
    "IterationState",
    "KMeansConcat",
]
