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

__all__ = ["Control", "RunEnd", "run_solver"]


@dataclass
class RunEnd:
    run_id: int
    status: str  # "finished", "stopped" or "failed"
    solver: Any
    error: str = ""
    details: str = ""
    preprocessing: tuple[str, ...] = ()
    elapsed: float = 0.0


class Control(Protocol):
    def wait_turn(self) -> bool:
        """Block while paused; False means stop."""

    def after_state(self, state: IterationState) -> None:
        """Called after each state (a step pauses again after an iteration)."""


def run_solver(
    run_id: int,
    solver: Any,
    prepare: Callable[[], tuple[list, list[str]]],
    true_labels: np.ndarray | None,
    push: Callable[[Frame], None],
    control: Control,
    observed: np.ndarray | None = None,
) -> RunEnd:
    t0 = time.perf_counter()
    end = RunEnd(run_id, "finished", solver)
    gen = None
    try:
        msg = "Preprocessing views..."
        push(Frame(run_id, IterationState(stage="preprocessing", message=msg)))
        views, chosen = prepare()
        end.preprocessing = tuple(chosen)
        builder = FrameBuilder(run_id, true_labels)
        gen = solver.iterate(views, observed)
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
