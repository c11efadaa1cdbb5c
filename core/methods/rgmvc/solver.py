"""RG-MVC: robust graph-based multi-view clustering (Liang et al., AAAI 2022).

Spec: rgmvc.md. Kernels per view (:mod:`core.methods.rgmvc.kernel_matrices`), the min-max model
and the reduced-gradient solver (:mod:`core.methods.rgmvc.updates`), numba kernels in
:mod:`core.methods.rgmvc.jit_graph`.
"""

from __future__ import annotations

import logging
from collections.abc import Generator, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from core.data.dataset import DataError, View
from core.methods.base import (
    COMMON_PARAMS,
    BaseSolver,
    FitResult,
    IterationState,
    Reporter,
    register,
    seed_streams,
)
from core.methods.params import Param, ParamError, ParamSpec
from core.methods.rgmvc.automatic import (
    DEFAULT_CANDIDATES,
    DENSE_AUTO_MAX_N,
    FEATURE_BANDWIDTH,
    LARGE_N,
    LARGE_N_CANDIDATES,
    UNIT_ROWS_BANDWIDTH,
    auto_bandwidth,
    auto_candidates,
    available_memory_bytes,
)
from core.methods.rgmvc.kernel_matrices import (
    dense_kernel,
    kernel_passes,
    prepare_view,
    resolve_kinds,
)
from core.methods.rgmvc.updates import (
    DenseProblem,
    SparseProblem,
    reduced_gradient_step,
)
from core.numerics.kmeans import kmeans_labels
from core.numerics.spectral import graph_spectral_embedding

log = logging.getLogger(__name__)

__all__ = ["RGMVC", "available_memory_bytes"]


