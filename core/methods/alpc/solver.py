"""ALPC: anchor learning with potential cluster constraints (Chen et al., AAAI 2025)."""

from __future__ import annotations

import logging
from collections.abc import Generator
from typing import ClassVar, NamedTuple

import numpy as np

from core.data.dataset import View
from core.data.missing import zero_missing_rows
from core.methods.alpc import incomplete, updates
from core.methods.base import (
    COMMON_PARAMS,
    DTYPE_PARAM,
    BaseSolver,
    FitResult,
    IterationState,
    Reporter,
    observed_rows,
    register,
    seed_streams,
)
from core.methods.params import Param, ParamError, ParamSpec, Relative
from core.numerics.kmeans import kmeans_steps, restart_size
from core.numerics.landmark_spectral import (
    LANDMARK_NEIGHBORS,
    LANDMARKS_PER_CLUSTER,
    landmark_spectral_steps,
)
from core.numerics.linalg import row_normalize
from core.numerics.row_space import lift_all, with_axes
from core.numerics.threads import blas_single
from core.numerics.view_products import sq_norm

log = logging.getLogger(__name__)

__all__ = ["ALPC"]

FORMULATIONS = ("code", "code_exactP", "paper")


#: automatic λ1 = LAMBDA1_PER_ENTRY_ENERGY · n · (mean squared entry of the views), i.e.
#: β·Σ_v‖X_v‖²/Σ_v d_v: J(sX; λ1) = s²·J(X; λ1/s²) and the anchor term does not grow with n, so
#: λ1 must scale with n·s²; β = 3.16 is the authors' BBCSport demo (λ1 = 90, n = 544, mean
#: squared entry 0.0524), the other files held out (docs/defaults.md)
LAMBDA1_PER_ENTRY_ENERGY = 3.16
#: a run whose objective exceeds this multiple of its first value has diverged (the authors'
#: P-step's bumps are a fraction of J; a diverging run grows by 1e3 or more per iteration)
DIVERGED = 1e4
#: automatic stopping: relative change of the objective (scale- and n-free)
AUTO_REL_TOL = 1e-3
#: how labels are read from Zᵀ by default (docs/defaults.md: 24 shared files, 3 seeds)
LABELS_FROM = "spectral"
#: automatic anchors: 10 per cluster, fewer when c is large (the cost grows as M³)
MAX_AUTO_ANCHORS = 500


class _Iterated(NamedTuple):
    """What the alternating updates end with; ``state`` is None when they diverged."""

    state: updates.ALPCState | None
    history: list[float]
    extra: dict[str, list[float]]
    recon: np.ndarray
    n_iter: int
    converged: bool


