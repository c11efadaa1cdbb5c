"""MVSC-HFD's parameters and their automatic values (kept apart from the solver)."""

from __future__ import annotations

from core.methods.base import COMMON_PARAMS, DTYPE_PARAM
from core.methods.params import Param, ParamSpec

__all__ = [
    "ANCHORS_PER_CLUSTER",
    "MAX_EXTRA_ANCHORS",
    "PARAM_SPEC",
    "SAMPLE_NORM",
    "auto_anchor_count",
]

#: automatic RMS sample norm the views are scaled to (docs/defaults.md): the model rebuilds a
#: sample as P_v A z with orthonormal P_v A and z on the simplex, so inside the unit ball;
#: z-scored samples (norm sqrt(D), 20-50) make the simplex projection of the Z-step one-hot
SAMPLE_NORM = 0.5
#: automatic anchors per cluster: with samples at the model's scale Z is soft, and 2c anchors
#: beat c (at the authors' scale Z is one-hot and more anchors did not help)
ANCHORS_PER_CLUSTER = 2
#: ... but at most this many anchors beyond one per cluster: with 100 classes, 2c anchors lose
#: 0.12 ACC against c on the synthetic 100-class proxy and 0.04 on the digit-pair one
#: (docs/defaults.md); every shared file has c <= 10 and keeps 2c
MAX_EXTRA_ANCHORS = 10


def auto_anchor_count(c: int, n: int) -> int:
    """Automatic m for c clusters and n samples: 2c up to 10 clusters, c + 10 above, <= n."""
    return min(c + min((ANCHORS_PER_CLUSTER - 1) * c, MAX_EXTRA_ANCHORS), n)


PARAM_SPEC = (
    COMMON_PARAMS
    + ParamSpec(
        Param(
            "depth",
            "int",
            5,
            "Number of orthonormal layers δ between each view and the anchor space "
            "(1 = a single projection; the paper's best depths were mostly 4-5).",
            low=1,
            high=8,
        ),
        Param(
            "n_anchors",
            "int",
            None,
            "Number of anchors m (at least the number of clusters). The authors' code uses "
            f"m = number of clusters. Automatic: {ANCHORS_PER_CLUSTER} per cluster, at most "
            f"{MAX_EXTRA_ANCHORS} beyond one per cluster.",
            low=2,
            high=10_000,
            allow_none=True,
            advanced=True,
        ),
        Param(
            "sample_norm",
            "float",
            None,
            "The views are scaled by one factor so that the root-mean-square norm of a "
            "sample (all views together) is this: the model rebuilds samples inside the "
            "unit ball, and this value sets how soft the anchor graph is (large: one anchor "
            "per sample). 0 keeps the data as given (the authors' code). Automatic: "
            f"{SAMPLE_NORM:g}.",
            low=0.0,
            high=1e6,
            allow_none=True,
            advanced=True,
        ),
        Param(
            "layer_rule",
            "choice",
            "shared",
            "Layer widths: 'shared' (authors' code) descends in equal steps from the smallest "
            "view dimension, same widths for all views; 'per_view' (paper text) descends from "
            "each view's own dimension. Widths are capped at 1024.",
            choices=("shared", "per_view"),
            advanced=True,
        ),
        Param(
            "first_width",
            "int",
            None,
            "Override the width of the first layer (the others descend linearly to the "
            "anchor dimension); must not exceed the smallest view dimension. Automatic: "
            "from the layer rule.",
            low=2,
            high=100_000,
            allow_none=True,
            advanced=True,
        ),
        Param(
            "max_iter",
            "int",
            10,
            "Number of iterations (the authors' code always runs exactly 10).",
            low=1,
            high=10_000,
        ),
        Param(
            "tol",
            "float",
            0.0,
            "Stop early when the objective changes by less than this fraction "
            "(paper: 1e-3); 0 always runs max_iter iterations, as the authors' code.",
            low=0.0,
            high=1.0,
            advanced=True,
        ),
        Param(
            "alpha_rule",
            "choice",
            "inverse_norm",
            "View-weight update: 'inverse_norm' α ∝ 1/‖residual‖ (authors' code and paper "
            "Eq. 17; reproduces the reported numbers) or 'exact' α ∝ 1/‖residual‖², the true "
            "minimiser (objective never increases; experimental, favours small views).",
            choices=("inverse_norm", "exact"),
            advanced=True,
        ),
        Param(
            "w_update",
            "choice",
            "code_cache",
            "Layer update: 'code_cache' is the authors' code, whose cache of deeper-layer "
            "products is shared between views and lags one step (reproduces the paper's "
            "MSRCV1 result; depth matters only here). 'exact' uses each view's own current "
            "layers, a true block-coordinate step; the layers then collapse to one projection "
            "and depth has no effect (experimental).",
            choices=("code_cache", "exact"),
            advanced=True,
        ),
        Param(
            "polar_completion",
            "choice",
            "stable",
            "How the layers' and anchors' polar factors are completed when their product is "
            "rank-deficient (the code's start makes the first ones rank 1): 'stable' takes the "
            "undetermined directions from the identity, so 1e-8 changes of the data (float32 "
            "rounding) cannot choose them (BDGP: ACC moved by 0.12 from rounding the input, "
            "by 0.00 now); 'svd' keeps whatever the SVD returns, as the authors' code "
            "(reproduces their MATLAB run).",
            choices=("stable", "svd"),
            advanced=True,
        ),
        Param(
            "z_init",
            "choice",
            "first_m",
            "Initial anchor graph: the first m samples as one-hot columns (authors' code; "
            "depends on sample order) or m seeded random samples.",
            choices=("first_m", "random_m"),
            advanced=True,
        ),
        Param(
            "embedding",
            "choice",
            "svd_Z",
            "Embedding for k-means: 'svd_Z' all left singular vectors of Zᵀ (authors' code) or "
            "'normalized' the top-c singular vectors of the degree-normalised graph "
            "(paper Eq. 7 intent; experimental).",
            choices=("svd_Z", "normalized"),
            advanced=True,
        ),
        Param(
            "labels_refine",
            "choice",
            "auto",
            "After k-means on the embedding: 'shared_covariance' re-assigns samples by "
            "their distance to the cluster means under the clusters' pooled within-cluster "
            "covariance (re-estimated until no label changes), in the centred anchor graph's "
            "embedding; the metric then follows the clusters' shape instead of whitening "
            "every direction of Zᵀ alike (synthetic 10 clusters 0.86-0.95 -> 0.91-0.98). "
            "'none': the k-means labels (the authors' code). 'auto': shared_covariance when "
            "the views are scaled into the model's unit ball (sample_norm > 0, a soft anchor "
            "graph), none at the authors' scale (sample_norm = 0).",
            choices=("auto", "shared_covariance", "none"),
            advanced=True,
        ),
        Param(
            "kmeans_n_init",
            "int",
            50,
            "k-means runs on the embedding (lowest inertia wins); 1 gives a single run.",
            low=1,
            high=200,
            advanced=True,
        ),
        Param(
            "feature_space",
            "choice",
            "auto",
            "Where the first layer acts on views with more features than samples: the "
            "'original' features (the authors' path: a d_v x l_1 polar factor per view and "
            "iteration, O(d_v·l_1²)), or their 'row_space' (n coordinates with the same inner "
            "products; the layer widths then descend from the row-space dimension). The "
            "objective's optimum is the same; the layers' arbitrary completions and the "
            "widths differ. Automatic: the row space when the original first layers would "
            "cost over 1e9 flops per iteration.",
            choices=("auto", "original", "row_space"),
            advanced=True,
        ),
    )
    + DTYPE_PARAM
)
