"""The clusters against metadata columns and survival (core/analysis/association.py)."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from scipy.stats import chi2_contingency, kruskal

from core.analysis.association import (
    associate,
    associate_steps,
    contingency,
    survival,
    values_by_cluster,
    write_association_csv,
    write_survival_csv,
)
from core.data.dataset import DataError
from core.numerics.kmeans import kmeans_labels
from tests.nutrimouse_tables import DIETS, GENOTYPES, nutrimouse


def _clusters(n: int = 300, seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng, rng.integers(0, 3, n)


def test_asymptotic_tests_equal_scipy_and_missing_values_are_dropped_per_column():
    rng, labels = _clusters()
    score = rng.normal(size=labels.size) + 0.4 * labels
    score[[3, 9]] = np.nan
    tissue = np.array(["liver", "gut", "skin"], dtype=object)[
        (labels + rng.integers(0, 2, 300)) % 3
    ]
    tissue[[4, 5, 6]] = ""
    rows = {a.column: a for a in associate(labels, {"score": score, "tissue": tissue})}
    s, t = rows["score"], rows["tissue"]
    assert (s.kind, s.test, s.effect_name, s.p_method) == (
        "numeric", "Kruskal-Wallis", "epsilon²", "asymptotic")  # fmt: skip
    keep = ~np.isnan(score)
    ref = kruskal(*[score[keep & (labels == k)] for k in range(3)])
    assert s.n == 298 and s.statistic == pytest.approx(ref.statistic)
    assert s.p == pytest.approx(ref.pvalue) and s.effect == pytest.approx(ref.statistic / 297)
    clusters, categories, counts = contingency(labels, tissue)
    assert clusters.tolist() == [0, 1, 2] and categories == ["gut", "liver", "skin"]
    assert counts.sum() == t.n == 297
    stat, p = chi2_contingency(counts, correction=False)[:2]
    assert (t.kind, t.test, t.p_method) == ("categorical", "chi-square", "asymptotic")
    assert t.statistic == pytest.approx(stat) and t.p == pytest.approx(p)
    assert t.effect == pytest.approx(np.sqrt(stat / (297 * 2)))


def test_small_counts_get_a_seeded_permutation_p_value():
    rng = np.random.default_rng(2)
    labels = np.repeat([0, 1, 2], 8)  # 24 samples: expected counts below 5
    planted = np.where(labels == 0, "yes", "no")
    planted[[1, 20]] = ["no", "yes"]
    noise = rng.choice(["yes", "no"], labels.size)
    dose = rng.normal(size=labels.size) + 3.0 * (labels == 2)  # 8 per cluster: fine
    dose_small = dose[:12]  # clusters of 8 and 4 values: a permutation p-value
    first = associate(labels, {"planted": planted, "noise": noise}, seed=5)
    again = associate(labels, {"planted": planted, "noise": noise}, seed=5)
    assert first == again  # the same seed, the same p-values
    rows = {a.column: a for a in first}
    assert rows["planted"].p_method == rows["noise"].p_method == "permutation"
    assert rows["planted"].p < 0.01 < 0.05 < rows["noise"].p
    assert [a.column for a in first] == ["planted", "noise"]  # strongest first
    small = associate(labels[:12], {"dose": dose_small})[0]
    assert small.p_method == "permutation" and 0 < small.p <= 1
    big = associate(labels, {"dose": dose})[0]
    assert big.p_method == "asymptotic" and big.p < 1e-3


def test_columns_that_cannot_be_tested_say_why():
    _, labels = _clusters(60)
    ids = np.array([f"s{i}" for i in range(60)])
    rows = {a.column: a for a in associate(labels, {"id": ids, "one": np.full(60, "x")})}
    assert rows["id"].p_method == "none" and "names samples" in rows["id"].note
    assert rows["one"].p_method == "none" and "one value" in rows["one"].note
    assert np.isnan(rows["one"].p)


def test_values_by_cluster_for_the_box_plot():
    labels = np.array([0, 0, 1, 1, -1])
    got = values_by_cluster(labels, np.array([1.0, np.nan, 3.0, 4.0, 5.0]))
    assert list(got) == [0, 1] and got[0].tolist() == [1.0] and got[1].tolist() == [3.0, 4.0]


def test_nutrimouse_clusters_relate_to_diet_and_genotype_not_to_a_random_column():
    data = nutrimouse(n_per=4)
    views = [data["genes"], data["lipids"]]
    z = np.hstack([(v - v.mean(0)) / v.std(0) / np.sqrt(v.shape[1]) for v in views])
    labels = kmeans_labels(z, 10, np.random.default_rng(0), normalize=False)
    rng = np.random.default_rng(7)
    columns = {
        "genotype": np.array(GENOTYPES)[data["genotype"]],
        "diet": np.array(DIETS)[data["diet"]],
        "random": rng.choice(["a", "b", "c"], labels.size),
        "random_number": rng.normal(size=labels.size),
    }
    steps = associate_steps(labels, columns)
    seen = []
    while True:
        try:
            seen.append(next(steps).message)
        except StopIteration as stop:
            table = stop.value
            break
    assert seen[0] == "testing genotype" and seen[-1] == "done"
    order = [a.column for a in table]
    assert set(order[:2]) == {"genotype", "diet"}, order
    rows = {a.column: a for a in table}
    assert rows["diet"].p < 0.01 and rows["genotype"].p < 0.01
    assert rows["random"].p > 0.05 and rows["random_number"].p > 0.05
    assert rows["diet"].effect > rows["random"].effect


def _survival_data(planted: bool, seed: int = 0):
    rng = np.random.default_rng(seed)
    labels = np.repeat([0, 1, 2], 60)
    scale = np.array([10.0, 10.0, 3.0])[labels]  # cluster 2 dies three times sooner
    time = rng.exponential(scale)
    censor = rng.exponential(15.0, labels.size)
    event = (time <= censor).astype(int)
    time = np.minimum(time, censor)
    if not planted:
        labels = rng.permutation(labels)
    return labels, time, event


def test_a_planted_survival_difference_is_found_and_a_shuffled_one_is_not(tmp_path):
    res = survival(*_survival_data(True))
    assert res.p < 0.01 and res.n == 180 and sorted(res.curves) == [0, 1, 2]
    t, s = res.curves[2]
    assert t[0] == 0 and s[0] == 1.0 and np.all(np.diff(s) <= 0)
    assert res.curves[2][1][-1] < res.curves[0][1][-1]
    shuffled = survival(*_survival_data(False))
    assert shuffled.p > 0.05
    path = write_survival_csv(tmp_path / "survival.csv", res)
    rows = list(csv.DictReader(path.open()))
    assert {r["cluster"] for r in rows} == {"0", "1", "2"}
    assert float(rows[0]["logrank_p"]) == pytest.approx(res.p, rel=1e-5)


def test_survival_refuses_bad_event_and_time_columns():
    labels, time, event = _survival_data(True)
    with pytest.raises(DataError, match="events must be 0"):
        survival(labels, time, np.where(event == 1, 2, 0))
    with pytest.raises(DataError, match="'dead'"):
        survival(labels, time, np.where(event == 1, "dead", "0"))
    with pytest.raises(DataError, match="negative"):
        survival(labels, -time, event)
    text = np.where(event == 1, "1", "0").astype(object)
    text[0] = ""  # no value: dropped
    assert survival(labels, time, text).n == 179


def test_association_csv(tmp_path):
    _, labels = _clusters(90)
    rows = associate(labels, {"x": np.arange(90.0), "id": np.arange(90).astype(str)})
    path = write_association_csv(tmp_path / "association.csv", rows)
    got = list(csv.DictReader(path.open()))
    assert [r["column"] for r in got] == ["x", "id"]
    assert got[1]["p"] == "" and got[1]["p_method"] == "none"
    assert got[0]["effect_name"] == "epsilon²"


def test_drawn_tables_give_the_p_value_of_permuting_the_labels():
    """The chi-square permutation p-value draws tables with the margins fixed (hypergeometric
    cells) instead of permuting the labels: the same distribution, checked against explicit
    permutations of a small table."""
    from core.analysis import association as assoc

    rng = np.random.default_rng(4)
    labels = np.repeat([0, 1, 2], [9, 7, 6])
    values = np.array(["x", "y", "z"])[np.r_[np.zeros(6, int), rng.integers(0, 3, 16)]]
    row = associate(labels, {"v": values})[0]
    assert row.p_method == "permutation"
    _, _, counts = contingency(labels, values)
    stat = row.statistic
    codes = np.unique(values, return_inverse=True)[1]
    hits = 0
    for _ in range(20000):
        perm = rng.permutation(labels)
        table = np.zeros_like(counts)
        np.add.at(table, (perm, codes), 1)
        hits += assoc._chi2(table.astype(float)) >= stat * (1 - 1e-12)
    brute = hits / 20000
    assert abs(row.p - brute) < 0.02, (row.p, brute)
    drawn = assoc._random_tables(counts.sum(1), counts.sum(0), rng, 500)
    assert (drawn.sum(axis=2) == counts.sum(1)).all() and (drawn.sum(axis=1) == counts.sum(0)).all()


def test_kruskal_permutation_p_value_matches_permuting_the_labels():
    from scipy.stats import kruskal as scipy_kruskal

    rng = np.random.default_rng(8)
    labels = np.repeat([0, 1, 2], [10, 4, 3])  # clusters under 5 values: permutations
    values = rng.normal(size=labels.size) + 0.8 * (labels == 2)
    row = associate(labels, {"v": values})[0]
    assert row.p_method == "permutation"
    stat = scipy_kruskal(*[values[labels == k] for k in range(3)]).statistic
    assert row.statistic == pytest.approx(stat)
    hits = 0
    for _ in range(3000):
        perm = rng.permutation(labels)
        h = scipy_kruskal(*[values[perm == k] for k in range(3)]).statistic
        hits += h >= stat * (1 - 1e-12)
    assert abs(row.p - hits / 3000) < 0.03, (row.p, hits / 3000)
