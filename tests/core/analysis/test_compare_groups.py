"""A group against the rest or against another group, per view (core/analysis/compare.py)."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from scipy.stats import mannwhitneyu

from core.analysis.compare import (
    FeatureTable,
    compare_groups,
    compare_steps,
    feature_values,
    write_compare_csv,
)
from core.data.blocks import ArraySource
from core.data.dataset import DataError
from tests.planted_groups import HIGHER, LOWER, planted


def test_group_vs_rest_finds_exactly_the_planted_features_in_both_directions():
    views, a, observed = planted()
    tables = compare_groups(views, a, observed=observed, view_names=["expr", "counts"])
    assert [t.view_name for t in tables] == ["expr", "counts"]
    for t in tables:
        found = set(np.flatnonzero(t.significant(0.05)).tolist())
        assert found == set(HIGHER) | set(LOWER), t.view_name
        assert set(np.flatnonzero(t.direction == "higher")) >= set(HIGHER)
        assert all(t.direction[j] == "lower" for j in LOWER)
        assert all(t.auc[j] > 0.7 for j in HIGHER) and all(t.auc[j] < 0.3 for j in LOWER)
        top = t.ranked(len(HIGHER) + len(LOWER))
        assert set(top.tolist()) == set(HIGHER) | set(LOWER)


def test_samples_missing_a_view_count_nowhere_in_that_view():
    views, a, observed = planted()
    t = compare_groups(views, a, observed=observed)[1]
    seen = observed[:, 1]
    in_a = np.zeros(seen.size, dtype=bool)
    in_a[a] = True
    assert t.n_a == int((seen & in_a).sum()) < a.size
    assert t.n_b == int((seen & ~in_a).sum())
    x = views[1].toarray()
    np.testing.assert_allclose(t.mean_a, x[seen & in_a].mean(axis=0))
    np.testing.assert_allclose(t.mean_b, x[seen & ~in_a].mean(axis=0))
    j = 4  # a noise feature: the wild rows would make it differ
    ref = mannwhitneyu(x[seen & in_a, j], x[seen & ~in_a, j], method="asymptotic",
                       use_continuity=False)  # fmt: skip
    assert t.p[j] == pytest.approx(ref.pvalue, rel=1e-9)
    assert t.auc[j] == pytest.approx(ref.statistic / (t.n_a * t.n_b))
    everyone = compare_groups(views, a)[1]  # without the mask the wild rows count
    assert everyone.n_a == a.size and everyone.mean_a[j] > 100


def test_group_a_versus_group_b_leaves_the_others_out():
    views, a, _ = planted()
    b = np.arange(200, 300)
    t = compare_groups(views[:1], a, b)[0]
    x = views[0]
    assert (t.n_a, t.n_b) == (a.size, b.size)
    np.testing.assert_allclose(t.mean_b, x[b].mean(axis=0))
    ref = mannwhitneyu(x[a, 3], x[b, 3], method="asymptotic", use_continuity=False)
    assert t.p[3] == pytest.approx(ref.pvalue, rel=1e-9)
    swapped = compare_groups(views[:1], b, a)[0]
    np.testing.assert_allclose(swapped.effect_d, -t.effect_d)
    np.testing.assert_allclose(swapped.auc, 1 - t.auc)


def test_first_yield_has_effect_sizes_only_then_the_full_statistics():
    views, a, observed = planted()
    steps = compare_steps(views, a, observed=observed)
    first = next(steps)
    assert first.message == "effect sizes" and 0 < first.fraction < 1
    partial = first.partial
    assert all(isinstance(t, FeatureTable) and not t.complete for t in partial)
    assert np.isnan(partial[0].auc).all() and not partial[0].significant().any()
    fractions = []
    while True:
        try:
            fractions.append(next(steps).fraction)
        except StopIteration as stop:
            tables = stop.value
            break
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    for p, t in zip(partial, tables, strict=True):
        assert t.complete and not np.isnan(t.p).any()
        np.testing.assert_array_equal(p.effect_d, t.effect_d)
        np.testing.assert_array_equal(p.mean_a, t.mean_a)


def test_a_view_read_in_row_blocks_gives_the_same_table():
    views, a, observed = planted()
    memory = compare_groups(views[:1], a, observed=observed[:, :1])[0]
    streamed = compare_groups([ArraySource(views[0], block_rows=37)], a,
                              observed=observed[:, :1])[0]  # fmt: skip
    for f in ("mean_a", "mean_b", "effect_d", "auc", "p", "q"):
        np.testing.assert_allclose(getattr(streamed, f), getattr(memory, f), rtol=1e-12)


def test_bad_groups_are_refused_clearly():
    views, a, _ = planted()
    with pytest.raises(DataError, match="group A is empty"):
        compare_groups(views, [])
    with pytest.raises(DataError, match="no rest"):
        compare_groups(views, np.arange(400))
    with pytest.raises(DataError, match="share 5 sample"):
        compare_groups(views, a, np.arange(95, 150))
    with pytest.raises(DataError, match=r"outside 0\.\.399"):
        compare_groups(views, [1, 400])


def test_feature_values_by_group_over_observed_samples():
    views, a, observed = planted()
    rest = np.setdiff1d(np.arange(400), a)
    va, vb = feature_values(views, 1, 3, [a, rest], observed)
    seen = observed[:, 1]
    assert va.size == int(seen[a].sum()) and vb.size == int(seen[rest].sum())
    assert va.max() < 1000 and vb.max() < 1000
    np.testing.assert_array_equal(va, views[1].toarray()[a[seen[a]], 3])
    with pytest.raises(DataError, match="no feature 31"):
        feature_values(views, 0, 30, [a])


def test_csv_lists_features_by_effect_with_names(tmp_path):
    views, a, observed = planted()
    names = [[f"g{j}" for j in range(30)], [f"c{j}" for j in range(30)]]
    tables = compare_groups(views, a, observed=observed, feature_names=names,
                            view_names=["expr", "counts"])  # fmt: skip
    path = write_compare_csv(tmp_path / "compare.csv", tables, alpha=0.05)
    rows = list(csv.DictReader(path.open()))
    assert len(rows) == 2 * (len(HIGHER) + len(LOWER))
    assert {r["name"] for r in rows if r["view"] == "expr"} == {f"g{j}" for j in HIGHER + LOWER}
    first = rows[0]
    assert int(first["feature"]) - 1 in HIGHER + LOWER  # 1-based
    assert first["direction"] in ("higher", "lower") and float(first["q"]) < 0.05
    d = [abs(float(r["effect_d"])) for r in rows if r["view"] == "expr"]
    assert d == sorted(d, reverse=True)
    everything = write_compare_csv(tmp_path / "all.csv", tables)
    assert len(everything.read_text().splitlines()) == 1 + 60
