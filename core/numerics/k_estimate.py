"""Reading a stored estimate of the number of clusters (``KEstimate.to_dict()``) the same way
in every front end: the CLI, the run's progress message, the report and the app.

Records written before the estimator ranked its candidates have only ``k`` and
``runner_up`` (and candidates in eigengap order without scores for each): they still read.
Standard library only, so that a report or the window does not import the estimator.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "COARSE_K",
    "candidate_evidence",
    "coarse_note",
    "describe_estimate",
    "ranked_candidates",
]

#: an estimate this small may be the coarse split of finer groups: on 11 of 12 public files
#: of 5-100 classes that no rule was chosen on, the estimate was 2-4 (docs/tuning.md)
COARSE_K = 4


def ranked_candidates(est: Mapping[str, Any]) -> list[int]:
    """The candidates, best first; an older record gives [k, runner_up]."""
    ranked = [int(k) for k in est.get("ranked") or []]
    if not ranked:
        ranked = [int(est["k"])]
        if int(est.get("runner_up", est["k"])) != ranked[0]:
            ranked.append(int(est["runner_up"]))
    return ranked


def describe_estimate(est: Mapping[str, Any]) -> str:
    """'k = 12 (also plausible: 8, 15)': the estimate never shown as a bare number."""
    ranked = ranked_candidates(est)
    others = ", ".join(str(k) for k in ranked[1:3])
    return f"k = {ranked[0]}" + (f" (also plausible: {others})" if others else "")


def coarse_note(est: Mapping[str, Any]) -> str:
    """A caution for a small estimate ('' otherwise): it may be the coarse split of finer
    groups. (The curve's larger peaks are not offered: on the files of docs/tuning.md they
    held the true k once in 18 small estimates.)"""
    if ranked_candidates(est)[0] > COARSE_K:
        return ""
    return (
        "a small estimate can be the coarse split of finer groups: if you expect more, set "
        "the number of clusters"
    )


def candidate_evidence(est: Mapping[str, Any]) -> list[tuple[int, float | None, float | None]]:
    """(k, gap score, stability) of each ranked candidate; None where the record lacks it."""
    by_k: dict[int, tuple[float | None, float | None]] = {}
    cands = est.get("candidates") or []
    gaps = est.get("gaps") or []
    stab = est.get("stability") or []
    for i, k in enumerate(cands):
        by_k[int(k)] = (
            float(gaps[i]) if i < len(gaps) else None,
            float(stab[i]) if i < len(stab) else None,
        )
    return [(k, *by_k.get(k, (None, None))) for k in ranked_candidates(est)]
