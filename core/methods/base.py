"""The solver protocol shared by the CLI, the tests and the GUI.

A solver is a scikit-learn style estimator whose ``iterate(views)`` generator yields
:class:`IterationState` objects: first the preparation stages (``"anchors"``, ``"graph"``,
``"init"``) with a progress fraction, then one state per optimisation iteration, and last a
state with ``final=True`` after the fitted attributes are set. ``fit`` drains ``iterate``, so
one code path serves every consumer. Closing the generator early leaves the estimator
unfitted and no global state behind.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin

from core.data.dataset import DataError, View, check_observed, check_views
from core.methods.docstrings import add_sections
from core.methods.params import Param, ParamError, ParamSpec
from core.methods.prediction import prediction_reference
from core.methods.states import (
    STAGES,
    FitResult,
    IterationState,
    Reporter,
    normalized_weights,
    seed_streams,
    sklearn_seed,
)
from core.numerics.empty_clusters import fill_empty_clusters
from core.numerics.precision import DTYPES, resolve_dtype
from core.numerics.row_space import RowSpace, describe, is_wide, reduce_wide

__all__ = [
    "COMMON_PARAMS",
    "DTYPE_PARAM",
    "REGISTRY",
    "STAGES",
    "BaseSolver",
    "FitResult",
    "IterationState",
    "Reporter",
    "normalized_weights",
    "observed_rows",
    "register",
    "seed_streams",
    "sklearn_seed",
]

_log = logging.getLogger(__name__)

COMMON_PARAMS = ParamSpec(
    Param(
        "n_clusters",
        "int",
        2,
        "Number of clusters to find, or 'auto': estimated from the data (largest eigengaps "
        "of the multi-view anchor graph, the largest one stable across subsamples).",
        low=2,
        high=100_000,
        auto=True,
    ),
    Param("max_iter", "int", 100, "Maximum number of outer iterations.", low=1, high=10_000),
    Param(
        "tol",
        "float",
        1e-6,
        "Stop when the objective changes less than this.",
        low=0.0,
        high=1.0,
        log=True,
        advanced=True,
    ),
    Param(
        "random_state",
        "seed",
        0,
        "Seed: the same seed gives the same labels.",
        low=0,
        high=2**32 - 1,
    ),
)

DTYPE_PARAM = ParamSpec(
    Param(
        "dtype",
        "choice",
        "auto",
        "Precision of the passes over the data: float32 halves the memory and speeds up the "
        "products with the data (small solves stay float64). Automatic: the data's own "
        "precision (float32 data are never copied to float64).",
        choices=DTYPES,
        advanced=True,
    ),
)

REGISTRY: dict[str, type[BaseSolver]] = {}


def register(cls: type[BaseSolver]) -> type[BaseSolver]:
    """Class decorator: make a solver available to the CLI and the GUI by ``cls.name``."""
    if cls.name in REGISTRY and REGISTRY[cls.name] is not cls:
        raise ValueError(f"solver name {cls.name!r} registered twice")
    REGISTRY[cls.name] = cls
    return cls


class BaseSolver(ClusterMixin, BaseEstimator):
    """Base class: subclasses define ``__init__`` (storing parameters only), the class
    attributes below, and ``_run(views, rep)``, a generator of states returning a FitResult.
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    reference: ClassVar[str] = ""
    param_spec: ClassVar[ParamSpec] = COMMON_PARAMS
    objective_label: ClassVar[str] = "objective"
    objective_decreases: ClassVar[bool] = True
    #: True when the method implements ``_run_incomplete``: samples missing from some views
    supports_incomplete: ClassVar[bool] = False
    #: fitted attributes of this method beyond the common ones: name -> "type: meaning"
    own_attributes: ClassVar[dict[str, str]] = {}
    #: True when every pass over the data goes through ``core.numerics.streaming`` (anchors,
    #: anchor graph), so the views may be row-block sources read from disk (out-of-core)
    streams: ClassVar[bool] = False
    #: the grid ``mvc tune`` and Suggest parameters try: parameter -> values (a few cells: the
    #: machine is small); ``Relative`` values are multiples of the automatic value on the data
    tune_grid: ClassVar[Mapping[str, tuple[Any, ...]]] = {}
    #: the window's panels this method has nothing for (``weights``, ``anchor_graph``,
    #: ``convergence``) and why, in words: the panel shows the sentence, never an empty axis
    panel_notes: ClassVar[Mapping[str, str]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__doc__" in vars(cls) and cls.__doc__:  # help(FMDC) lists parameters and attributes
            cls.__doc__ = add_sections(cls.__doc__, cls.param_spec, cls.own_attributes)

    #: the rule ``auto`` preprocessing follows for this method (core.data.preprocessing.AUTO_RULES)
    auto_preprocessing: ClassVar[str] = "general"

    _fitted_names = (
        "labels_",
        "view_weights_",
        "objective_history_",
        "history_",
        "n_iter_",
        "converged_",
        "anchors_",
        "anchor_graph_",
        "stage_times_",
        "n_clusters_",
        "n_clusters_estimate_",
    )

    # -- hooks for subclasses -------------------------------------------------------------
    def _run(self, views: list[View], rep: Reporter) -> Generator[IterationState, None, FitResult]:
        raise NotImplementedError

    def _run_incomplete(
        self, views: list[View], observed: np.ndarray, rep: Reporter
    ) -> Generator[IterationState, None, FitResult]:
        """Like ``_run`` when some samples miss some views (``observed[i, v]`` False: row i of
        view v holds no data). Only methods with ``supports_incomplete`` implement it."""
        raise NotImplementedError

    def resolve_defaults(
        self, n: int, c: int, dims: Sequence[int], density: Sequence[float]
    ) -> dict[str, Any]:
        """Values for the parameters left automatic (None), from the data's shape: n samples,
        c clusters, view dimensions and the share of non-zeros per view (docs/defaults.md).
        Explicit values are never passed here; return only the parameters this method sizes."""
        return {}

    def resolved(self, name: str) -> Any:
        """A parameter's value for this fit: the explicit value, else the resolved default."""
        value = getattr(self, name)
        if value is None:
            return getattr(self, "resolved_params_", {}).get(name)
        return value

    def _resolve_params(
        self, views: list[View], observed: np.ndarray | None = None
    ) -> dict[str, Any]:
        """Automatic values from the data; ``observed``: only those rows of each view count
        (placeholder rows of missing views must not move a default)."""
        n, dims = views[0].shape[0], [x.shape[1] for x in views]
        present = observed_rows(views, observed)
        density = [
            (x.nnz if sp.issparse(x) else np.count_nonzero(x)) / max(x.shape[0] * x.shape[1], 1)
            for x in present
        ]
        auto = self.resolve_defaults(n, self.n_clusters, dims, density)
        params = self.get_params()
        return {k: (auto.get(k) if v is None and k in auto else v) for k, v in params.items()}

    def _in_row_space(
        self,
        views: list[View],
        rep: Reporter,
        stage: str,
        which: Sequence[int] | None = None,
        rule: Callable[[View], bool] = is_wide,
    ) -> Generator[IterationState, None, tuple[list[View], list[RowSpace | None]]]:
        """Views (``which``, default all) for which ``rule`` holds (default: wide) replaced by
        their row-space coordinates (:mod:`core.numerics.row_space`: exact for steps that use
        only inner products among samples); noted in ``resolved_params_["row_space"]`` and
        the log. Returns the views to work on and, per view, its RowSpace (None: kept)."""
        idx = range(len(views)) if which is None else which
        if not any(rule(views[i]) for i in idx):
            return views, [None] * len(views)
        yield rep.stage(stage, 0.0, "wide views: moving to the sample space")
        out, spaces = reduce_wide(views, idx, rule)
        note = describe(spaces)
        self.resolved_params_["row_space"] = note
        _log.info("%s works in the sample space of wide views: %s", type(self).__name__, note)
        yield rep.stage(stage, 0.0, f"sample space: {note}")
        return out, spaces

    def _check_input(self, views: list[View]) -> None:
        """Data-dependent checks (e.g. anchors <= n); raise DataError or ParamError."""

    @classmethod
    def estimate_memory(cls, n_samples: int, dims: Sequence[int], params: Mapping[str, Any]) -> int:
        """Rough peak memory in bytes of a run (for refusing what will not fit)."""
        return 8 * n_samples * (sum(dims) + 64)

    # -- the protocol ---------------------------------------------------------------------
    def validated_params(self) -> dict[str, Any]:
        return self.param_spec.validate(self.get_params(), owner=type(self).__name__)

    def _clear_fitted(self) -> None:
        for attr in list(vars(self)):
            if attr.endswith("_") and not attr.startswith("_"):
                delattr(self, attr)

    def iterate(
        self,
        views: Sequence[object],
        observed: np.ndarray | None = None,
        *,
        k_views: Callable[[], Sequence[object]] | None = None,
    ) -> Iterator[IterationState]:
        """Validate, then yield states until convergence or ``max_iter``.

        ``observed`` (n x V bool, optional) marks which sample has which view; None or all
        True is complete data. A method without ``supports_incomplete`` refuses missing views.
        ``k_views``: what ``n_clusters="auto"`` is estimated on when it is not ``views``
        (``core.data.prepare.estimate_views``: the same data as every method's estimate
        reads it); called only then.
        """
        self._clear_fitted()
        self.validated_params()
        auto = self.n_clusters == "auto"
        dtype = resolve_dtype(getattr(self, "dtype", "float64"), _raw_views(views))
        xs = check_views(views, None if auto else self.n_clusters, dtype=dtype, informative=True)
        mask = None if observed is None else check_observed(observed, xs[0].shape[0], len(xs))
        if mask is not None and mask.all():
            mask = None
        if mask is not None and not self.supports_incomplete:
            missing = int(np.count_nonzero(~mask.all(axis=1)))
            raise DataError(
                f"{type(self).__name__} needs every view of every sample, but {missing} "
                "sample(s) miss a view: choose a method that handles incomplete views, or "
                "drop or impute the missing views"
            )
        rep = Reporter(self.max_iter)
        estimate = None
        try:  # "auto" is resolved here, so every method gets it; the parameter stays "auto"
            if auto:
                # imported here: it pulls in numba kernels and scikit-learn, which a solver
                # child process that never estimates k should not pay for at start-up
                from core.numerics.k_estimate import describe_estimate
                from core.numerics.n_clusters import estimate_n_clusters

                yield rep.stage("init", 0.0, "estimating the number of clusters")
                ks = xs if k_views is None else check_views(k_views(), None, dtype=dtype)
                full = ks if mask is None else [x[mask.all(axis=1)] for x in ks]
                estimate = estimate_n_clusters(full, self.random_state)
                del ks, full  # a second copy of the data: not held through the run
                self.n_clusters = estimate.k
                msg = f"estimated the number of clusters: {describe_estimate(estimate.to_dict())}"
                yield rep.stage("init", 0.0, msg)
            self.resolved_params_ = self._resolve_params(xs, mask)  # after k is known
            self._check_input(xs)
            run = self._run(xs, rep) if mask is None else self._run_incomplete(xs, mask, rep)
            result = yield from run
            result.labels, notes = fill_empty_clusters(
                result.labels, int(self.n_clusters), xs, mask, self.random_state
            )
            for note in notes:  # shown as a progress message and logged
                _log.warning("%s", note)
                yield rep.stage("postprocess", 1.0, note)
        finally:
            if auto:
                self.n_clusters = "auto"
        total = rep.finish()
        self._set_fitted(result, rep)
        self.n_clusters_ = int(estimate.k) if estimate else int(self.n_clusters)
        self.n_clusters_estimate_ = estimate.to_dict() if estimate else None
        # new samples are assigned through an anchor graph (``predict``)
        self.assigner_ = prediction_reference(self, xs, mask)
        yield IterationState(
            stage="done",
            iteration=result.n_iter,
            objective=result.objective_history[-1] if result.objective_history else None,
            view_weights=None
            if result.view_weights is None
            else normalized_weights(result.view_weights),
            labels=result.labels.copy(),
            progress=1.0,
            elapsed=total,
            converged=result.converged,
            final=True,
            stop_reason="converged" if result.converged else "max_iter",
            anchor_graph=result.anchor_graph,
        )

    def _set_fitted(self, result: FitResult, rep: Reporter) -> None:
        self.labels_ = np.asarray(result.labels, dtype=np.int64)
        self.view_weights_ = result.view_weights
        self.objective_history_ = list(map(float, result.objective_history))
        self.history_ = {k: list(v) for k, v in result.history.items()}
        self.n_iter_ = int(result.n_iter)
        self.converged_ = bool(result.converged)
        self.anchors_ = result.anchors
        self.anchor_graph_ = result.anchor_graph
        self.stage_times_ = dict(rep.stage_times)
        for key, value in result.attributes.items():
            setattr(self, key if key.endswith("_") else key + "_", value)

    def fit(
        self,
        views: Sequence[object],
        y: object = None,
        *,
        observed: np.ndarray | None = None,
        k_views: Callable[[], Sequence[object]] | None = None,
    ) -> BaseSolver:
        """Run to convergence; sets ``labels_``, ``view_weights_``, ``objective_history_``...

        ``observed``, ``k_views``: see :meth:`iterate`."""
        for _ in self.iterate(views, observed, k_views=k_views):
            pass
        return self

    def predict(self, views: Sequence[object], observed: np.ndarray | None = None) -> np.ndarray:
        """Clusters of new samples (views preprocessed like the fitted ones), through the
        fitted anchor graph: see :func:`core.methods.prediction.prediction_reference` for what
        each method uses. ``observed``: which new sample has which view (None: all)."""
        assigner = getattr(self, "assigner_", None)
        if assigner is None:
            raise DataError(f"{type(self).__name__} is not fitted: fit it before predicting")
        xs = check_views(views)
        if len(xs) != len(self.n_features_in_):
            raise DataError(
                f"the new data has {len(xs)} views; the run used {len(self.n_features_in_)}"
            )
        return assigner.predict(xs, observed)

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> BaseSolver:
        """Build a solver from a (partial) parameter dict, validating it."""
        merged = {**cls.param_spec.defaults(), **params}
        obj = cls(**merged)
        obj.validated_params()
        return obj


def _raw_views(views: object) -> Sequence[object]:
    views = getattr(views, "views", views)
    return [] if views is None else views


def check_anchor_count(m: int, n: int, what: str = "n_anchors") -> None:
    if m > n:
        raise ParamError(f"'{what}' = {m} exceeds the number of samples ({n})")


def observed_rows(views: Sequence[View], observed: np.ndarray | None) -> list[View]:
    """Each view's rows of the samples that have it (all rows without a mask)."""
    if observed is None:
        return list(views)
    return [x[observed[:, v]] for v, x in enumerate(views)]
