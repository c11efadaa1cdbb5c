"""Choosing k without labels: the estimator on separated multi-view blobs (a few clusters, 40
and 100: not capped, not biased low), its ranked candidates and how they read, and "auto" in
a solver (resolved at fit, recorded, the parameter left as the user gave it)."""

from __future__ import annotations

import numpy as np
import pytest

from core.methods import REGISTRY
from core.methods.params import ParamError
from core.numerics.k_estimate import (
    candidate_evidence,
    coarse_note,
    describe_estimate,
    ranked_candidates,
)
from core.numerics.n_clusters import (
    anchor_scales,
    choose_candidate,
    distinct_shown,
    estimate_n_clusters,
    gap_score_curve,
    multiview_anchor_graph,
    neighbours_shown,
    rank_candidates,
    scale_spectra,
)


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
    assert est.ranked[:2] == [k, est.runner_up] and len(est.ranked) >= 3
    assert est.ranked[:3] == [k, k - 1, k + 1]  # the band a one-off miss falls in
    distinct = estimate_n_clusters(views, 0, alternatives="distinct")
    shown = distinct.ranked[:3]  # the next best peaks instead
    assert shown[0] == k and all(
        abs(a - b) >= 2 for i, a in enumerate(shown) for b in shown[i + 1 :]
    )
    assert sorted(est.ranked) == sorted(est.candidates)
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
    assert "k = 3 (also plausible: " in states[1].message
    run.close()
    assert solver.get_params()["n_clusters"] == "auto"


def test_the_evidence_read_by_the_benchmark_is_the_estimators():
    """benchmarks/choose_k.py scores rules from the spectra and per-k stability computed once
    (scale_spectra): any rule read that way must be what estimate_n_clusters gives with it,
    and more candidates extend the default ones."""
    views, _ = blobs(6, n_per=30, seed=3)
    spectra = scale_spectra(views, 0, n_neighbors=10)
    for weight, n_cand, share, tau in [(0.0, 4, 0.3, 0.9), (0.2, 3, 0.7, 0.7)]:
        curve = spectra.curve(weight)
        order = np.argsort(-curve, kind="stable")[:n_cand]
        cands = [int(2 + i) for i in order]
        scores = [float(curve[i] / curve[order[0]]) for i in order]
        stab = [spectra.stability(k) for k in cands]
        pool = [int(2 + i) for i in np.argsort(-curve, kind="stable")[:6]]
        ranked = [cands[i] for i in rank_candidates(cands, scores, stab, share, tau)]
        for alternatives in ("neighbours", "distinct"):
            if alternatives == "distinct":
                shown = distinct_shown(ranked, pool)
            else:
                shown = neighbours_shown(ranked, 2, 2 + curve.size - 1)
            est = estimate_n_clusters(
                views,
                0,
                n_neighbors=10,
                size_weight=weight,
                n_candidates=n_cand,
                min_gap_share=share,
                min_stability=tau,
                alternatives=alternatives,
            )
            assert est.ranked == shown and est.candidates[:n_cand] == cands
            assert est.stability[:n_cand] == stab
    default = estimate_n_clusters(views, 0)
    wide = estimate_n_clusters(views, 0, n_candidates=6)
    assert wide.candidates[:3] == default.candidates[:3] and len(wide.candidates) >= 6
    assert wide.stability[:3] == default.stability[:3]


def test_the_neighbours_shown_stay_in_the_range_read():
    assert neighbours_shown([9, 7, 2], 2, 30) == [9, 8, 10, 7, 2]
    assert neighbours_shown([2, 5], 2, 30) == [2, 3, 4, 5]  # k - 1 is below the range
    assert neighbours_shown([30, 12], 2, 30) == [30, 29, 28, 12]  # k + 1 is above it
    assert neighbours_shown([2], 2, 3) == [2, 3]  # only two k can be read


def test_the_alternatives_shown_are_distinct_from_the_estimate():
    # ranked 10, 9, 8, 3 by the rule; the pool (best gap scores) 10, 9, 8, 3, 12, 5
    assert distinct_shown([10, 9, 8, 3], [10, 9, 8, 3, 12, 5]) == [10, 8, 3, 9]
    assert distinct_shown([10, 9], [10, 9, 11, 12, 2]) == [10, 12, 2, 9]
    assert distinct_shown([4, 7, 2], [4, 7, 2]) == [4, 7, 2]  # already distinct: unchanged
    assert distinct_shown([5], [5, 6]) == [5]  # nothing distinct to add


def test_the_rule_prefers_the_largest_stable_candidate_with_a_real_gap():
    # candidates in gap order: 2 (largest gap), 7 (gap half as large), 4 (small gap)
    cands, gaps = [2, 7, 4], [0.2, 0.1, 0.01]
    assert choose_candidate(cands, gaps, [1.0, 0.9, 1.0]) == (7, 2)
    assert choose_candidate(cands, gaps, [1.0, 0.6, 1.0]) == (2, 7)  # 7 unstable
    assert choose_candidate(cands, gaps, [1.0, 0.9, 1.0], min_gap_share=0.6) == (2, 7)
    assert choose_candidate(cands, gaps, [0.7, 0.6, 1.0]) == (2, 7)  # none stable: most stable