@register
class RGMVC(BaseSolver):
    """Robust graph-based multi-view clustering.

    One kernel ``K_p`` per view (n x n, normalised as in the authors' code). For view
    weights γ on the simplex, the consensus graph is
    ``G(γ) = argmax_G tr(GᵀA_γ) − ‖G‖²_F`` with ``A_γ = Σ_p γ_p² K_p`` (rows of G on the
    simplex, zero diagonal); γ minimises ``F(γ)`` (the value of that max) by SimpleMKL's
    reduced gradient, so F never increases. Labels: spectral clustering of ``(G + Gᵀ)/2``.

    Two exact paths: ``dense`` holds the n x n kernels (spec §11: (V+2)·8n² bytes);
    ``sparse`` keeps, per sample, candidate neighbours and certifies after every solve that
    no left-out entry can enter G (else it re-selects), so memory is O(n·K) and it gives the
    same G as the dense path.

    References
    ----------
    Liang, Liu, Zhou, Liu, Wang, Zhu. Robust Graph-Based Multi-View Clustering. AAAI 2022.
    Official code: github.com/wx-liang/RG-MVC.
    """

    name = "rg-mvc"
    tune_grid: ClassVar[dict[str, tuple]] = {
        "kernel": ("gaussian", "cosine"),
        "bandwidth": (0.5, 1.0, 2.0),
    }
    panel_notes: ClassVar[dict[str, str]] = {
        "anchor_graph": "RG-MVC works on sparse per-view sample graphs: it has no anchors, "
        "so there is no anchor graph to show.",
    }
    title = "RG-MVC: robust graph-based multi-view clustering"
    summary = (
        "Builds one kernel (similarity) matrix per view and learns a consensus graph together "
        "with view weights in a min-max way: views that agree too easily with the consensus "
        "are down-weighted. It has no model parameters; the kernel bandwidth sets how local "
        "the similarities are. Recommended input: z-scored dense views (Gaussian kernels) and "
        "tf-idf text views (cosine kernels). Cost grows with n²; the sparse path keeps only "
        "near neighbours (exactly) so large n fits in memory."
    )
    reference = "Liang et al., Robust Graph-Based Multi-View Clustering, AAAI 2022"
    own_attributes: ClassVar[dict[str, str]] = {
        "path_": "str: 'dense' or 'sparse', the graph path that ran",
        "effective_weights_": "ndarray (n_views,): γ_v² normalised",
        "embedding_": "ndarray (n, c): the spectral embedding k-means ran on",
        "kernels_": "list of str: the kernel used per view",
        "active_views_": "ndarray: views with a non-zero weight",
        "n_solves_": "int: inner solves of the line search",
        "n_cache_hits_": "int: line-search evaluations reused",
        "memory_estimate_gb_": "float: the memory estimate checked before the run",
        "candidates_per_sample_": "float: sparse path only, candidate entries kept per row",
        "n_reselected_": "int: sparse path only, rows re-selected exactly",
        "reselect_log_": "list: sparse path only, rows re-selected per solve",
    }
    objective_label = "F(γ) = max_G tr(GᵀA_γ) − ‖G‖²"
    objective_decreases = True
    #: cosine kernels on tf-idf text; dense views as the general rule
    auto_preprocessing = "tfidf_text_binary_l2"
    param_spec = COMMON_PARAMS + ParamSpec(
        Param("max_iter", "int", 500, "Maximum outer (view-weight) iterations.", low=1, high=2000),
        Param(
            "tol",
            "float",
            1e-4,
            "Stop when no view weight changes by more than this in an iteration.",
            low=1e-8,
            high=0.1,
            log=True,
            advanced=True,
        ),
        Param(
            "kernel",
            "choice",
            "auto",
            "Kernel per view: Gaussian on distances, or cosine on L2-normalised rows. "
            "Automatic: cosine for sparse (text) views, Gaussian for dense ones.",
            choices=("auto", "gaussian", "cosine"),
        ),
        Param(
            "bandwidth",
            "float",
            None,
            "Gaussian width as a multiple of the mean pairwise distance: smaller is more local. "
            f"Automatic, per view: {UNIT_ROWS_BANDWIDTH:g} on non-negative unit-norm rows (l2, "
            f"tf-idf: distances concentrate), {FEATURE_BANDWIDTH:g} on other features (the "
            "mean distance is mostly between clusters there).",
            low=0.25,
            high=4.0,
            log=True,
            allow_none=True,
            typical=1.0,
        ),
        Param(
            "path",
            "choice",
            "auto",
            "Dense n x n kernels, or the exact sparse path (candidate neighbours, O(n·K) "
            f"memory). Automatic: dense up to n = {DENSE_AUTO_MAX_N} if it fits.",
            choices=("auto", "dense", "sparse"),
            advanced=True,
        ),
        Param(
            "n_candidates",
            "int",
            None,
            "Sparse path: per sample, the K largest kernel values of every view and of their "
            "weighted sum are candidates (K grows automatically where the exactness check "
            f"needs more). Automatic: {DEFAULT_CANDIDATES}, {LARGE_N_CANDIDATES} above "
            f"n = {LARGE_N:,}.",
            low=4,
            high=100_000,
            log=True,
            allow_none=True,
            advanced=True,
        ),
        Param(
            "n_init",
            "int",
            50,
            "k-means replicates on the spectral embedding (best inertia kept).",
            low=1,
            high=500,
            advanced=True,
        ),
        Param(
            "memory_limit_gb",
            "float",
            None,
            "Refuse runs estimated to need more memory than this. Automatic: the memory "
            "available now.",
            low=0.01,
            high=1e5,
            allow_none=True,
            advanced=True,
        ),
    )

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        max_iter: int = 500,
        tol: float = 1e-4,
        kernel: str = "auto",
        bandwidth: float | None = None,
        path: str = "auto",
        n_candidates: int | None = None,
        n_init: int = 50,
        memory_limit_gb: float | None = None,
        random_state: int | None = 0,
    ) -> None:
        self.n_clusters = n_clusters
        self.max_iter = max_iter
        self.tol = tol
        self.kernel = kernel
        self.bandwidth = bandwidth
        self.path = path
        self.n_candidates = n_candidates
        self.n_init = n_init
        self.memory_limit_gb = memory_limit_gb
        self.random_state = random_state

    # -- memory ---------------------------------------------------------------------------
    @staticmethod
    def _limit_bytes(params: Mapping[str, Any]) -> int:
        gb = params.get("memory_limit_gb")
        return int(gb * (1 << 30)) if gb is not None else available_memory_bytes()

    @classmethod
    def choose_path(cls, n: int, dims: Sequence[int], params: Mapping[str, Any]) -> str:
        path = params.get("path", "auto")
        if path != "auto":
            return path
        dense = cls._estimate(n, dims, params, "dense")
        return "dense" if n <= DENSE_AUTO_MAX_N and dense <= cls._limit_bytes(params) else "sparse"

    @classmethod
    def _estimate(cls, n: int, dims: Sequence[int], params: Mapping[str, Any], path: str) -> int:
        v = len(dims)
        views = 8 * n * sum(dims)
        if path == "dense":
            # V kernels + G + the builder's temporaries (dot products, distances, K0, K2)
            return int(views + 8 * n * n * (v + 4))
        big_l = min(params.get("n_candidates") or auto_candidates(n), n - 1)
        blocks = 3 * (128 << 20) + 2 * min(n, 256) * n * 8
        # candidates: the union of V + 1 top-K lists (at most), index + V values + G value,
        # twice (re-selection, symmetrised W)
        per_row = min(n - 1, (v + 1) * big_l)
        cand = 2 * n * per_row * (16 + 8 * v) + 64 * n * v
        return int(views + blocks + cand + 8 * n * (40 + 2 * max(params.get("n_clusters", 2), 2)))

    @classmethod
    def estimate_memory(cls, n_samples: int, dims: Sequence[int], params: Mapping[str, Any]) -> int:  # type: ignore[override]
        return cls._estimate(n_samples, dims, params, cls.choose_path(n_samples, dims, params))

    def _check_input(self, views: list[View]) -> None:
        n, dims = views[0].shape[0], [x.shape[1] for x in views]
        params = self.get_params()
        path = self.choose_path(n, dims, params)
        need, limit = self._estimate(n, dims, params, path), self._limit_bytes(params)
        if need > limit:
            hint = (
                " Use path='sparse' (exact, O(n·K) memory)."
                if path == "dense"
                else " Lower 'n_candidates' or use fewer samples."
            )
            raise DataError(
                f"RG-MVC ({path} path) needs about {need / 2**30:.2f} GB for n = {n} samples and "
                f"{len(dims)} views, more than the limit of {limit / 2**30:.2f} GB "
                f"('memory_limit_gb').{hint}"
            )
        if self.n_clusters >= n:
            raise ParamError(f"'n_clusters' = {self.n_clusters} must be below n = {n}")

    def _resolve_params(self, views: list[View], observed: np.ndarray | None = None) -> dict:
        params = super()._resolve_params(views, observed)
        if self.bandwidth is None:  # per view: the value depends on the view's geometry
            widths = [auto_bandwidth(x) for x in views]
            params["bandwidth"] = widths[0] if len(set(widths)) == 1 else widths
        return params

    def _bandwidths(self, nv: int) -> list[float]:
        value = self.resolved("bandwidth")
        value = 1.0 if value is None else value  # not fitted through fit(): the spec's 1.0
        return list(value) if isinstance(value, list) else [float(value)] * nv

    # -- the run --------------------------------------------------------------------------
    def _run(self, views: list[View], rep: Reporter) -> Generator[IterationState, None, FitResult]:
        n, nv, c = views[0].shape[0], len(views), self.n_clusters
        params = self.get_params()
        dims = [x.shape[1] for x in views]
        path = self.choose_path(n, dims, params)
        need = self._estimate(n, dims, params, path)
        rng = seed_streams(
            self.random_state, ["anchors", "init", "postprocess_kmeans", "restarts", "svds_v0"]
        )
        kinds = resolve_kinds(views, self.kernel)
        widths = self._bandwidths(nv)
        # exact (kinds and path chosen on the data as given): the Gaussian and cosine kernels
        # use only distances and inner products among samples
        views, _ = yield from self._in_row_space(views, rep, "graph")
        yield rep.stage(
            "graph",
            0.0,
            f"{path} path, about {need / 2**30:.2f} GB: {', '.join(kinds)} kernels",
        )
        active, kernels, chains = [], [], []
        for p, (x, kind, width) in enumerate(zip(views, kinds, widths, strict=True)):
            msg = f"{kind} kernel of view {p + 1}/{nv} ({path} path)"
            if path == "dense":
                yield rep.stage("graph", 0.8 * p / nv, msg)
                out = dense_kernel(x, kind, width)
                if out is not None:
                    kernels.append(out[0])
                    chains.append(out[1])
            else:
                out = yield from rep.follow(
                    kernel_passes(x, kind, width),
                    "graph",
                    msg,
                    0.6 * p / nv,
                    0.6 * (p + 1) / nv,
                )
                if out is not None:
                    chains.append(out)
            if out is None:
                log.warning("RG-MVC: view %d gives a constant kernel and is skipped", p + 1)
            else:
                active.append(p)
        if not active:
            raise DataError("RG-MVC: every view gives a constant kernel (identical samples?)")
        gamma = np.full(len(active), 1.0 / len(active))
        if path == "dense":
            prob: DenseProblem | SparseProblem = DenseProblem(np.stack(kernels))
            del kernels
        else:
            xs = [prepare_view(views[p], kinds[p]) for p in active]
            big_l = self.n_candidates or auto_candidates(n)
            prob = SparseProblem(xs, chains, big_l)
            msg = f"candidate neighbours ({min(big_l, n - 1)} per sample)"
            yield from rep.follow(prob.select_steps(gamma), "graph", msg, 0.6, 0.95)
        yield rep.stage("init", 0.97, "initial consensus graph")
        f_val, tr = prob.solve(gamma)
        grad = 2 * gamma * tr
        history: list[float] = []
        extra: dict[str, list[float]] = {"max_dgamma": [], "solves": []}
        converged, it = False, 0
        for it in range(1, self.max_iter + 1):
            old = gamma
            gamma, _ = reduced_gradient_step(gamma, grad, f_val, lambda g: prob.solve(g)[0])
            f_val, tr = prob.solve(gamma)
            grad = 2 * gamma * tr
            dg = float(np.max(np.abs(gamma - old)))
            history.append(f_val)
            extra["max_dgamma"].append(dg)
            extra["solves"].append(float(prob.n_solves))
            yield rep.iteration(
                it,
                f_val,
                view_weights=_full(gamma, active, nv),
                extras={"max_dgamma": dg, "solves": float(prob.n_solves)},
            )
            if dg < self.tol:
                converged = True
                break
        w = prob.graph(gamma)
        yield rep.stage("postprocess", 1.0, "spectral clustering of (G + Gᵀ)/2")
        embedding = graph_spectral_embedding(w, c, rng["svds_v0"])
        labels = kmeans_labels(
            embedding, c, rng["postprocess_kmeans"], n_init=self.n_init, normalize=False
        )
        full = _full(gamma, active, nv)
        attrs: dict[str, Any] = {
            "path_": path,
            "effective_weights_": full**2 / float(np.sum(full**2)),
            "embedding_": embedding,
            "kernels_": kinds,
            "active_views_": active,
            "n_solves_": prob.n_solves,
            "n_cache_hits_": prob.n_cache_hits,
            "memory_estimate_gb_": need / 2**30,
        }
        if isinstance(prob, SparseProblem):
            attrs["candidates_per_sample_"] = prob.nnz / n
            attrs["n_reselected_"] = prob.n_reselected
            attrs["reselect_log_"] = [list(f) for f in prob.fail_log]
        return FitResult(
            labels=labels,
            objective_history=history,
            n_iter=it,
            converged=converged,
            view_weights=full,
            anchor_graph=sp.csr_matrix(w),
            history=extra,
            attributes=attrs,
        )


def _full(gamma: np.ndarray, active: list[int], nv: int) -> np.ndarray:
    out = np.zeros(nv)
    out[active] = gamma
    return out
