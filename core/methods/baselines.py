"""Baselines that show what multi-view fusion adds: k-means on the concatenated views, and
anchor spectral clustering on one view at a time."""

from __future__ import annotations

from collections.abc import Generator
from contextlib import nullcontext
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.cluster import KMeans

from core.data.dataset import View
from core.methods.base import (
    COMMON_PARAMS,
    BaseSolver,
    FitResult,
    IterationState,
    Reporter,
    register,
    seed_streams,
    sklearn_seed,
)
from core.methods.params import Param, ParamError, ParamSpec
from core.numerics.anchors import bkhk_steps, effective_anchor_count
from core.numerics.graphs import normalize_anchor_graph, pkn_anchor_graph_steps
from core.numerics.kmeans import kmeans_labels
from core.numerics.row_space import lift_all, tolerance_scale
from core.numerics.spectral import top_left_singular_vectors
from core.numerics.threads import PARALLEL_FLOPS, single_threaded

__all__ = ["AnchorSpectralSingleView", "KMeansConcat"]


@register
class KMeansConcat(BaseSolver):
    """k-means (k-means++, best of ``n_init``) on the horizontally concatenated views."""

    name = "kmeans-concat"
    tune_grid: ClassVar[dict[str, tuple]] = {"n_init": (1, 10)}
    panel_notes: ClassVar[dict[str, str]] = {
        "weights": "k-means on the concatenated views learns no view weights: every feature "
        "counts alike.",
        "anchor_graph": "k-means on the concatenated views builds no anchor graph.",
    }
    title = "Baseline: k-means on concatenated views"
    summary = (
        "Glues all views side by side and runs ordinary k-means. Views with more features or "
        "larger values dominate; compare with the multi-view methods to see what fusion adds."
    )
    reference = "Lloyd 1982; Arthur & Vassilvitskii, k-means++, SODA 2007"
    objective_label = "inertia"
    param_spec = COMMON_PARAMS + ParamSpec(
        Param("n_init", "int", 10, "k-means restarts (the lowest inertia wins).", low=1, high=100),
        Param("max_iter", "int", 300, "Maximum Lloyd iterations per restart.", low=1, high=10_000),
        Param(
            "tol",
            "float",
            1e-4,
            "Lloyd convergence tolerance (relative).",
            low=0.0,
            high=1.0,
            advanced=True,
        ),
    )

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        n_init: int = 10,
        max_iter: int = 300,
        tol: float = 1e-4,
        random_state: int | None = 0,
    ) -> None:
        self.n_clusters = n_clusters
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _run(self, views: list[View], rep: Reporter) -> Generator[IterationState, None, FitResult]:
        # exact: k-means++ and Lloyd use only distances to samples and to means of samples;
        # scikit-learn's tol is relative to the mean feature variance, hence the scale
        reduced, _ = yield from self._in_row_space(views, rep, "init")
        tol = self.tol * tolerance_scale(views, reduced)
        views = reduced
        yield rep.stage("init", 0.5, "concatenating views")
        x = sp.hstack(views).tocsr() if any(sp.issparse(v) for v in views) else np.hstack(views)
        rng = seed_streams(self.random_state, ["kmeans"])["kmeans"]
        best = None
        # small data: one thread (threads.py: small k-means runs were 50x slower with two)
        small = x.shape[0] * x.shape[1] * self.n_clusters < PARALLEL_FLOPS
        for r in range(self.n_init):
            km = KMeans(
                self.n_clusters,
                n_init=1,
                max_iter=self.max_iter,
                tol=tol,
                random_state=sklearn_seed(rng),
            )
            with single_threaded() if small else nullcontext():
                km.fit(x)
            if best is None or km.inertia_ < best.inertia_:
                best = km
            yield rep.iteration(
                r + 1, best.inertia_, labels=best.labels_, message=f"restart {r + 1}/{self.n_init}"
            )
        assert best is not None
        return FitResult(
            labels=best.labels_.astype(np.int64),
            objective_history=[best.inertia_],
            n_iter=int(best.n_iter_),
            converged=best.n_iter_ < self.max_iter,
        )