def many_clusters(c: int, per: int, seed: int = 0) -> tuple[list, np.ndarray]:
    """c Gaussian classes in a 12-dim latent space seen through three views of different
    dimension and noise (0.5, 1, 2): the shape of a many-class file."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(c), per)
    latent = rng.normal(scale=3.0 if c < 100 else 4.0, size=(c, 12))[y]
    latent += rng.normal(size=latent.shape)
    views = []
    for d, noise in ((24, 0.5), (16, 1.0), (12, 2.0)):
        w = rng.normal(size=(12, d)) / np.sqrt(12)
        views.append(latent @ w + noise * rng.normal(size=(y.size, d)))
    return views, y


@pytest.mark.parametrize(("c", "per"), [(40, 15), (100, 12)])
def test_many_clusters_are_found_not_a_capped_or_low_estimate(c, per):
    """The 64-anchor estimator could not answer more than 32 and said 2-4 on many-class
    files; the multi-scale spectrum reads k up to n / 5 (here 120 and 240)."""
    views, _ = many_clusters(c, per)
    est = estimate_n_clusters(views, 0)
    assert abs(est.k - c) <= 0.1 * c
    assert est.scales[0] == 64 and est.scales[-1] >= 4 * c  # a scale with room for c
    assert len(est.curve) == min(c * per // 5, est.scales[-1] // 4) - 1  # k = 2 .. k_max


def test_the_candidate_range_grows_with_n():
    assert anchor_scales(100) == [(64, 20)]  # small n: one graph, read up to n / 5
    assert anchor_scales(300) == [(64, 16), (128, 32)]
    big = anchor_scales(100_000)
    assert [m for m, _ in big] == [64, 128, 256, 512, 1024] and big[-1][1] == 256


def test_the_gap_score_averages_the_scales_that_read_k():
    # scale A reads k <= 3, its largest drop after k = 2; scale B reads k <= 4, after k = 4
    a = np.array([1.0, 0.9, 0.5, 0.4, 0.3])
    b = np.array([1.0, 0.95, 0.9, 0.85, 0.2, 0.1])
    curve = gap_score_curve([a, b], [3, 4], k_min=2, size_weight=0.0)
    # k = 2: (0.4/0.4 + 0.05/0.65) / 2; k = 3: (0.1/0.4 + 0.05/0.65) / 2; k = 4: 0.65/0.65
    assert curve == pytest.approx([(1 + 0.05 / 0.65) / 2, (0.25 + 0.05 / 0.65) / 2, 1.0])
    weighted = gap_score_curve([a, b], [3, 4], k_min=2, size_weight=0.5)
    assert weighted == pytest.approx(curve * np.sqrt([2, 3, 4]))


def test_an_estimate_reads_as_k_with_the_other_plausible_values():
    views, _ = blobs(5)
    est = estimate_n_clusters(views, 0).to_dict()
    text = describe_estimate(est)
    assert (
        text == f"k = {est['ranked'][0]} (also plausible: {est['ranked'][1]}, {est['ranked'][2]})"
    )
    evidence = candidate_evidence(est)
    assert [k for k, _, _ in evidence] == est["ranked"]
    assert all(0 <= g <= 1 and -1 <= s <= 1 for _, g, s in evidence)


def test_a_small_estimate_comes_with_a_caution():
    est = {"k": 2, "runner_up": 3, "ranked": [2, 3, 4]}
    assert "coarse split of finer groups" in coarse_note(est)
    assert coarse_note({"k": 4, "runner_up": 3}) == coarse_note(est)  # an older record too
    # above COARSE_K no caution: the estimate stands on its own
    assert coarse_note({"k": 9, "runner_up": 8, "ranked": [9, 8, 10]}) == ""


def test_a_record_from_before_the_ranking_still_reads():
    old = {
        "k": 4,
        "runner_up": 3,
        "eigenvalues": [1.0, 0.9],
        "candidates": [3, 4, 9],
        "gaps": [0.2, 0.1, 0.05],
        "stability": [0.9, 1.0, 0.7],
        "seconds": 0.1,
    }
    assert ranked_candidates(old) == [4, 3]
    assert describe_estimate(old) == "k = 4 (also plausible: 3)"
    assert candidate_evidence(old) == [(4, 0.1, 1.0), (3, 0.2, 0.9)]
    same = dict(old, runner_up=4)
    assert describe_estimate(same) == "k = 4"


def test_one_tree_gives_every_scale_the_anchors_its_own_build_would():
    """The scales share one BKHK tree (a 2^L-anchor scale is its level L): each scale's graph
    is exactly the graph a separate build of that many anchors from the same seed gives."""
    views, _ = blobs(6, n_per=60, seed=4)  # n = 360: scales of 64 and 128 anchors
    spectra = scale_spectra(views, 0)
    assert spectra.scales == [64, 128]
    for m, z in zip(spectra.scales, spectra.graphs, strict=True):
        alone = multiview_anchor_graph(views, m, 5, np.random.default_rng(spectra.seed))
        assert (z != alone).nnz == 0
