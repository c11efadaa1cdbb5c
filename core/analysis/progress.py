"""The progress an analysis yields while it computes."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["AnalysisProgress"]


@dataclass(frozen=True)
class AnalysisProgress:
    """One step of a long analysis: how far (0..1), what it does, and a partial result to
    show already (e.g. the comparison tables with effect sizes only), or None."""

    fraction: float
    message: str
    partial: object | None = None
