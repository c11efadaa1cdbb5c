"""FMDC: fast multi-view discrete clustering with anchor graphs (Qiang et al., AAAI 2021)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from core.data.dataset import View
from core.methods.base import (
    COMMON_PARAMS,
    DTYPE_PARAM,
    BaseSolver,
    FitResult,
    IterationState,
    Reporter,
    register,
    seed_streams,
)
from core.methods.fmdc import incomplete
from core.methods.fmdc.jit import fmdc_sweep, label_column_sums, scale_by_view
from core.methods.fmdc.updates import (
    balance_empty_clusters,
    cross_gram,
    graph_products,
    solve_view_weights,
    spectral_embedding,
    stack_graphs,
    tree_rows,
    view_terms,
)
from core.methods.params import Param, ParamError, ParamSpec
from core.numerics.anchors import effective_anchor_count
from core.numerics.graphs import normalize_anchor_graph
from core.numerics.kmeans import kmeans_labels
from core.numerics.row_space import lift_all
from core.numerics.streaming import anchor_steps, graph_steps
from core.numerics.threads import blas_single, blas_threads

log = logging.getLogger(__name__)

__all__ = ["FMDC", "auto_neighbor_count", "effective_anchor_count"]

# Automatic neighbours (docs/defaults.md): the anchors a cluster owns, within these bounds.
# Below ~10, samples of small classes no longer share anchors and the graph splits them
# (100 classes of 16: 5 neighbours 0.75, 12 neighbours 0.82 against k-means 0.81).
MIN_AUTO_NEIGHBORS = 12
MAX_AUTO_NEIGHBORS = 15  # the paper's value


def auto_neighbor_count(m: int, c: int) -> int:
    """Automatic neighbours for m anchors and c clusters: m // c within [12, 15]."""
    return int(np.clip(m // max(c, 1), MIN_AUTO_NEIGHBORS, MAX_AUTO_NEIGHBORS))


@register
class FMDC(BaseSolver):
    """Fast multi-view discrete clustering with anchor graphs.

    Shared BKHK anchors, a parameter-free k-NN anchor graph ``Z_v`` per view, and a discrete
    indicator ``Y`` with simplex view weights ``α`` minimising
    ``J = ‖Σ_v α_v Z_v Δ_v⁻¹ Z_vᵀ − Y(YᵀY)⁻¹Yᵀ‖²_F`` (never formed: see
    ``core.methods.fmdc.updates``).
    ``Y`` is updated by exact row-by-row coordinate ascent, ``α`` by a V-dimensional QP.

    References
    ----------
    Qiang, Zhang, Wang, Nie. Fast Multi-View Discrete Clustering with Anchor Graphs.
    AAAI 2021. doi:10.1609/aaai.v35i11.17137
    """

    name = "fmdc"
    streams = True
    tune_grid: ClassVar[dict[str, tuple]] = {
        "n_anchors": (64, 128, 256, 512),
        "n_neighbors": (5, 15),
    }
    title = "FMDC: fast multi-view discrete clustering"
    summary = (
        "Builds one set of anchors for all views by balanced hierarchical 2-means, connects "
        "every sample to its nearest anchors in each view, and learns discrete cluster labels "
        "and view weights directly, without k-means. More anchors describe the data more "
        "finely but cost time; more neighbours give smoother, denser graphs."
    )
    reference = "Qiang et al., Fast Multi-View Discrete Clustering with Anchor Graphs, AAAI 2021"
    supports_incomplete = True
    own_attributes: ClassVar[dict[str, str]] = {
        "n_anchors_": "int: anchors used (after snapping to a power of 2)",
        "view_graphs_": "list of sparse matrices: the per-view anchor graphs Z_v (n x m)",
    }
    objective_label = "‖Σ α_v S_v − P_Y‖²"
    param_spec = (
        COMMON_PARAMS
        + ParamSpec(
            Param(
                "n_anchors",
                "int",
                None,
                "Number of anchors m (snapped to a power of 2, at most "
                "n/2). Automatic: 128 below 5000 samples, else 1024, and at least 8 per cluster.",
                low=2,
                high=65536,
                log=True,
                allow_none=True,
            ),
            Param(
                "n_neighbors",
                "int",
                None,
                "Anchors each sample connects to in the anchor graph. Automatic: the anchors a "
                "cluster owns on average (m/c), between 12 and 15 (the paper's 15).",
                low=1,
                high=200,
                allow_none=True,
                typical=15,
            ),
            Param(
                "max_iter",
                "int",
                100,
                "Maximum outer iterations (label sweep + weight update).",
                low=1,
                high=10_000,
            ),
            Param(
                "tol",
                "float",
                1e-10,
                "Stop when the objective changes less than this.",
                low=0.0,
                high=1.0,
                advanced=True,
            ),
            Param(
                "init",
                "choice",
                "anchor_spectral",
                "Initial labels: k-means on the anchor spectral embedding, or balanced random "
                "labels.",
                choices=("anchor_spectral", "random"),
                advanced=True,
            ),
            Param(
                "n_init",
                "int",
                None,
                "Restarts (the lowest objective wins). Automatic: 1 for "
                "the spectral start, 10 for random starts.",
                low=1,
                high=100,
                allow_none=True,
                advanced=True,
            ),
            Param(
                "bkhk_space",
                "choice",
                "auto",
                "Where BKHK forms its balanced groups: the full features, a 64-dim random "
                "projection (one pass over the data), or the top 64 principal directions "
                "(four passes); anchors are still means of the original features. Automatic: "
                "the principal directions above 5e6 stored values and 128 features.",
                choices=("auto", "full", "sketch", "pca"),
                advanced=True,
            ),
            Param(
                "bkhk_sample",
                "int",
                None,
                "Rows BKHK builds its anchor tree on, per anchor (a random subsample; 0: all "
                "rows, the paper). Automatic: 32 per anchor, at least 32768 rows, so data up "
                "to that size use every row.",
                low=0,
                high=100_000,
                allow_none=True,
                advanced=True,
            ),
            Param(
                "alpha_solver",
                "choice",
                "exact_qp",
                "View-weight solver: exact small QP, or the "
                "paper's augmented Lagrangian (same minimiser).",
                choices=("exact_qp", "alm"),
                advanced=True,
            ),
        )
        + DTYPE_PARAM
    )

    def __init__(
        self,
        n_clusters: int = 2,
        *,
        n_anchors: int | None = None,
        n_neighbors: int | None = None,
        max_iter: int = 100,
        tol: float = 1e-10,
        init: str = "anchor_spectral",
        n_init: int | None = None,
        bkhk_space: str = "auto",
        bkhk_sample: int | None = None,
        alpha_solver: str = "exact_qp",
        random_state: int | None = 0,
        dtype: str = "auto",
    ) -> None:
        self.n_clusters = n_clusters
        self.n_anchors = n_anchors
        self.n_neighbors = n_neighbors
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.n_init = n_init
        self.bkhk_space = bkhk_space
        self.bkhk_sample = bkhk_sample
        self.alpha_solver = alpha_solver
        self.random_state = random_state
        self.dtype = dtype

    def resolve_defaults(self, n, c, dims, density):  # type: ignore[override]
        m = effective_anchor_count(self.n_anchors, n, c)
        return {"n_anchors": m, "n_neighbors": auto_neighbor_count(m, c)}

    def _check_input(self, views: list[View]) -> None:
        n = views[0].shape[0]
        m = effective_anchor_count(self.resolved("n_anchors"), n)
        if self.n_clusters > m:
            most = effective_anchor_count(n, n)  # a power of 2, at most n/2
            if most >= self.n_clusters:
                fix = (
                    f"ask for more anchors (n_anchors up to {most} for {n} samples) or fewer "
                    "clusters"
                )
            else:
                fix = (
                    f"{most} anchors is the most for {n} samples (a power of 2, at most n/2), "
                    f"so FMDC can find at most {most} clusters here: ask for {most} or fewer, "
                    "or use a method without anchors (e.g. kmeans-concat)"
                )
            raise ParamError(
                f"'n_clusters' = {self.n_clusters} exceeds the {m} anchors available for "
                f"{n} samples; {fix}"
            )

    @classmethod
    def estimate_memory(cls, n_samples, dims, params) -> int:  # type: ignore[override]
        m = effective_anchor_count(params.get("n_anchors"), n_samples, params.get("n_clusters", 2))
        k = params.get("n_neighbors") or 15
        v = len(dims)
        return int(8 * (n_samples * (4 * k * v + 8) + m * sum(dims) * 2 + 4096 * m * 2))

    def _run(self, views: list[View], rep: Reporter) -> Generator[IterationState, None, FitResult]:
        n, v, c = views[0].shape[0], len(views), self.n_clusters
        m = effective_anchor_count(self.resolved("n_anchors"), n)
        rng = seed_streams(self.random_state, ["anchors", "init", "restarts", "svds_v0"])
        msg = f"BKHK: {m} anchors" + (f" (asked {self.n_anchors})" if self.n_anchors else "")
        yield rep.stage("anchors", 0.0, msg)
        # exact: BKHK and the anchor graphs use only distances among samples and group means
        views, spaces = yield from self._in_row_space(views, rep, "anchors")
        rows = tree_rows(self.bkhk_sample, n, m)
        anchors, _ = yield from rep.follow(
            anchor_steps(views, m, rng["anchors"], self.bkhk_space, rows), "anchors", msg, 0.0, 0.4
        )
        graphs = []
        for i, x in enumerate(views):
            # mixed: float32 screening, graph of float64 distances (core.numerics.jit.pkn_mixed)
            z = yield from rep.follow(
                graph_steps(x, anchors[i], self.resolved("n_neighbors"), mixed=True),
                "graph",
                f"anchor graph of view {i + 1}/{v}",
                0.4 + 0.5 * i / v,
                0.4 + 0.5 * (i + 1) / v,
            )
            graphs.append(z)
        zhats = [normalize_anchor_graph(z) for z in graphs]
        spectral = rng["svds_v0"] if self.init == "anchor_spectral" else None
        gram, heat, stack, embedding = graph_products(zhats, graphs, c, spectral)
        yield rep.stage("graph", 0.95, "consensus anchor graph", anchor_graph=heat)
        return (
            yield from self._best_of_restarts(
                zhats, gram, c, rng, rep, lift_all(spaces, anchors), graphs, m,
                lambda alpha: sum(a * z for a, z in zip(alpha, graphs, strict=True)).tocsr(),
                stack, embedding,
            )
        )  # fmt: skip

    def _best_of_restarts(
        self, zhats: list, gram: np.ndarray, c: int, rng: dict, rep: Reporter,
        anchors: Any, graphs: list, m: int, consensus: Callable[[np.ndarray], Any],
        stack: sp.csr_matrix | None = None, embedding: np.ndarray | None = None,
    ) -> Generator[IterationState, None, FitResult]:  # fmt: skip
        """Initial labels and optimisation, ``n_init`` times; the lowest objective wins. The
        fit's anchor graph is ``consensus(learned view weights)``. ``stack``/``embedding``:
        already computed by :func:`graph_products` (else here)."""
        yield rep.stage("init", 0.95, "initial labels")
        n_init = self.n_init or (1 if self.init == "anchor_spectral" else 10)
        best: tuple | None = None
        if stack is None:  # [Ẑ_1, …, Ẑ_V]: the spectral start and every sweep
            stack = stack_graphs(zhats)
        for r in range(n_init):
            labels0, embedding = self._initial_labels(stack, len(zhats), c, rng, r, embedding)
            run = yield from self._optimise(zhats, stack, gram, labels0, rep, restart=r)
            if best is None or run[1][-1] < best[1][-1] - 1e-12:
                best = run
        labels, history, alpha, extra, n_iter, converged = best
        return FitResult(
            labels=labels,
            objective_history=history,
            n_iter=n_iter,
            converged=converged,
            view_weights=alpha,
            anchors=anchors,
            anchor_graph=consensus(alpha),
            history=extra,
            attributes={"n_anchors_": m, "view_graphs_": graphs},
        )

    def _run_incomplete(
        self, views: list[View], observed: np.ndarray, rep: Reporter
    ) -> Generator[IterationState, None, FitResult]:
        """Samples missing from views: per-view anchors and graphs (fmdc/incomplete.py)."""
        v, c = len(views), self.n_clusters
        m = effective_anchor_count(self.resolved("n_anchors"), int(observed.sum(axis=0).min()))
        rng = seed_streams(self.random_state, ["anchors", "init", "restarts", "svds_v0"])
        anchors, graphs = yield from incomplete.observed_anchor_graphs(
            views, observed, m, self.resolved("n_neighbors"), rng["anchors"], rep, self.bkhk_space
        )
        zhats = incomplete.scaled_graphs(graphs, observed)
        gram = cross_gram(zhats)
        equal = np.full(v, 1.0 / v)
        yield rep.stage(
            "graph",
            0.95,
            "consensus anchor graph",
            anchor_graph=incomplete.consensus_graph(graphs, observed, equal),
        )
        return (
            yield from self._best_of_restarts(
                zhats, gram, c, rng, rep, anchors, graphs, m,
                lambda alpha: incomplete.consensus_graph(graphs, observed, alpha),
            )
        )  # fmt: skip

    def _initial_labels(
        self, stack: sp.csr_matrix, v: int, c: int, rng: dict, restart: int, embedding
    ) -> tuple[np.ndarray, np.ndarray | None]:
        n = stack.shape[0]
        if self.init == "random":
            labels = rng["restarts"].permutation(np.arange(n) % c)
            return balance_empty_clusters(labels, c), None
        if embedding is None:  # left singular vectors of [Ẑ_1, …, Ẑ_V] / √V (spec §6)
            with blas_single():  # threaded BLAS in ARPACK leaves OpenBLAS's workers spinning
                embedding = spectral_embedding(stack, v, c, rng["svds_v0"])
        # restart 0: best of 10 k-means runs; later restarts: single runs with their own
        # seeds, so that restarts explore different starts (the lowest objective wins).
        g = rng["init"] if restart == 0 else rng["restarts"]
        labels = kmeans_labels(
            embedding, c, g, n_init=10 if restart == 0 else 1, threads=blas_threads()
        )
        return balance_empty_clusters(labels, c), embedding

    def _optimise(
        self, zhats, stack, gram, labels, rep: Reporter, restart: int
    ) -> Generator[IterationState, None, tuple]:
        n, v, c = zhats[0].shape[0], len(zhats), self.n_clusters
        labels = labels.astype(np.int64).copy()
        alpha = np.full(v, 1.0 / v)
        history: list[float] = []
        extra: dict[str, list[float]] = {"moved": [], "rcut": []}
        order = np.arange(n, dtype=np.int64)
        # Q = [√α_1 Ẑ_1, …] shares the structure of the unscaled stack; only its values and
        # Qᵀ Y = √α_v (Ẑ_vᵀ Y) change with α, so nothing n-sized is rebuilt per iteration
        widths = np.cumsum([0] + [z.shape[1] for z in zhats])
        col_view = np.repeat(np.arange(v, dtype=np.uint8 if v < 256 else np.int64), np.diff(widths))
        nnz_view = col_view[stack.indices]  # one byte per non-zero (a 1M x 3 x 15 stack: 45 MB)
        q_data = np.empty_like(stack.data)
        row_sq = np.column_stack([np.asarray(z.multiply(z).sum(axis=1)).ravel() for z in zhats])
        sums = label_column_sums(stack.indptr, stack.indices, stack.data, labels, c, widths[-1])
        converged = False
        it = 0
        for it in range(1, self.max_iter + 1):
            root = np.sqrt(alpha)
            scale_by_view(stack.data, nnz_view, root, q_data)
            s = row_sq @ alpha
            b = sums * root[col_view][:, None]
            a = np.einsum("ij,ij->j", b, b)
            counts = np.bincount(labels, minlength=c).astype(np.int64)
            moved = fmdc_sweep(stack.indptr, stack.indices, q_data, s, b, a, counts, labels, order)
            sums = label_column_sums(stack.indptr, stack.indices, stack.data, labels, c, widths[-1])
            lin = view_terms(sums, widths, counts)
            alpha_new = solve_view_weights(gram, lin, self.alpha_solver)
            obj = float(alpha_new @ gram @ alpha_new - lin @ alpha_new + np.count_nonzero(counts))
            d_alpha = float(np.max(np.abs(alpha_new - alpha)))
            alpha = alpha_new
            history.append(obj)
            ratio = float(lin @ alpha / 2)
            extra["moved"].append(float(moved))
            extra["rcut"].append(float(np.count_nonzero(counts) - ratio))
            yield rep.iteration(
                it,
                obj,
                view_weights=alpha,
                labels=labels,
                extras={"moved": float(moved), "restart": float(restart)},
            )
            small_change = len(history) >= 2 and abs(history[-2] - obj) < self.tol
            if small_change or (moved == 0 and d_alpha < 1e-12):
                converged = True
                break
        return labels, history, alpha, extra, it, converged