def auto_anchors_per_cluster(c: int) -> int:
    """10 per cluster (2-3 suffice per the paper), with M = m·c at most MAX_AUTO_ANCHORS."""
    return int(min(10, max(2, MAX_AUTO_ANCHORS // max(c, 1))))


@register
class ALPC(BaseSolver):
    """Anchor learning with potential cluster constraints.

    Learns per-view anchors ``A_v`` (d_v x M, M = m·c, stored as ``anchors_[v] = A_vᵀ``),
    one consensus coefficient matrix ``Z`` (M x n, stored as ``anchor_graph_ = Zᵀ``), an
    orthonormal basis ``U_v`` per view, an anchor-to-cluster matrix ``P`` (c x M,
    ``anchor_indicator_``) and a sample-to-cluster matrix ``R`` (c x n,
    ``sample_indicator_ = Rᵀ``) by alternating minimisation of (spec ``alpc.md`` §5)

    ``J = Σ_v ‖X_v − A_vZ‖² + λ1 Σ_v ‖A_v − U_vP‖² + λ2 ‖Z − PᵀR‖²``.

    Labels: k-means on the rows of Zᵀ, row-normalised. ``formulation="code"`` (default) is
    the authors' released algorithm, which produced the reported numbers; its P-step is not
    the exact minimiser, so J may show small bumps. ``"code_exactP"`` uses the exact P-step
    (J non-increasing); ``"paper"`` adds the printed constraints AᵀA = I and Z on the simplex
    (J non-increasing, much lower accuracy in the spec's prototypes: experimental).

    References
    ----------
    Chen, Wang, Peng, Wang. Anchor Learning with Potential Cluster Constraints for
    Multi-view Clustering. AAAI 2025. arXiv:2412.16519
    """

    name = "alpc"
    # x0.1..x10 of the automatic λ1: a wider x0.01..x100 reached better cells on some files,
    # but the label-free criteria then picked degenerate extreme-λ1 cells (BBCSport regret
    # 0.45, NGs 0.47; docs/benchmarks/tune_regret.md)
    tune_grid: ClassVar[dict[str, tuple]] = {
        "lambda1": Relative((0.1, 0.3, 1.0, 3.0, 10.0)),
        "lambda2": (0.1, 1.0),
    }
    supports_incomplete = True
    title = "ALPC: anchor learning with potential cluster constraints"
    summary = (
        "Learns m anchors per cluster in every view together with one shared coefficient "
        "matrix Z that rebuilds each view from its anchors; anchors and coefficients are tied "
        "to c latent clusters, and the labels come from k-means on Z. λ1 pulls the anchors "
        "towards a cluster-structured basis, λ2 pulls Z towards its cluster factorisation. "
        "The authors used raw features (text counts) or features as stored; z-scoring helps "
        "dense views of very different scales."
    )
    reference = (
        "Chen, Wang, Peng, Wang, Anchor Learning with Potential Cluster Constraints for "
        "Multi-view Clustering, AAAI 2025, arXiv:2412.16519"
    )
    own_attributes: ClassVar[dict[str, str]] = {
        "anchor_indicator_": "ndarray (c, M): P, the anchor-to-cluster matrix",
        "anchor_clusters_": "ndarray (M,): the cluster each anchor belongs to",
        "sample_indicator_": "ndarray (n, c): Rᵀ, the sample-to-cluster matrix",
        "cluster_bases_": "list of ndarray: the orthonormal bases U_v",
        "n_anchors_": "int: M = m·c anchors",
        "recon_share_": "ndarray (n_views,): each view's share of the reconstruction error "
        "(ALPC learns no view weights)",
        "p_step_": "str: the P-step the result comes from: 'code' (the authors'), 'exact', or "
        "'exact (the authors' step diverged)' when the authors' step made the objective grow "
        "without bound and the fit restarted",
    }
    objective_label = "Σ‖X−AZ‖² + λ1Σ‖A−UP‖² + λ2‖Z−PᵀR‖²"
    #: the authors' demos feed raw term counts (BBCSport) and features as stored; other dense
    #: features z-scored, histograms to unit rows (chosen held out: docs/preprocessing.md)
    auto_preprocessing = "raw_text"
    param_spec = (
        COMMON_PARAMS
        + ParamSpec(
            Param(
                "anchors_per_cluster",
                "int",
                None,
                "Anchors per cluster m (M = m·c anchors in all). The paper found 2-3 per cluster "
                "enough; the authors' demos use 15 (BBCSport) and 8 (Wiki). Cost grows as M³. "
                f"Automatic: 10, fewer when c is large (M at most {MAX_AUTO_ANCHORS}).",
                low=1,
                high=50,
                allow_none=True,
                typical=10,
            ),
            Param(
                "lambda1",
                "float",
                None,
                "λ1: how strongly the anchors are pulled towards a c-dimensional cluster basis "
                "(demos: 90 for BBCSport, 1e4 for Wiki). The anchor term does not grow with n "
                "nor with the feature scale while the others do: automatic "
                f"λ1 = {LAMBDA1_PER_ENTRY_ENERGY:g}·Σ_v‖X_v‖²/Σ_v d_v (n times the mean squared "
                "entry; 90 on the authors' BBCSport), so it means the same at any n and scale.",
                low=1e-4,
                high=1e9,
                log=True,
                allow_none=True,
                typical=100.0,
            ),
            Param(
                "lambda2",
                "float",
                0.1,
                "λ2: how strongly Z is pulled towards its cluster factorisation PᵀR; also the "
                "ridge that keeps the Z-step well posed (both demos: 0.1).",
                low=1e-4,
                high=1e2,
                log=True,
            ),
            Param(
                "max_iter",
                "int",
                100,
                "Maximum number of iterations (authors' code: 100).",
                low=1,
                high=10_000,
            ),
            Param(
                "tol",
                "float",
                None,
                "Stop after iteration 3 or later when the normalised objective J/(Σ‖X_v‖²)² "
                "changes by less than this (the authors' rule, 1e-8 in their code). That rule "
                "depends on n and on the feature scale; automatic: stop when J itself changes by "
                f"less than {AUTO_REL_TOL:g} of its value.",
                low=0.0,
                high=1.0,
                allow_none=True,
                advanced=True,
            ),
            Param(
                "formulation",
                "choice",
                "code",
                "'code': the authors' released algorithm (reproduces the paper's numbers). "
                "'code_exactP': exact P-step, objective never increases (experimental). "
                "'paper': the printed model with orthonormal anchors and Z on the simplex "
                "(experimental; far lower accuracy in tests).",
                choices=FORMULATIONS,
                advanced=True,
            ),
            Param(
                "z_constraint",
                "choice",
                "none",
                "Constraint on each column of Z in the 'code' formulations: none (authors' code) "
                "or the simplex stated in the paper (experimental). 'paper' always uses the "
                "simplex.",
                choices=("none", "simplex"),
                advanced=True,
            ),
            Param(
                "kmeans_n_init",
                "int",
                20,
                "k-means runs on the learned Z (the lowest inertia wins); 1 gives a single run.",
                low=1,
                high=100,
                advanced=True,
            ),
            Param(
                "labels_from",
                "choice",
                LABELS_FROM,
                "'spectral': spectral clustering of Zᵀ through a sparse graph tying every "
                f"sample to its {LANDMARK_NEIGHBORS} nearest of {LANDMARKS_PER_CLUSTER}·c "
                "landmarks (k-means centres of Zᵀ): Zᵀ = XK is a linear map of the data, "
                "and k-means on it splits curved clusters such as handwritten digits "
                "(Handwritten 0.886 -> 0.95, UCI-Digits 0.87 -> 0.95). 'kmeans': k-means on "
                "the row-normalised Zᵀ (the paper and the authors' code). 'argmax_R': the "
                "largest entry of the learned sample-to-cluster matrix R (no k-means; "
                "diagnostic).",
                choices=("spectral", "kmeans", "argmax_R"),
                advanced=True,
            ),
        )
        + DTYPE_PARAM
    )

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        anchors_per_cluster: int | None = None,
        lambda1: float | None = None,
        lambda2: float = 0.1,
        max_iter: int = 100,
        tol: float | None = None,
        formulation: str = "code",
        z_constraint: str = "none",
        kmeans_n_init: int = 20,
        labels_from: str = LABELS_FROM,
        random_state: int | None = 0,
        dtype: str = "auto",
    ) -> None:
        self.n_clusters = n_clusters
        self.anchors_per_cluster = anchors_per_cluster
        self.lambda1 = lambda1
        self.lambda2 = lambda2
        self.max_iter = max_iter
        self.tol = tol
        self.formulation = formulation
        self.z_constraint = z_constraint
        self.kmeans_n_init = kmeans_n_init
        self.labels_from = labels_from
        self.random_state = random_state
        self.dtype = dtype

    @classmethod
    def estimate_memory(cls, n_samples, dims, params) -> int:  # type: ignore[override]
        c = int(params.get("n_clusters", 2))
        mm = int(params.get("anchors_per_cluster") or auto_anchors_per_cluster(c)) * c
        per_sample = 5 * mm + 3 * c
        return int(8 * (n_samples * per_sample + 4 * sum(dims) * mm + 4 * mm * mm))

    def resolve_defaults(self, n, c, dims, density):  # type: ignore[override]
        return {"anchors_per_cluster": auto_anchors_per_cluster(c), "tol": AUTO_REL_TOL}

    def _resolve_params(self, views: list[View], observed: np.ndarray | None = None) -> dict:
        params = super()._resolve_params(views, observed)
        if self.lambda1 is None:  # needs the data's energy, not only its shape
            present = observed_rows(views, observed)  # placeholder rows carry no energy
            energy = sum(sq_norm(x) for x in present) / sum(x.shape[1] for x in views)
            params["lambda1"] = float(np.clip(LAMBDA1_PER_ENTRY_ENERGY * energy, 1e-4, 1e9))
        return params

    def _run_incomplete(
        self, views: list[View], observed: np.ndarray, rep: Reporter
    ) -> Generator[IterationState, None, FitResult]:
        """Samples missing from views: each view reconstructs its own samples (incomplete.py)."""
        if self.formulation == "paper" or self.z_constraint == "simplex":
            raise ParamError(
                "ALPC on incomplete views needs formulation 'code' or 'code_exactP' with "
                "z_constraint 'none'"
            )
        zeroed = zero_missing_rows(views, observed)
        return (yield from self._run(zeroed, rep, observed))

    def _run(
        self, views: list[View], rep: Reporter, observed: np.ndarray | None = None
    ) -> Generator[IterationState, None, FitResult]:
        n, c, m = views[0].shape[0], self.n_clusters, self.resolved("anchors_per_cluster")
        rng = seed_streams(self.random_state, ["anchors", "init", "postprocess_kmeans"])
        mode = self.formulation
        exact_p = mode != "code"
        simplex = "simplex" if (mode == "paper" or self.z_constraint == "simplex") else "none"
        lam1, lam2 = float(self.resolved("lambda1")), float(self.lambda2)
        # an explicit tol keeps the authors' rule on J/E²; automatic: relative change of J
        relative, tol = self.tol is None, float(self.resolved("tol"))
        yield rep.stage("init", 0.0, f"ALPC: {m * c} anchors ({m} per cluster), {mode}")
        spaces: list = [None] * len(views)
        if observed is None:
            # exact: from U = I_{d×c}, every iterate stays in the row space plus the first c
            # axes (core/numerics/row_space.py, AxesRowSpace)
            _, found = yield from self._in_row_space(views, rep, "init")
            spaces = [None if s is None else with_axes(s, c) for s in found]
            views = [x if s is None else s.coords for x, s in zip(views, spaces, strict=True)]
        sq_norms = [sq_norm(x) for x in views]
        dims = [x.shape[1] for x in views]
        groups = None if observed is None else incomplete.patterns(observed)
        gram = None
        if simplex == "none" and updates.use_gram(n, dims) and observed is None:
            msg = f"Gram matrix of the {sum(dims)} features (iterations then cost O(D²M))"
            gram = yield from rep.follow(updates.gram_steps(views), "init", msg)

        def start() -> updates.ALPCState:
            st = updates.init_state(dims, n, c, m)
            st.u = [u if s is None else s.start for u, s in zip(st.u, spaces, strict=True)]
            return st if gram is None else updates.GramState(st, gram, dims)

        loop = {"lam1": lam1, "lam2": lam2, "simplex": simplex, "observed": observed}
        loop.update(groups=groups, sq_norms=sq_norms, relative=relative, tol=tol)
        run = yield from self._iterate(views, start(), rep, exact_p, **loop)
        p_step = "exact" if exact_p else "code"
        if run.state is None:  # the authors' P-step diverged; the exact one cannot (J decreases)
            first, last = run.history[0], run.history[-1]
            log.warning("ALPC: the authors' P-step diverged; restarting with the exact P-step")
            yield rep.stage(
                "init",
                0.0,
                f"the authors' P-step diverged (objective {first:.3g} -> {last:.3g} in "
                f"{run.n_iter} iterations, λ1 = {lam1:.3g}): restarting with the exact P-step",
            )
            run = yield from self._iterate(views, start(), rep, True, **loop)
            p_step = "exact (the authors' step diverged)"
            if run.state is None:
                raise ParamError(
                    f"ALPC diverged (objective {run.history[0]:.3g} -> {run.history[-1]:.3g}) "
                    f"even with the exact P-step; try a larger lambda1 (now {lam1:.3g})"
                )
        st, recon = run.state, run.recon
        with blas_single():
            zt, rt = st.materialise(views)
        if self.labels_from == "argmax_R":
            labels = np.argmax(rt, axis=1).astype(np.int64)
        elif self.labels_from == "spectral":
            msg = "spectral clustering of Zᵀ through a landmark graph"
            steps = landmark_spectral_steps(
                row_normalize(zt), c, rng["postprocess_kmeans"], n_init=self.kmeans_n_init
            )
            labels, _ = yield from rep.follow(steps, "postprocess", msg)
        else:
            msg = f"k-means ({self.kmeans_n_init} runs) on Zᵀ"
            km = kmeans_steps(
                row_normalize(zt),
                c,
                rng["postprocess_kmeans"],
                n_init=self.kmeans_n_init,
                restart_rows=restart_size(c),  # above 20k rows only
            )
            labels, _ = yield from rep.follow(km, "postprocess", msg)
        return FitResult(
            labels=labels,
            objective_history=run.history,
            n_iter=run.n_iter,
            converged=run.converged,
            view_weights=None,  # ALPC learns no view weights (spec §11)
            anchors=lift_all(spaces, [np.ascontiguousarray(a.T) for a in st.a]),
            anchor_graph=zt,
            history=run.extra,
            attributes={
                "anchor_indicator_": st.p,
                "anchor_clusters_": np.argmax(st.p, axis=0).astype(np.int64),
                "sample_indicator_": rt,
                "cluster_bases_": [b.T for b in lift_all(spaces, [u.T for u in st.u])],
                "n_anchors_": m * c,
                "recon_share_": recon / max(recon.sum(), 1e-300),
                "p_step_": p_step,
            },
        )

    def _iterate(
        self,
        views: list[View],
        st: updates.ALPCState,
        rep: Reporter,
        exact_p: bool,
        *,
        lam1: float,
        lam2: float,
        simplex: str,
        observed: np.ndarray | None,
        groups,
        sq_norms: list[float],
        relative: bool,
        tol: float,
    ) -> Generator[IterationState, None, _Iterated]:
        """The alternating updates until the stopping rule or max_iter. The state is None
        when the objective left every bound: the authors' P-step is not a minimiser and can
        grow P without limit when λ1 is small (Reuters-600 under l2, λ1 = 0.09, went
        8.5e4 -> 2e22 in five iterations, then the SVD failed)."""
        mode = self.formulation
        energy2 = max(sum(sq_norms), 1e-300) ** 2
        hist: list[float] = []
        extra: dict[str, list[float]] = {k: [] for k in ("normalized", "recon", "anchor", "coef")}
        converged, it, recon = False, 0, np.zeros(len(views))
        for it in range(1, self.max_iter + 1):
            try:
                with blas_single(), np.errstate(over="ignore", invalid="ignore"):
                    if observed is None:
                        updates.z_step(views, st, lam2, simplex)
                        updates.a_step(views, st, lam1, orthonormal=mode == "paper")
                    else:
                        incomplete.masked_z_step(views, st, lam2, groups)
                        incomplete.masked_a_step(views, st, lam1, observed)
                    updates.u_step(st)
                    updates.p_step(st, lam1, lam2, exact=exact_p)
                    updates.r_step(st)
                    recon, anchor, coef = updates.objective_terms(sq_norms, st, lam1, lam2)
                    if observed is not None:
                        recon = incomplete.masked_recon(sq_norms, st, observed)
            except np.linalg.LinAlgError:  # non-finite iterates: the SVD of a polar step
                hist.append(np.inf)
                return _Iterated(None, hist, extra, recon, it, False)
            obj = float(recon.sum() + anchor + coef)
            hist.append(obj)
            if not np.isfinite(obj) or obj > DIVERGED * hist[0]:
                return _Iterated(None, hist, extra, recon, it, False)
            for key, val in zip(extra, (obj / energy2, recon.sum(), anchor, coef), strict=True):
                extra[key].append(float(val))
            share = recon / max(recon.sum(), 1e-300)
            yield rep.iteration(
                it,
                obj,
                extras={
                    "normalized": obj / energy2,
                    **{f"recon_share_{i + 1}": s for i, s in enumerate(share)},
                },
            )
            norm_hist = extra["normalized"]
            change = abs(norm_hist[-2] - norm_hist[-1]) if it > 1 else np.inf
            if relative and it > 1:
                change /= max(abs(norm_hist[-1]), 1e-300)
            if it > 2 and change < tol:
                converged = True
                break
        return _Iterated(st, hist, extra, recon, it, converged)
