"""Choosing k without labels: the estimator on separated multi-view blobs, and "auto" in a
solver (resolved at fit, recorded, the parameter left as the user gave it)."""

from __future__ import annotations

import numpy as np
import pytest

from core.methods import REGISTRY
from core.methods.params import ParamError
from core.numerics.n_clusters import choose_candidate, estimate_n_clusters


def blobs(k: int, n_per: int = 50, n_views: int = 3, seed: int = 0) -> tuple[list, np.ndarray]:
    """k separated clusters seen through n_views views of different dimension."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(k), n_per)
    views = []
    for d in (6, 9, 4)[:n_views]:
        centres = rng.normal(scale=8.0, size=(k, d))
        views.append(centres[y] + rng.normal(size=(y.size, d)))
    return views, y


@pytest.mark.parametrize("k", [3, 5, 8])
def test_estimator_recovers_k_and_gives_a_runner_up(k):
    views, _ = blobs(k)
    est = estimate_n_clusters(views, 0)
    assert est.k == k
    assert est.runner_up != k and est.runner_up in est.candidates
    # the curve: descending, starting at 1, with the largest drop right after k
    vals = est.eigenvalues
    assert vals[0] == pytest.approx(1.0) and np.all(np.diff(vals) <= 1e-12)
    assert np.argmax(vals[1:-1] - vals[2:]) + 2 == k


def test_auto_is_resolved_at_fit_and_recorded():
    views, _ = blobs(4, seed=1)
    solver = REGISTRY["fmdc"](n_clusters="auto", random_state=0)
    solver.fit(views)
    assert solver.get_params()["n_clusters"] == "auto"  # the user's choice stays
    assert solver.n_clusters_ == 4 and np.unique(solver.labels_).size == 4
    record = solver.n_clusters_estimate_
    assert record["k"] == 4 and record["runner_up"] != 4 and len(record["eigenvalues"]) > 4
    fixed = REGISTRY["fmdc"](n_clusters=3, random_state=0).fit(views)
    assert fixed.n_clusters_ == 3 and fixed.n_clusters_estimate_ is None


def test_auto_is_a_valid_value_only_for_n_clusters():
    spec = REGISTRY["alpc"].param_spec
    assert spec["n_clusters"].check("auto") == "auto"
    assert spec["n_clusters"].parse("AUTO") == "auto"
    with pytest.raises(ParamError, match=r"'n_clusters'.*'auto'"):
        spec["n_clusters"].check("many")
    with pytest.raises(ParamError, match="'anchors_per_cluster'"):
        spec["anchors_per_cluster"].check("auto")


def test_closing_an_auto_run_early_leaves_the_parameter_auto():
    views, _ = blobs(3, seed=2)
    solver = REGISTRY["fmdc"](n_clusters="auto", random_state=0)
    run = solver.iterate(views)
    states = [next(run) for _ in range(3)]  # past the estimate, into the method's own stages
    assert "estimated 3 clusters" in states[1].message
    run.close()
    assert solver.get_params()["n_clusters"] == "auto"


def test_more_candidates_extend_the_default_ones_and_the_rule_reads_them_alike():
    """benchmarks/choose_k.py scores the rule's thresholds on a 6-candidate run: its first
    three candidates must be the default run's, with the same gaps and stability."""
    views, _ = blobs(6, n_per=30, seed=3)
    default = estimate_n_clusters(views, 0)
    wide = estimate_n_clusters(views, 0, n_candidates=6)
    assert wide.candidates[:3] == default.candidates and len(wide.candidates) == 6
    assert wide.gaps[:3] == default.gaps and wide.stability[:3] == default.stability
    first = (wide.candidates[:3], wide.gaps[:3], wide.stability[:3])
    assert choose_candidate(*first) == (default.k, default.runner_up)


def test_the_rule_prefers_the_largest_stable_candidate_with_a_real_gap():
    # candidates in gap order: 2 (largest gap), 7 (gap half as large), 4 (small gap)
    cands, gaps = [2, 7, 4], [0.2, 0.1, 0.01]
    assert choose_candidate(cands, gaps, [1.0, 0.9, 1.0]) == (7, 2)
    assert choose_candidate(cands, gaps, [1.0, 0.6, 1.0]) == (2, 7)  # 7 unstable
    assert choose_candidate(cands, gaps, [1.0, 0.9, 1.0], min_gap_share=0.6) == (2, 7)
    assert choose_candidate(cands, gaps, [0.7, 0.6, 1.0]) == (2, 7)  # none stable: most stable
