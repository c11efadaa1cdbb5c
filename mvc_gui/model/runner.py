"""The solver run loop (Qt-free), shared by the in-thread and the out-of-process workers.

``run_solver`` prepares the views, drives ``solver.iterate`` and turns every state into a
:class:`~mvc_gui.model.run_history.Frame` handed to ``push``; between states it asks ``control``
whether to continue (pause, step and stop live there). It returns a :class:`RunEnd`.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from core.methods.base import IterationState
from mvc_gui.model.run_history import Frame, FrameBuilder

__all__ = ["Control", "PauseStep", "RunEnd", "run_solver"]


@dataclass
class RunEnd:
    run_id: int
    status: str  # "finished", "stopped" or "failed"
    solver: Any
    error: str = ""
    details: str = ""
    # the fitted transform of each view (core.data.preprocessing.ViewTransform), made where
    # the run ran: the run record and "Assign new samples" apply them, never refit them
    transforms: tuple[Any, ...] = ()
    elapsed: float = 0.0
    # the run record (core.records.runs.RunResult) and "Assign new samples" model, built by
    # the worker thread in the window's process: for a million samples (their ids, labels)
    # that is too much work for the GUI thread
    result: Any = None
    prediction: Any = None

    @property
    def preprocessing(self) -> list[str]:
        """What was done to each view, in words."""
        return [t.label for t in self.transforms]


class PauseStep:
    """Pause, resume and step as one small state machine, shared by every runner: the thread
    worker, the solver child (steered through its pipe) and the GUI-side mirror of the child.

    ``step`` runs until the next optimisation iteration (or the final state), then pauses.
    """

    def __init__(self, paused: bool = False) -> None:
        self.paused, self.stepping = paused, False

    def pause(self) -> None:
        self.paused, self.stepping = True, False

    def resume(self) -> None:
        self.paused = self.stepping = False

    def step(self) -> None:
        self.paused, self.stepping = False, True

    def apply(self, kind: str) -> None:
        """A control message by name: ``"pause"``, ``"resume"`` or ``"step"``."""
        {"pause": self.pause, "resume": self.resume, "step": self.step}[kind]()

    def after_state(self, state: IterationState) -> None:
        if self.stepping and (state.stage == "iterating" or state.final):
            self.paused = True


class Control(Protocol):
    def wait_turn(self) -> bool:
        """Block while paused; False means stop."""

    def after_state(self, state: IterationState) -> None:
        """Called after each state (a step pauses again after an iteration)."""


def run_solver(
    run_id: int,
    solver: Any,
    prepare: Callable[[], tuple[list, list[Any]]],
    true_labels: np.ndarray | None,
    push: Callable[[Frame], None],
    control: Control,
    observed: np.ndarray | None = None,
    k_views: Callable[[], list] | None = None,
) -> RunEnd:
    """``k_views``: what an ``auto`` number of clusters is estimated on, when not the
    prepared views (``core.data.prepare.estimate_views``)."""
    t0 = time.perf_counter()
    end = RunEnd(run_id, "finished", solver)
    gen = None
    try:
        msg = "Preprocessing views..."
        push(Frame(run_id, IterationState(stage="preprocessing", message=msg)))
        views, fitted = prepare()
        end.transforms = tuple(fitted)
        builder = FrameBuilder(run_id, true_labels)
        # observed: samples missing from a view
        gen = solver.iterate(views, observed, k_views=k_views)
        while True:
            if not control.wait_turn():
                end.status = "stopped"
                break
            try:
                state = next(gen)
            except StopIteration:
                break
            push(builder.build(state))
            control.after_state(state)
            if state.final:
                break
    except Exception as exc:  # reported to the user with the traceback as details
        end.status, end.error, end.details = "failed", str(exc), traceback.format_exc()
    finally:
        if gen is not None:
            try:
                gen.close()
            except Exception:
                pass
        end.elapsed = time.perf_counter() - t0
    return end
