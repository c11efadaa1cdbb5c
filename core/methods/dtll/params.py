"""DTLL's parameters (docs/methods/dtll.md; dtll spec §2)."""

from __future__ import annotations

from core.methods.base import COMMON_PARAMS, DTYPE_PARAM
from core.methods.params import Param, ParamSpec
from core.numerics.tensor import ORIENTATIONS

__all__ = ["PARAM_SPEC"]

PARAM_SPEC = COMMON_PARAMS + ParamSpec(
    Param(
        "anchor_rate",
        "float",
        0.5,
        "Anchors as a fraction θ of the samples (m = ⌊θN⌋, at most 'max anchors'). "
        "Ignored when 'n anchors' is set.",
        low=0.01,
        high=1.0,
        allow_none=True,
    ),
    Param(
        "n_anchors",
        "int",
        None,
        "Exact number of anchors m; overrides the anchor rate. Automatic: use the rate.",
        low=1,
        high=10_000_000,
        log=True,
        allow_none=True,
        advanced=True,
    ),
    Param(
        "max_anchors",
        "int",
        2000,
        "Upper limit on the anchors given by the anchor rate: graph construction costs "
        "N·m·d, so large data need a cap.",
        low=2,
        high=10_000_000,
        log=True,
        advanced=True,
    ),
    Param(
        "n_neighbors",
        "int",
        10,
        "Anchors each sample connects to in each view's anchor graph.",
        low=1,
        high=200,
    ),
    Param(
        "lam",
        "float",
        3.0,
        "λ: weight of the tensor Schatten p-norm that makes the views' labels agree.",
        low=1e-3,
        high=1e3,
        log=True,
        label="λ",
    ),
    Param(
        "schatten_p",
        "float",
        0.5,
        "p of the tensor Schatten p-norm (1 = tensor nuclear norm; smaller is closer to "
        "a rank penalty). Little effect in the paper.",
        low=0.05,
        high=1.0,
    ),
    Param(
        "weight_exponent",
        "float",
        0.5,
        "r: view weights enter as α^r. Below 1 the weights are spread (smaller r: more "
        "even); r = 1 is undefined; above 1 the paper's weight formula is a minimiser.",
        low=0.05,
        high=20.0,
        label="r",
    ),
    Param("max_iter", "int", 300, "Maximum ALM iterations.", low=1, high=10_000),
    Param(
        "tol",
        "float",
        1e-6,
        "Stop when the residual max|𝒢 − 𝒥| falls below this.",
        low=0.0,
        high=1.0,
        log=True,
        advanced=True,
    ),
    Param(
        "stable_stop",
        "int",
        6,
        "Also stop once no label has changed for this many iterations while "
        "max|𝒢 − 𝒥| < 0.5 (𝒥 then rounds to the labels): the remaining iterations only "
        "shrink the residual. 0: stop on the residual alone, as the paper does.",
        low=0,
        high=1000,
        advanced=True,
    ),
    Param(
        "view_scale",
        "choice",
        "balanced",
        "'balanced': each view's anchor graph is scaled so that its anchors' total mass "
        "‖S_vᵀ1‖ is the same in every view; otherwise a view whose samples all link to a "
        "few hub anchors (near-constant or very sparse text views) gets most of the "
        "weight and puts everything in one cluster. 'none': the paper's unscaled graphs.",
        choices=("balanced", "none"),
        advanced=True,
    ),
    Param(
        "init",
        "choice",
        "shared_spectral",
        "Initial labels, the same for every view: k-means on the joint anchor spectral "
        "embedding, or one balanced random labelling.",
        choices=("shared_spectral", "shared_random"),
    ),
    Param(
        "anchor_style",
        "choice",
        "random",
        "Anchor selection: random samples (seeded), the paper's variance-based VDA "
        "(deterministic, but its picks follow the data's last digits: the same data saved "
        "with 7 digits can give another clustering), or the samples nearest to k-means "
        "centres (slow).",
        choices=("random", "vda", "kmeans_nearest"),
        advanced=True,
    ),
    Param(
        "orientation",
        "choice",
        "per_sample",
        "Axis of the tensor FFT: per-sample C × V slices (reference code) or per-cluster "
        "N × V slices (paper text; much worse, for experiments).",
        choices=ORIENTATIONS,
        advanced=True,
    ),
    Param(
        "sample_order",
        "choice",
        "by_initial_labels",
        "The tensor FFT runs along the samples, so their order matters. Sorting them by "
        "the initial labels makes results independent of the row order; 'given' keeps "
        "the data's order, as the authors' code does: it only works on files sorted by "
        "class (it then uses the true classes) and collapses on shuffled rows.",
        choices=("given", "by_initial_labels"),
        advanced=True,
    ),
    Param(
        "repair_empty",
        "bool",
        True,
        "Refill an empty cluster with the sample that loses least by moving into it.",
        advanced=True,
    ),
)
PARAM_SPEC = PARAM_SPEC + DTYPE_PARAM  # float32 option (core/numerics/precision.py)
