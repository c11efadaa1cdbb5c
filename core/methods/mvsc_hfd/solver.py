"""MVSC-HFD: anchor-based multi-view subspace clustering with hierarchical feature descent."""

from __future__ import annotations

import logging
from collections.abc import Generator
from typing import ClassVar

import numpy as np

from core.data.dataset import View
from core.data.missing import zero_missing_rows
from core.methods.base import (
    BaseSolver,
    FitResult,
    IterationState,
    Reporter,
    check_anchor_count,
    register,
    seed_streams,
)
from core.methods.mvsc_hfd import incomplete, updates
from core.methods.mvsc_hfd.params import PARAM_SPEC, SAMPLE_NORM, auto_anchor_count
from core.methods.mvsc_hfd.refine import centred_embedding, shared_covariance_labels
from core.methods.params import ParamError, Relative
from core.numerics.kmeans import kmeans_steps, restart_size
from core.numerics.linalg import polar, polar_stable, row_normalize
from core.numerics.row_space import has_more_features
from core.numerics.threads import blas_single, blas_threads
from core.numerics.view_products import sq_norm

log = logging.getLogger(__name__)

#: first-layer cost (Σ d_v·l_1² over views with more features than samples) above which
#: ``feature_space="auto"`` works in the row space: 3Sources (169 x ~3,500) costs 1e10
#: (54 s for 10 iterations), MSRC-v1's 210 x 1302 view 6e6 (stays on the authors' path)
ROW_SPACE_FLOPS = 1e9

__all__ = ["MVSCHFD"]


