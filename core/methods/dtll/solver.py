"""DTLL: discrete tensorized label learning with anchor graphs (anonymous ICLR submission)."""

from __future__ import annotations

import logging
from collections.abc import Generator
from functools import partial
from typing import ClassVar

import numpy as np
import scipy.sparse as sp

from core.data.dataset import View
from core.methods.base import (
    BaseSolver,
    FitResult,
    IterationState,
    Reporter,
    register,
    seed_streams,
)
from core.methods.dtll import incomplete
from core.methods.dtll.alm import MU0, AlmParams, AlmState, alm_step
from core.methods.dtll.fourier import FourierState, fourier_step
from core.methods.dtll.params import PARAM_SPEC
from core.methods.dtll.updates import (
    anchor_count,
    anchor_indices_steps,
    anchor_style_name,
    balanced_view_scales,
    nnz_rows,
    shared_initial_labels_steps,
    unpermute,
    weighted_vote,
)
from core.methods.params import ParamError
from core.numerics.observed_graphs import consensus_graph
from core.numerics.streaming import graph_steps
from core.numerics.threads import blas_single

log = logging.getLogger(__name__)

__all__ = ["DTLL", "anchor_count"]  # anchor_count re-exported for the GUI

#: the per-sample ALM runs in the Fourier domain (dtll/fourier.py); False runs the reference
#: step of alm.py with the same iterates up to rounding (tests compare the two)
FOURIER_STEP = True
STREAMS = ["anchors", "init", "postprocess_kmeans", "restarts", "svds_v0"]


