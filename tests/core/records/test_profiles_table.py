"""The cluster profile table (``mvc run --profile``, the HTML report, Tools > Cluster
profiles): features much lower in a cluster are listed beside the much higher ones, with a
``direction`` column; each view's statistics are over the samples that have it
(``MultiViewDataset.observed``); views read in row blocks give the in-memory table."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from core.data.blocks import ArraySource
from core.data.dataset import MultiViewDataset
from core.numerics import profiles
from core.records.profiles_table import (
    COLUMNS,
    cluster_profiles,
    profile_rows,
    profiles_csv_text,
    profiles_html,
)


def _data(n: int = 300, seed: int = 3) -> tuple[list[np.ndarray], np.ndarray]:
    """Two views, 3 clusters. View "a": in cluster 0 feature 0 much higher, feature 1 much
    lower, features 2..13 a little higher (12 significant higher features before the lower
    one when ranked by signed effect); view "b": cluster 1 higher in feature 0."""
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(3), n // 3)
    a = rng.standard_normal((n, 20))
    a[labels == 0, 0] += 4.0
    a[labels == 0, 1] -= 4.0
    a[labels == 0, 2:14] += 1.0
    b = 0.06 + 0.005 * rng.standard_normal((n, 6))
    b[labels == 1, 0] += 0.02
    return [a, b], labels


def _csv(rows) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(profiles_csv_text(rows))))


def test_much_lower_features_are_listed_with_their_direction():
    views, labels = _data()
    rows = _csv(cluster_profiles(views, labels, ["a", "b"], top=10)[0])
    assert set(COLUMNS) == set(rows[0]) and "direction" in rows[0]
    first = [(r["name"], r["direction"]) for r in rows if r["view"] == "a" and r["cluster"] == "0"]
    assert len(first) == 10
    assert set(first[:2]) == {("f1", "higher"), ("f2", "lower")}, first
    assert all(d == "higher" for _, d in first[2:])
    d = [abs(float(r["effect_d"])) for r in rows if r["view"] == "a" and r["cluster"] == "0"]
    assert d == sorted(d, reverse=True) and all(float(r["q"]) < 0.05 for r in rows)
    assert all((float(r["effect_d"]) > 0) == (r["direction"] == "higher") for r in rows)
    html = profiles_html(cluster_profiles(views, labels, ["a", "b"])[0])
    assert "<td>lower</td>" in html and "largest |Cohen's d| first" in html


def _incomplete() -> MultiViewDataset:
    views, labels = _data()
    seen = np.ones((labels.size, 2), bool)
    seen[[40, 41, 150], 1] = False  # three samples without view "b": stored as zero rows
    seen[labels == 2, 0] = False  # nobody of cluster 2 has view "a"
    views = [v.copy() for v in views]
    for v in range(2):
        views[v][~seen[:, v]] = 0.0
    return MultiViewDataset(views, labels=labels, view_names=["a", "b"], observed=seen)


def test_profile_rows_count_only_the_samples_that_have_the_view():
    ds = _incomplete()
    labels = ds.labels
    rows = profile_rows(ds, labels)
    b = [r for r in rows if r.view == "b"]
    seen = ds.observed[:, 1]
    for r in b:
        x = ds.views[1][:, r.feature]
        assert r.mean_out == pytest.approx(x[seen & (labels != r.cluster)].mean(), rel=1e-12)
        assert r.mean_in == pytest.approx(x[seen & (labels == r.cluster)].mean(), rel=1e-12)
    assert b and all(r.n_in + r.n_out == labels.size - 3 for r in b)
    top = next(r for r in b if r.cluster == 1 and r.rank == 1)
    assert top.feature == 0 and top.direction == "higher"
    # counting the two zero rows outside cluster 1 would pull its mean_out down by ~0.0006
    assert top.mean_out > ds.views[1][labels != 1, 0].mean() + 4e-4
    # view "a": cluster 2 has no sample with it, so no rows for it (and no crash)
    a = [r for r in rows if r.view == "a"]
    assert a and {r.cluster for r in a} <= {0, 1} and all(r.n_in + r.n_out == 200 for r in a)
    same = cluster_profiles(ds.views, labels, ds.view_names, observed=ds.observed)[0]
    assert [(r.view, r.cluster, r.feature, r.mean_out) for r in same] == [
        (r.view, r.cluster, r.feature, r.mean_out) for r in rows
    ]


@pytest.mark.parametrize("incomplete", [False, True])
def test_row_block_views_give_the_in_memory_table(incomplete, monkeypatch):
    ds = _incomplete() if incomplete else MultiViewDataset(_data()[0], labels=_data()[1],
                                                           view_names=["a", "b"])  # fmt: skip
    streamed = MultiViewDataset(
        [ArraySource(v, label=name, block_rows=29) for v, name in zip(ds.views, "ab", strict=True)],
        labels=ds.labels,
        view_names=ds.view_names,
        observed=ds.observed,
    )
    monkeypatch.setattr(profiles, "RANK_PASS_ENTRIES", 2000, raising=False)  # several rank passes
    memory_rows = profile_rows(ds, ds.labels)
    streamed_rows = profile_rows(streamed, ds.labels)
    assert memory_rows and profiles_csv_text(streamed_rows) == profiles_csv_text(memory_rows)
    assert "subsample" not in profiles_html(streamed_rows)


def test_row_block_view_above_the_rank_rows_says_it_used_a_subsample(monkeypatch):
    views, labels = _data()
    monkeypatch.setattr(profiles, "STREAM_RANK_ROWS", 120, raising=False)
    rows = cluster_profiles([ArraySource(v) for v in views], labels, ["a", "b"])[0]
    memory = cluster_profiles(views, labels, ["a", "b"])[0]
    assert rows and all(r.rank_samples == 120 and r.n_in + r.n_out == 300 for r in rows)
    assert all(r.rank_samples == 300 for r in memory)
    assert {"f1", "f2"} <= {r.name for r in rows if r.view == "a" and r.cluster == 0}
    assert _csv(rows)[0]["rank_samples"] == "120"
    note = profiles_html(rows)
    assert "random row subsample (a: 120 of 300 samples; b: 120 of 300 samples)" in note