@register
class AnchorSpectralSingleView(BaseSolver):
    """Anchor spectral clustering on one view: BKHK anchors, PKN anchor graph, top singular
    vectors of Ẑ, k-means on the row-normalised embedding."""

    name = "anchor-sc"
    auto_preprocessing = "tfidf_text"
    tune_grid: ClassVar[dict[str, tuple]] = {"n_anchors": (64, 128, 256), "n_neighbors": (5, 15)}
    panel_notes: ClassVar[dict[str, str]] = {
        "weights": "Anchor spectral clustering uses one view (its 'view' parameter): there are "
        "no view weights to learn.",
        "convergence": "Anchor spectral clustering is not iterative: one spectral embedding, "
        "then k-means; there is no objective curve.",
    }
    title = "Baseline: single-view anchor spectral clustering"
    summary = (
        "Clusters one view on its own with the same anchor graph FMDC uses, then spectral "
        "embedding and k-means. Run it per view to see how much each view knows alone."
    )
    reference = (
        "Liu, He, Chang, Large graph construction for scalable semi-supervised learning, ICML 2010"
    )
    own_attributes: ClassVar[dict[str, str]] = {
        "embedding_": "ndarray (n, c): the row-normalised spectral embedding k-means ran on"
    }
    param_spec = COMMON_PARAMS + ParamSpec(
        Param("view", "int", 1, "Which view to cluster (1-based).", low=1, high=1000),
        Param(
            "n_anchors",
            "int",
            None,
            "Number of anchors (power of 2; automatic: 128 below 5000 samples, else 1024).",
            low=2,
            high=65536,
            log=True,
            allow_none=True,
        ),
        Param("n_neighbors", "int", 15, "Anchors each sample connects to.", low=1, high=200),
        Param("max_iter", "int", 100, "Maximum k-means iterations.", low=1, high=10_000),
        Param("n_init", "int", 10, "k-means restarts.", low=1, high=100),
    )

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        view: int = 1,
        n_anchors: int | None = None,
        n_neighbors: int = 15,
        max_iter: int = 100,
        n_init: int = 10,
        tol: float = 1e-6,
        random_state: int | None = 0,
    ) -> None:
        self.n_clusters = n_clusters
        self.view = view
        self.n_anchors = n_anchors
        self.n_neighbors = n_neighbors
        self.max_iter = max_iter
        self.n_init = n_init
        self.tol = tol
        self.random_state = random_state

    def _check_input(self, views: list[View]) -> None:
        if self.view > len(views):
            raise ParamError(f"'view' = {self.view} but the data has {len(views)} views")

    def _run(self, views: list[View], rep: Reporter) -> Generator[IterationState, None, FitResult]:
        # exact: BKHK and the anchor graph use only distances among samples and group means
        reduced, spaces = yield from self._in_row_space(views, rep, "anchors", [self.view - 1])
        x = reduced[self.view - 1]
        n = x.shape[0]
        m = effective_anchor_count(self.n_anchors, n)
        rng = seed_streams(self.random_state, ["anchors", "kmeans", "svds_v0"])
        anchors, _ = yield from rep.follow(
            bkhk_steps([x], m, rng["anchors"]), "anchors", f"BKHK: {m} anchors", 0.0, 0.5
        )
        z = yield from rep.follow(
            pkn_anchor_graph_steps(x, anchors[0], self.n_neighbors),
            "graph",
            "anchor graph",
            0.5,
            0.95,
        )
        f = top_left_singular_vectors(normalize_anchor_graph(z), self.n_clusters, rng["svds_v0"])
        labels = kmeans_labels(
            f, self.n_clusters, rng["kmeans"], n_init=self.n_init, max_iter=self.max_iter
        )
        yield rep.iteration(1, None, labels=labels)
        weights = np.zeros(len(views))
        weights[self.view - 1] = 1.0
        return FitResult(
            labels=labels,
            objective_history=[],
            n_iter=1,
            converged=True,
            view_weights=weights,
            anchors=lift_all(spaces[self.view - 1 : self.view], anchors),
            anchor_graph=z,
            attributes={"embedding_": f},
        )