@register
class DTLL(BaseSolver):
    """Discrete tensorized label learning (DTLL).

    Per view a PKN anchor graph ``S_v`` (N × m) on shared anchor samples and a discrete label
    matrix ``G_v``; the label matrices are stacked into 𝒢 (N × C × V). Maximises
    ``Σ_v α_v^r ‖S_vᵀ G_v‖_* − λ ‖𝒢‖_{S_p}^p`` (Eq. 12) by an augmented Lagrangian
    (Algorithm 3.1): a linearised exact G-step (row-wise argmax), a t-SVD Schatten-p
    proximal J-step (``core.numerics.tensor``), the multiplier step and closed-form weights α.
    Final labels: α-weighted vote over the per-view labels (spec §8).

    References
    ----------
    Discrete Tensorized Label Learning with Anchor Graphs (anonymous ICLR submission);
    anchor graph: Xia et al., Tensorized Bipartite Graph Learning for Multi-view
    Clustering, IEEE TPAMI 2022, doi:10.1109/TPAMI.2022.3187976.
    """

    name = "dtll"
    auto_preprocessing = "tfidf_text_real_minmax"
    streams = True
    tune_grid: ClassVar[dict[str, tuple]] = {"lam": (0.3, 3.0, 30.0), "n_neighbors": (5, 10)}
    supports_incomplete = True
    title = "DTLL: discrete tensorized label learning"
    summary = (
        "Each view connects its samples to shared anchors and learns its own discrete labels "
        "by maximising the nuclear norm of the anchor-to-cluster mass, which favours clean, "
        "balanced clusters; a tensor Schatten p-norm over the stacked label matrices keeps "
        "the views consistent. A larger λ forces stronger agreement between views (too large "
        "collapses clusters); a smaller weight exponent r spreads the view weights more "
        "evenly. The authors divide each view by its maximum first (preprocessing "
        "'maxscale')."
    )
    reference = (
        "Discrete Tensorized Label Learning with Anchor Graphs, anonymous ICLR submission; "
        "anchor graph by Xia et al., TPAMI 2022, doi:10.1109/TPAMI.2022.3187976"
    )
    own_attributes: ClassVar[dict[str, str]] = {
        "n_anchors_": "int: anchors m",
        "anchor_indices_": "ndarray (m,): the samples chosen as anchors",
        "initial_labels_": "ndarray (n,): the starting labels",
        "anchor_order_": "ndarray (m,): anchors sorted by label",
        "view_graphs_": "list of ndarray: the learned per-view graphs G_v",
        "view_labels_": "list of ndarray: the labels each view alone gives",
        "view_agreement_": "ndarray (n_views,): ARI of each view's labels with the consensus",
        "effective_weights_": "ndarray (n_views,): α_v^r normalised, the weights as they act",
    }
    objective_label = "Σ α_v^r ‖S_vᵀG_v‖_* − λ‖𝒢‖_Sp^p"
    objective_decreases = False
    param_spec = PARAM_SPEC

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        anchor_rate: float | None = 0.5,
        n_anchors: int | None = None,
        max_anchors: int = 2000,
        n_neighbors: int = 10,
        lam: float = 3.0,
        schatten_p: float = 0.5,
        weight_exponent: float = 0.5,
        max_iter: int = 300,
        tol: float = 1e-6,
        stable_stop: int = 6,
        view_scale: str = "balanced",
        init: str = "shared_spectral",
        anchor_style: str = "random",
        orientation: str = "per_sample",
        sample_order: str = "by_initial_labels",
        repair_empty: bool = True,
        random_state: int | None = 0,
        dtype: str = "auto",
    ) -> None:
        self.n_clusters = n_clusters
        self.anchor_rate = anchor_rate
        self.n_anchors = n_anchors
        self.max_anchors = max_anchors
        self.n_neighbors = n_neighbors
        self.lam = lam
        self.schatten_p = schatten_p
        self.weight_exponent = weight_exponent
        self.max_iter = max_iter
        self.tol = tol
        self.stable_stop = stable_stop
        self.view_scale = view_scale
        self.init = init
        self.anchor_style = anchor_style
        self.orientation = orientation
        self.sample_order = sample_order
        self.repair_empty = repair_empty
        self.random_state = random_state
        self.dtype = dtype

    def _check_input(self, views: list[View]) -> None:
        n = views[0].shape[0]
        if self.weight_exponent == 1.0:
            raise ParamError("'weight_exponent' (r) = 1 is undefined in Eq. 26; use r != 1")
        if self.weight_exponent > 1.0:
            log.warning(
                "r = %g > 1: Eq. 26 gives the minimising view weights", self.weight_exponent
            )
        m = anchor_count(n, self.anchor_rate, self.n_anchors, self.max_anchors)
        what = "n_anchors" if self.n_anchors is not None else "anchor_rate"
        if m > n:
            raise ParamError(f"'{what}' gives {m} anchors, more than the {n} samples")
        if m < self.n_clusters:
            raise ParamError(
                f"'{what}' gives {m} anchors for {n} samples, fewer than 'n_clusters' = "
                f"{self.n_clusters}; use more anchors"
            )

    @classmethod
    def estimate_memory(cls, n_samples, dims, params) -> int:  # type: ignore[override]
        p = {**cls.param_spec.defaults(), **params}
        m = min(
            anchor_count(n_samples, p["anchor_rate"], p["n_anchors"], p["max_anchors"]), n_samples
        )
        v, c, k = len(dims), p["n_clusters"], p["n_neighbors"]
        graphs = 8 * n_samples * k * v * 3
        tensors = 8 * n_samples * c * v * 10  # 𝒥, ℳ, one-hot 𝒢, Ĝ, M̂, Ĵ (complex), Q
        return int(graphs + tensors + 8 * m * sum(dims) + (64 << 20) + 8 * n_samples * 8)

    def _run(self, views: list[View], rep: Reporter) -> Generator[IterationState, None, FitResult]:
        n, nv = views[0].shape[0], len(views)
        m = anchor_count(n, self.anchor_rate, self.n_anchors, self.max_anchors)
        rng = seed_streams(self.random_state, STREAMS)
        msg = f"{m} anchors ({anchor_style_name(self.anchor_style)})"
        yield rep.stage("anchors", 0.0, msg)
        sel = yield from rep.follow(
            anchor_indices_steps(views, m, self.anchor_style, rng["anchors"]),
            "anchors",
            msg,
            0.0,
            0.3,
        )
        # exact after the anchors (VDA's variance over features is not rotation invariant):
        # the anchor graphs use only distances between samples and anchor samples
        views, _ = yield from self._in_row_space(views, rep, "graph")
        graphs = []
        for i, x in enumerate(views):
            anchors = x[sel].toarray() if sp.issparse(x) else np.asarray(x[sel])
            z = yield from rep.follow(
                graph_steps(x, anchors, self.n_neighbors),
                "graph",
                f"anchor graph of view {i + 1}/{nv}",
                0.3 + 0.6 * i / nv,
                0.3 + 0.6 * (i + 1) / nv,
            )
            graphs.append(z.tocsr())
        return (yield from self._label_graphs(graphs, sel, m, rng, rep))

    def _run_incomplete(
        self, views: list[View], observed: np.ndarray, rep: Reporter
    ) -> Generator[IterationState, None, FitResult]:
        """Samples missing from views: per-view anchors and graphs of the observed samples;
        the labels a view lacks come from the tensor term (dtll/incomplete.py)."""
        c = self.n_clusters
        m = incomplete.observed_anchor_count(
            observed, self.anchor_rate, self.n_anchors, self.max_anchors, c
        )
        rng = seed_streams(self.random_state, STREAMS)
        sel, graphs = yield from incomplete.observed_graphs_steps(
            views, observed, m, self.n_neighbors, self.anchor_style, rng["anchors"], rep
        )
        return (yield from self._label_graphs(graphs, sel, m, rng, rep, observed))

    def _label_graphs(
        self,
        graphs: list[sp.csr_matrix],
        sel: np.ndarray,
        m: int,
        rng: dict,
        rep: Reporter,
        observed: np.ndarray | None = None,
    ) -> Generator[IterationState, None, FitResult]:
        """Initial labels, the ALM and the vote on the views' anchor graphs (``observed``:
        incomplete views, ``sel`` then holds each view's anchors, V x m)."""
        n, nv, c = graphs[0].shape[0], len(graphs), self.n_clusters

        def consensus(alpha: np.ndarray) -> sp.csr_matrix:
            if observed is None:
                return sum(a * g for a, g in zip(alpha, graphs, strict=True)).tocsr()
            return consensus_graph(graphs, observed, alpha)

        # equal-weight consensus for the heat map while the labels move (final: learned α)
        equal = (sum(graphs) / nv).tocsr() if observed is None else consensus(np.ones(nv))
        yield rep.stage("graph", 0.9, "consensus anchor graph", anchor_graph=equal)
        # the heat map and view_graphs_ keep the row-stochastic graphs; the labels use these
        scaled = graphs
        if self.view_scale == "balanced":
            scales = balanced_view_scales(graphs)
            scaled = [(s * g).tocsr() for s, g in zip(scales, graphs, strict=True)]
        start = scaled if observed is None else incomplete.scaled_rows(scaled, observed)
        labels0 = yield from rep.follow(
            shared_initial_labels_steps(start, c, self.init, rng["init"], rng["svds_v0"]),
            "init",
            "initial labels",
            0.92,
            1.0,
        )
        # FFT along the sample axis makes the tensor term depend on the sample order
        order = (
            np.argsort(labels0, kind="stable")
            if self.sample_order == "by_initial_labels"
            else np.arange(n)
        )
        work = [g[order] for g in scaled] if self.sample_order != "given" else scaled
        seen = None if observed is None else observed[order]
        state = yield from self._optimise(work, labels0[order], order, rep, seen)
        view_labels, alpha, history, extra, n_iter, converged = state
        labels = weighted_vote(view_labels, alpha, c, observed)
        agree = np.array([[np.mean(a == b) for b in view_labels] for a in view_labels])
        r = self.weight_exponent
        return FitResult(
            labels=labels,
            objective_history=history,
            n_iter=n_iter,
            converged=converged,
            view_weights=alpha,
            anchors=sel,
            anchor_graph=consensus(alpha),
            history=extra,
            attributes={
                "n_anchors_": m,
                "anchor_indices_": sel,
                "initial_labels_": labels0,
                "anchor_order_": np.argsort(labels[sel], kind="stable"),
                "view_graphs_": graphs,
                "view_labels_": view_labels,
                "view_agreement_": agree,
                "effective_weights_": alpha**r / np.sum(alpha**r),
            },
        )

    def _optimise(
        self,
        graphs: list[sp.csr_matrix],
        labels0: np.ndarray,
        order: np.ndarray,
        rep: Reporter,
        observed: np.ndarray | None = None,
    ) -> Generator[IterationState, None, tuple]:
        """The ALM on rows permuted by ``order`` (``observed`` too); labels are returned in
        the original order."""
        n, nv, c = graphs[0].shape[0], len(graphs), self.n_clusters
        missing = None if observed is None else [np.flatnonzero(~o) for o in observed.T]
        alm = AlmParams(
            self.lam, self.schatten_p, self.weight_exponent, self.orientation, self.repair_empty
        )
        start = np.tile(labels0, (nv, 1))
        alpha0 = np.full(nv, 1.0 / nv)
        if FOURIER_STEP and self.orientation == "per_sample":
            st = FourierState([nnz_rows(g) for g in graphs], start, alpha0, MU0, c, missing)
            step_fn = partial(fourier_step, graphs, st, alm)
        else:
            st = AlmState(
                rows=[nnz_rows(g) for g in graphs],
                view_labels=start,
                big_g=np.zeros((n, c, nv)),
                big_j=np.zeros((n, c, nv)),
                big_m=np.zeros((n, c, nv)),
                alpha=alpha0,
                mu=MU0,
                missing=missing,
            )
            step_fn = partial(alm_step, graphs, st, c, alm)
        history: list[float] = []
        extra: dict[str, list[float]] = {"residual": [], "changed": [], "repairs": [], "mu": []}
        converged, it, stable, shown = False, 0, 0, None
        for it in range(1, self.max_iter + 1):
            with blas_single():
                obj, step = step_fn()
            history.append(obj)
            for key, value in step.items():
                extra[key].append(value)
            stable = stable + 1 if step["changed"] == 0 else 0
            if shown is None or stable == 0:  # α and the vote depend on the labels alone
                shown = unpermute(weighted_vote(st.view_labels, st.alpha, c, observed), order)
            yield rep.iteration(
                it,
                obj,
                view_weights=st.alpha,
                labels=shown,
                extras={k: step[k] for k in ("residual", "changed", "mu")},
            )
            # labels unchanged for stable_stop steps with 𝒥 rounding to 𝒢: the residual rule
            # ended at the same labels (docs/methods/dtll.md: no label moved after 3 such
            # steps in 136 runs)
            settled = 0 < self.stable_stop <= stable and step["residual"] < 0.5
            if step["residual"] < self.tol or settled:
                converged = True
                break
        view_labels = np.stack([unpermute(lab, order) for lab in st.view_labels])
        return view_labels, st.alpha, history, extra, it, converged