@register
class MVSCHFD(BaseSolver):
    """Anchor-based multi-view subspace clustering with hierarchical feature descent.

    Each view is projected by δ orthonormal layers ``P_v = W_1⋯W_δ`` (d_v → … → l_δ) into a
    common space where one orthonormal anchor matrix ``A`` (l_δ x m) and one consensus
    anchor graph ``Z`` (m x n, columns on the simplex; ``anchor_graph_ = Zᵀ``) rebuild every
    view (spec ``mvsc_hfd.md``):

    ``J = Σ_v α_v² ‖X_v − W_1⋯W_δ A Z‖²_F``,  α on the simplex (``view_weights_``).

    Updates: every W_o by a polar factor (by default with the authors' lagging product
    cache, ``w_update="code_cache"``; with ``"exact"`` P_vA = polar(X_vZᵀ) whatever the
    depth, see docs/methods/mvsc_hfd.md), A by a polar factor, Z in closed form (simplex
    projection), α by the authors' rule α ∝ 1/‖R_v‖ (default; not the exact minimiser, so J
    can rise slightly) or the exact α ∝ 1/‖R_v‖². Labels: k-means on the row-normalised
    left singular vectors of Zᵀ, then (``labels_refine``, automatic when ``sample_norm`` > 0)
    re-assigned under the clusters' pooled within-cluster covariance (``refine.py``). The
    authors' code z-scores every feature; ``auto`` does so too except for bags of words,
    which get tf-idf.

    References
    ----------
    Ou, Wang, Zhang, Zhou, Zhu. Anchor-based Multi-view Subspace Clustering with
    Hierarchical Feature Descent (preprint). Code: https://github.com/QiyuanOu/MVSC-HFD
    """

    name = "mvsc-hfd"
    # anchors (one per cluster up to 1.5x the automatic count) and the sample norm that sets
    # the anchor graph's softness move the labels on the shared files; depth mostly does not
    tune_grid: ClassVar[dict[str, tuple]] = {
        "n_anchors": Relative((0.5, 1.0, 1.5)),
        "sample_norm": (0.25, 0.5, 1.0),
    }
    supports_incomplete = True
    title = "MVSC-HFD: multi-view subspace clustering with hierarchical feature descent"
    summary = (
        "Maps every view through a stack of orthonormal layers that shrink the dimension step "
        "by step into a common c-dimensional space, where shared anchors and one anchor graph "
        "reconstruct all views; views that are rebuilt better get more weight. Deeper stacks "
        "descend more gradually (the paper found 4-5 layers best); more anchors than clusters "
        "rarely help. The authors z-score every feature first (recommended preprocessing)."
    )
    reference = (
        "Ou, Wang, Zhang, Zhou, Zhu, Anchor-based Multi-view Subspace Clustering with "
        "Hierarchical Feature Descent (preprint; code: github.com/QiyuanOu/MVSC-HFD)"
    )
    own_attributes: ClassVar[dict[str, str]] = {
        "embedding_": "ndarray: the spectral embedding k-means ran on",
        "effective_weights_": "ndarray (n_views,): α_v² normalised, the weights as they act",
        "view_weight_history_": "ndarray (n_iter, n_views): α per iteration",
        "layers_": "list of lists of ndarray: the layer matrices W_1..W_δ per view",
        "layer_widths_": "list of int: the layer widths",
        "residual_norms_": "ndarray (n_views,): the final reconstruction residual per view",
        "n_anchors_": "int: anchors m",
        "refine_steps_": "int: re-assignment steps of labels_refine (0: k-means labels kept)",
    }
    objective_label = "Σ α_v² ‖X_v − W_1⋯W_δ A Z‖²"
    #: the authors' demo z-scores every feature (mapstd); chosen leave one file out, bags of
    #: words get tf-idf instead (NGs 0.68 -> 0.996; docs/benchmarks/defaults.md)
    auto_preprocessing = "text_tfidf_zscore_binary_l2"
    param_spec = PARAM_SPEC

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        depth: int = 5,
        n_anchors: int | None = None,
        sample_norm: float | None = None,
        layer_rule: str = "shared",
        first_width: int | None = None,
        max_iter: int = 10,
        tol: float = 0.0,
        alpha_rule: str = "inverse_norm",
        w_update: str = "code_cache",
        polar_completion: str = "stable",
        z_init: str = "first_m",
        embedding: str = "svd_Z",
        labels_refine: str = "auto",
        kmeans_n_init: int = 50,
        feature_space: str = "auto",
        random_state: int | None = 0,
        dtype: str = "auto",
    ) -> None:
        self.n_clusters = n_clusters
        self.depth = depth
        self.n_anchors = n_anchors
        self.sample_norm = sample_norm
        self.layer_rule = layer_rule
        self.first_width = first_width
        self.max_iter = max_iter
        self.tol = tol
        self.alpha_rule = alpha_rule
        self.w_update = w_update
        self.polar_completion = polar_completion
        self.z_init = z_init
        self.embedding = embedding
        self.labels_refine = labels_refine
        self.kmeans_n_init = kmeans_n_init
        self.feature_space = feature_space
        self.random_state = random_state
        self.dtype = dtype

    def resolve_defaults(self, n, c, dims, density):  # type: ignore[override]
        # samples scaled into the model's unit ball, 2c anchors (c + 10 above 10 clusters)
        return {"n_anchors": auto_anchor_count(c, n), "sample_norm": SAMPLE_NORM}

    def _refines(self) -> bool:
        """``labels_refine``: 'auto' refines when the views are scaled (soft Z), not at the
        authors' scale, where Z is near one-hot and its embedding already cluster indicators."""
        if self.labels_refine != "auto":
            return self.labels_refine == "shared_covariance"
        return float(self.resolved("sample_norm") or 0.0) > 0

    def _anchor_count(self) -> int:
        m = self.resolved("n_anchors")
        return self.n_clusters if m is None else int(m)

    def _scale_factor(self, views: list[View], observed: np.ndarray | None) -> float:
        """The one factor giving the views RMS sample norm ``sample_norm`` (0: 1, as given)."""
        target = float(self.resolved("sample_norm") or 0.0)
        if target <= 0:
            return 1.0
        counts = [views[0].shape[0]] * len(views) if observed is None else observed.sum(axis=0)
        mean_sq = sum(sq_norm(x) / max(int(k), 1) for x, k in zip(views, counts, strict=True))
        return 1.0 if mean_sq <= 0 else float(target / np.sqrt(mean_sq))

    def _widths(self, views: list[View], given: list[int] | None = None) -> list[list[int]]:
        """The layer widths for ``views``; ``given``: the views' own feature counts when
        ``views`` are their sample-space coordinates (messages name both)."""
        last = max(self.n_clusters, self._anchor_count())
        dims = [x.shape[1] for x in views]
        self._check_first_width(dims, last, given or dims)
        return updates.layer_widths(dims, last, self.depth, self.layer_rule, self.first_width)

    def _check_first_width(self, dims: list[int], last: int, given: list[int]) -> None:
        """``first_width`` must lie between l_δ and the smallest view dimension (views
        narrower than l_δ padded to it); the message names that view and its dimension."""
        fw = self.first_width
        if fw is None or self.depth <= 1:
            return
        top = min(max(d, last) for d in dims)
        if last <= fw <= top:
            return
        what = f"the last width l_δ = {last} (the larger of n_clusters and n_anchors)"
        give = f"give {last}" if top == last else f"give {last} to {top}"
        if fw < last:
            raise ParamError(f"'first_width' = {fw} is below {what}: {give}")
        v = int(np.argmin(dims))
        where = f"view {v + 1} has {given[v]} features"
        if given[v] != dims[v]:
            where += f", {dims[v]} dimensions in the sample space it is computed in"
        if dims[v] < last:
            where += f", fewer than l_δ: padded to {last}"
        raise ParamError(
            f"'first_width' = {fw} is above the smallest view dimension ({where}); it must "
            f"lie between {what} and {top}: {give}"
        )

    def _row_space_wanted(self, views: list[View]) -> bool:
        """``feature_space``: 'auto' is the row space when the first layers' polar factors
        (d_v x l_1 each, about d_v·l_1² flops) would exceed ROW_SPACE_FLOPS per iteration
        and the row space (dimension <= n, narrower layers) cuts that at least 4-fold."""
        if self.feature_space != "auto":
            return self.feature_space == "row_space"
        n, dims = views[0].shape[0], [x.shape[1] for x in views]
        if not any(has_more_features(x) for x in views):
            return False
        original = self._first_layer_flops(dims)
        return (
            original > ROW_SPACE_FLOPS
            and 4 * self._first_layer_flops([min(d, n) for d in dims]) <= original
        )

    def _first_layer_flops(self, dims: list[int]) -> float:
        last = max(self.n_clusters, self._anchor_count())
        widths = updates.layer_widths(dims, last, self.depth, self.layer_rule, self.first_width)
        return float(sum(d * w[0] ** 2 for d, w in zip(dims, widths, strict=True)))

    def _check_input(self, views: list[View]) -> None:
        m, n = self._anchor_count(), views[0].shape[0]
        if m < self.n_clusters:
            raise ParamError(
                f"'n_anchors' = {m} is below 'n_clusters' = {self.n_clusters}: MVSC-HFD needs "
                "at least one anchor per cluster"
            )
        check_anchor_count(m, n)
        widths = self._widths(views)  # raises ParamError for an impossible first_width
        if self.w_update == "code_cache" and any(w != widths[0] for w in widths):
            raise ParamError(
                "'w_update' = 'code_cache' needs the same layer widths for every view; "
                "use layer_rule='shared' or w_update='exact'"
            )

    @classmethod
    def estimate_memory(cls, n_samples, dims, params) -> int:  # type: ignore[override]
        m = params.get("n_anchors") or auto_anchor_count(
            int(params.get("n_clusters", 2)), n_samples
        )
        first = min(min(dims), updates.WIDTH_CAP)
        return int(8 * (6 * n_samples * m + 3 * sum(dims) * first))

    def _run_incomplete(
        self, views: list[View], observed: np.ndarray, rep: Reporter
    ) -> Generator[IterationState, None, FitResult]:
        """Samples missing from views: each view rebuilt on its own samples (incomplete.py)."""
        return (yield from self._run(zero_missing_rows(views, observed), rep, observed))

    def _run(
        self, views: list[View], rep: Reporter, observed: np.ndarray | None = None
    ) -> Generator[IterationState, None, FitResult]:
        n, c, m = views[0].shape[0], self.n_clusters, self._anchor_count()
        scale = self._scale_factor(views, observed)
        rng = seed_streams(
            self.random_state, ["anchors", "init", "postprocess_kmeans", "postprocess_refine"]
        )
        spaces: list = [None] * len(views)
        if observed is not None or self._row_space_wanted(views):
            # a scaled copy: the masked steps and the row space use the views directly
            views = [x * x.dtype.type(scale) for x in views] if scale != 1.0 else views
            scale = 1.0
        given = [x.shape[1] for x in views]
        if self._row_space_wanted(views):
            views, spaces = yield from self._in_row_space(
                views, rep, "init", rule=has_more_features
            )
        widths = self._widths(views, given)
        dims = [x.shape[1] for x in views]
        yield rep.stage("init", 0.0, f"MVSC-HFD: depth {self.depth}, widths {widths[0]}, m={m}")
        if self.z_init == "random_m":
            start = np.sort(rng["init"].choice(n, size=m, replace=False))
        else:
            start = np.arange(m)
        code_cache = self.w_update == "code_cache"
        factor = polar_stable if self.polar_completion == "stable" else polar
        st = updates.init_state(dims, widths, n, m, start, code_cache)
        # the views stay as given (a scaled copy was the size of the data: 4 GB at 1M); the
        # factor goes into the small matrices of each product instead
        sq_norms = [sq_norm(x) * scale**2 for x in views]
        rows = [w[0].shape[0] for w in st.w]
        with blas_single():
            st.xz = [
                updates.padded_xz(x, st.zt, r, scale) for x, r in zip(views, rows, strict=True)
            ]
        hist: list[float] = []
        extra: dict[str, list[float]] = {"weighted_norms": []}
        alphas: list[np.ndarray] = []
        converged, it = False, 0
        for it in range(1, self.max_iter + 1):
            with blas_single():
                if code_cache:
                    proj = [
                        updates.w_sweep_code_cache(w, st.a, xz, st.cache, factor)
                        for w, xz in zip(st.w, st.xz, strict=True)
                    ]
                else:
                    proj = [
                        updates.w_sweep(w, st.a, xz, factor)
                        for w, xz in zip(st.w, st.xz, strict=True)
                    ]
                updates.a_step(st, proj, factor)
                if observed is None:
                    st.zt, st.xz = updates.z_xz_step(views, st, rows, blas_threads(), scale)
                else:
                    st.zt = incomplete.masked_z_step(views, st, observed)
                    st.xz = [
                        updates.padded_xz(x, st.zt, r) for x, r in zip(views, rows, strict=True)
                    ]
                if observed is None:
                    f = updates.residual_norms(sq_norms, st)
                else:
                    f = incomplete.masked_residual_norms(sq_norms, st, observed)
                st.alpha = updates.view_weights(f, self.alpha_rule)
            obj = float(np.sum(st.alpha**2 * f**2))
            hist.append(obj)
            alphas.append(st.alpha.copy())
            extra["weighted_norms"].append(float(np.sum(st.alpha**2 * f)))
            yield rep.iteration(
                it,
                obj,
                view_weights=st.alpha,
                extras={"weighted_norms": extra["weighted_norms"][-1]},
            )
            if len(hist) >= 2 and abs(hist[-2] - obj) < self.tol * abs(hist[-2]):
                converged = True
                break
        with blas_single():
            emb = row_normalize(updates.embedding(st.zt, self.embedding, c))
        msg = f"k-means ({self.kmeans_n_init} runs) on the singular vectors of Z"
        km = kmeans_steps(
            emb,
            c,
            rng["postprocess_kmeans"],
            n_init=self.kmeans_n_init,
            restart_rows=restart_size(c),
        )
        labels, _ = yield from rep.follow(km, "postprocess", msg)
        refine_steps = 0
        if self._refines():
            yield rep.stage("postprocess", 1.0, "labels refined under the shared covariance")
            with blas_single():
                labels, refine_steps = shared_covariance_labels(
                    centred_embedding(st.zt), labels, rng["postprocess_refine"]
                )
        alpha2 = st.alpha**2
        return FitResult(
            labels=labels,
            objective_history=hist,
            n_iter=it,
            converged=converged,
            view_weights=st.alpha,
            anchors=st.a,
            anchor_graph=st.zt,
            history=extra,
            attributes={
                "embedding_": emb,
                "effective_weights_": alpha2 / alpha2.sum(),
                "view_weight_history_": np.array(alphas),
                "layers_": _lift_first_layers(st.w, spaces),
                "layer_widths_": widths,
                "residual_norms_": f,
                "n_anchors_": m,
                "refine_steps_": refine_steps,
            },
        )


def _lift_first_layers(layers: list[list[np.ndarray]], spaces: list) -> list[list[np.ndarray]]:
    """First layers learned in a view's row space (r x l_1) as feature-space maps (d_v x l_1),
    so ``layers_`` means the same whichever space the run used."""
    return [
        ws if sp_ is None else [sp_.lift(ws[0][: sp_.coords.shape[1]].T).T, *ws[1:]]
        for ws, sp_ in zip(layers, spaces, strict=True)
    ]
