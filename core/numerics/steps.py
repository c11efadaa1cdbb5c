"""Long computations are generators of progress fractions in [0, 1] that *return* their result
(so Stop lands between steps and progress is shown): these run one to its end, or re-yield
its fractions inside a larger step."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

__all__ = ["drain", "scaled"]


def drain(steps: Generator[Any, Any, Any]) -> Any:
    """Run ``steps`` to its end; what it returns."""
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value


def scaled(steps: Generator[float, Any, Any], lo: float, hi: float) -> Generator[float, None, Any]:
    """Re-yield the fractions of ``steps`` mapped into [lo, hi]; return what it returns."""
    while True:
        try:
            frac = next(steps)
        except StopIteration as stop:
            return stop.value
        yield lo + (hi - lo) * frac
