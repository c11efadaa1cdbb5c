"""What a solver yields and returns: progress states, the fit result, and the reporter
that stamps states with elapsed time and a monotone progress fraction.

Kept apart from :mod:`core.methods.base` (which re-exports everything here) so the solver
protocol's data types can be read on their own.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = [
    "STAGES",
    "FitResult",
    "IterationState",
    "Reporter",
    "normalized_weights",
    "seed_streams",
    "sklearn_seed",
]

STAGES = ("anchors", "graph", "init", "iterating", "postprocess", "done")


@dataclass(frozen=True)
class IterationState:
    """A snapshot sent to consumers (possibly across threads): arrays are private copies.

    stage : one of ``STAGES``; iteration : 0 during preparation, then 1, 2, ...
    objective : the method's objective after this iteration (see the method docstring for
    its sign and whether it decreases); view_weights : normalised to sum 1;
    labels : current labels when the method has them; progress : overall fraction in [0, 1];
    extras : secondary scalar series (e.g. ``moved``, ``residual``); anchor_graph : only on
    the ``graph`` stage and on the final state (n x m, sparse where it is sparse).
    """

    stage: str
    iteration: int = 0
    objective: float | None = None
    view_weights: np.ndarray | None = None
    labels: np.ndarray | None = None
    progress: float = 0.0
    elapsed: float = 0.0
    converged: bool = False
    final: bool = False
    stop_reason: str = ""
    message: str = ""
    extras: Mapping[str, float] = field(default_factory=dict)
    anchor_graph: sp.csr_matrix | np.ndarray | None = None


@dataclass
class FitResult:
    """What a solver's ``_run`` returns; the base class turns it into fitted attributes."""

    labels: np.ndarray
    objective_history: list[float]
    n_iter: int
    converged: bool
    view_weights: np.ndarray | None = None
    anchors: Any = None
    anchor_graph: sp.csr_matrix | np.ndarray | None = None
    history: dict[str, list[float]] = field(default_factory=dict)
    attributes: dict[str, Any] = field(default_factory=dict)


class Reporter:
    """Builds states with elapsed time and a monotone overall progress fraction.

    Preparation stages fill [0, prep_share); iterations fill the rest by ``it / max_iter``.
    """

    def __init__(self, max_iter: int, prep_share: float = 0.3) -> None:
        self.t0 = time.perf_counter()
        self.max_iter = max(int(max_iter), 1)
        self.prep_share = prep_share
        self._progress = 0.0
        self.stage_times: dict[str, float] = {}
        self._stage = ""
        self._stage_t0 = self.t0

    def _enter(self, stage: str) -> None:
        now = time.perf_counter()
        if stage != self._stage:
            if self._stage:
                self.stage_times[self._stage] = (
                    self.stage_times.get(self._stage, 0.0) + now - self._stage_t0
                )
            self._stage, self._stage_t0 = stage, now

    def _advance(self, value: float) -> float:
        self._progress = min(1.0, max(self._progress, value))
        return self._progress

    def stage(self, stage: str, fraction: float, message: str = "", **kw: Any) -> IterationState:
        """A preparation state; ``fraction`` is the overall preparation progress in [0, 1]."""
        self._enter(stage)
        return IterationState(
            stage=stage,
            progress=self._advance(self.prep_share * min(max(fraction, 0.0), 1.0)),
            elapsed=time.perf_counter() - self.t0,
            message=message,
            **kw,
        )

    def follow(
        self,
        steps: Generator[float, None, Any],
        stage: str,
        message: str = "",
        lo: float = 0.0,
        hi: float = 1.0,
    ) -> Generator[IterationState, None, Any]:
        """Re-yield a step generator's fractions as ``stage`` states (mapped to [lo, hi] of
        the preparation progress) and return the generator's value: ``x = yield from
        rep.follow(bkhk_steps(...), "anchors", msg)``."""
        while True:
            try:
                frac = next(steps)
            except StopIteration as stop:
                return stop.value
            yield self.stage(stage, lo + (hi - lo) * frac, message)

    def iteration(
        self,
        it: int,
        objective: float | None,
        *,
        view_weights: np.ndarray | None = None,
        labels: np.ndarray | None = None,
        extras: Mapping[str, float] | None = None,
        message: str = "",
    ) -> IterationState:
        self._enter("iterating")
        frac = self.prep_share + (1 - self.prep_share) * min(it / self.max_iter, 1.0)
        return IterationState(
            stage="iterating",
            iteration=it,
            objective=None if objective is None else float(objective),
            view_weights=None if view_weights is None else normalized_weights(view_weights),
            labels=None if labels is None else np.array(labels, dtype=np.int64),
            progress=self._advance(frac),
            elapsed=time.perf_counter() - self.t0,
            extras=dict(extras or {}),
            message=message,
        )

    def finish(self) -> float:
        self._enter("done")
        return time.perf_counter() - self.t0


def normalized_weights(w: Sequence[float] | np.ndarray) -> np.ndarray:
    """View weights as shares that sum to 1 (a copy; unchanged when they sum to 0)."""
    w = np.array(w, dtype=np.float64).ravel()
    s = w.sum()
    return w / s if s > 0 else w


def seed_streams(random_state: int | None, names: Sequence[str]) -> dict[str, np.random.Generator]:
    """Independent named generators from one seed (common spec §9); order of names matters."""
    ss = np.random.SeedSequence(random_state)
    return {
        name: np.random.Generator(np.random.PCG64(child))
        for name, child in zip(names, ss.spawn(len(names)), strict=True)
    }


def sklearn_seed(rng: np.random.Generator) -> int:
    """An int seed for scikit-learn drawn from a generator."""
    return int(rng.integers(0, 2**31 - 1))
