"""Cluster profiles (issue 14, item 1): the rank test equals scipy's Mann-Whitney U on
dense and sparse views (ties, negatives, implicit zeros), BH q-values equal scipy's, and the
features that set a cluster apart come first, with their names, in the CSV of `mvc run`.
Features crossing: ranked by |d| (much lower features too), statistics over the samples that
have the view only, row-block views give the in-memory numbers (a seeded subsample for the
ranks above ``STREAM_RANK_ROWS``)."""

from __future__ import annotations

import csv

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import false_discovery_control, mannwhitneyu

from core.cli.main import main as mvc
from core.data.blocks import ArraySource
from core.numerics import profiles
from core.numerics.profiles import bh_qvalues, profile_view


@pytest.mark.parametrize("sparse", [False, True])
def test_rank_test_equals_scipy(sparse):
    rng = np.random.default_rng(0)
    n = 240
    labels = rng.integers(0, 3, n)
    x = rng.poisson(0.6, (n, 7)).astype(float)
    x[:, 1] -= 0.8  # negatives around the implicit zeros
    x[labels == 2, 4] += 3.0
    prof = profile_view(sp.csr_matrix(x) if sparse else x, labels)
    for k in range(3):
        for j in range(7):
            ref = mannwhitneyu(x[labels == k, j], x[labels != k, j], method="asymptotic",
                               use_continuity=False)  # fmt: skip
            assert prof.p[k, j] == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)
            n_k = (labels == k).sum()
            assert prof.auc[k, j] == pytest.approx(ref.statistic / (n_k * (n - n_k)))
    np.testing.assert_allclose(prof.q, false_discovery_control(prof.p, axis=-1), rtol=1e-12)
    assert prof.top(2, 1).tolist() == [4] and prof.effect[2, 4] > 1.5


def test_bh_qvalues_monotone_and_capped():
    q = bh_qvalues(np.array([0.01, 0.04, 0.03, 0.5, 1.0]))
    np.testing.assert_allclose(q, [0.05, 0.2 / 3, 0.2 / 3, 0.625, 1.0])


def test_mvc_run_writes_profiles_with_feature_names(tmp_path):
    rng = np.random.default_rng(1)
    n = 150
    labels = np.repeat(np.arange(3), n // 3)
    x = rng.standard_normal((n, 4))
    x[labels == 1, 2] += 4.0  # feature c sets cluster 1 apart
    path = tmp_path / "t.csv"
    header = ["v:a", "v:b", "v:c", "v:d", "w:e", "w:f", "label"]
    w = rng.standard_normal((n, 2)) + labels[:, None] * 3
    np.savetxt(path, np.column_stack([x, w, labels]), delimiter=",", header=",".join(header),
               comments="")  # fmt: skip
    out = tmp_path / "profiles.csv"
    html = tmp_path / "r.html"
    assert mvc(["run", str(path), "--method", "kmeans-concat", "--quiet",
                "--profile", str(out), "--html", str(html)]) == 0  # fmt: skip
    page = html.read_text()
    assert "What sets each cluster apart" in page and "<td>c</td>" in page
    rows = list(csv.DictReader(open(out)))
    assert rows and set(rows[0]) >= {"view", "cluster", "name", "effect_d", "auc", "q"}
    firsts = {(r["view"], r["name"]) for r in rows if r["rank"] == "1"}
    assert all(float(r["q"]) < 0.05 for r in rows)
    assert any(name in ("c", "v:c") for _, name in firsts), firsts


# -- features crossing: both directions, samples missing a view, row-block views ----------------
def _planted(n: int = 300, seed: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Cluster 0 of 3: feature 0 much higher, feature 1 much lower, features 2..13 a little
    higher (significant too), the rest noise."""
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(3), n // 3)
    x = rng.standard_normal((n, 20))
    x[labels == 0, 0] += 4.0
    x[labels == 0, 1] -= 4.0
    x[labels == 0, 2:14] += 1.0
    return x, labels


def test_top_ranks_by_magnitude_in_both_directions():
    x, labels = _planted()
    prof = profile_view(x, labels)
    top = prof.top(0, 10).tolist()
    assert top[:2] in ([0, 1], [1, 0]), top  # the much lower feature is not cut
    assert prof.effect[0, 1] < -2 and prof.effect[0, 0] > 2
    e = np.abs(prof.effect[0, top])
    assert np.all(np.diff(e) <= 0) and np.all(prof.q[0, top] < 0.05)


def test_samples_missing_the_view_are_not_counted():
    rng = np.random.default_rng(4)
    n = 120
    labels = np.repeat(np.arange(3), n // 3)
    x = 0.06 + 0.005 * rng.standard_normal((n, 5))
    x[labels == 1, 2] += 0.02
    seen = np.ones(n, bool)
    seen[[50, 97]] = False  # two samples without the view: stored as zero rows
    x[~seen] = 0.0
    prof = profile_view(x, labels, observed=seen)
    assert prof.n_in.tolist() == [40, 39, 39] and prof.n_out.tolist() == [78, 79, 79]
    for k in range(3):
        inside, outside = seen & (labels == k), seen & (labels != k)
        np.testing.assert_allclose(prof.mean_in[k], x[inside].mean(axis=0), rtol=1e-12)
        np.testing.assert_allclose(prof.mean_out[k], x[outside].mean(axis=0), rtol=1e-12)
        for j in range(5):
            ref = mannwhitneyu(x[inside, j], x[outside, j], method="asymptotic",
                               use_continuity=False)  # fmt: skip
            assert prof.p[k, j] == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)
    # counted as zeros they would pull mean_out down (0.0571 instead of 0.0586)
    assert prof.mean_out[0, 0] == pytest.approx(x[seen & (labels != 0), 0].mean(), rel=1e-12)
    assert prof.mean_out[0, 0] > x[labels != 0, 0].mean() + 1e-3
    assert prof.top(1, 3).tolist()[0] == 2
    sparse = profile_view(sp.csr_matrix(x), labels, observed=seen)
    np.testing.assert_allclose(sparse.mean_out, prof.mean_out, rtol=1e-12)
    np.testing.assert_array_equal(sparse.p, prof.p)


def test_cluster_without_the_view_gets_no_features():
    x, labels = _planted(90)
    seen = labels != 2  # nobody of cluster 2 has the view
    x[~seen] = 0.0
    prof = profile_view(x, labels, observed=seen)
    assert prof.n_in[2] == 0 and prof.top(2).size == 0 and np.isnan(prof.mean_in[2]).all()
    assert prof.top(0, 2).tolist() in ([0, 1], [1, 0])


class _SparseArraySource(ArraySource):
    sparse = True  # like a CSR source: blocks come dense, ranks as CSR


FIELDS = ("mean_in", "mean_out", "effect", "auc", "p", "q", "standardized_means")


@pytest.mark.parametrize("kind", ["dense", "float32", "sparse"])
@pytest.mark.parametrize("missing", [False, True])
def test_row_block_view_equals_in_memory(kind, missing, monkeypatch):
    x, labels = _planted()
    if kind == "sparse":
        x = np.where(x > 1.0, np.round(x), 0.0)
    if kind == "float32":
        x = x.astype(np.float32)
    seen = None
    if missing:
        seen = np.random.default_rng(7).random(labels.size) > 0.15
        x[~seen] = 0
    memory = profile_view(sp.csr_matrix(x) if kind == "sparse" else x, labels, observed=seen)
    src = (_SparseArraySource if kind == "sparse" else ArraySource)(x, block_rows=37)
    monkeypatch.setattr(profiles, "RANK_PASS_ENTRIES", 1000, raising=False)  # several rank passes
    streamed = profile_view(src, labels, observed=seen)
    for f in FIELDS:  # the same summation order: the same numbers
        np.testing.assert_array_equal(getattr(streamed, f), getattr(memory, f), err_msg=f)
    assert streamed.rank_samples == int(memory.n_in.sum()) and not streamed.subsampled


def test_large_row_block_view_ranks_a_seeded_subsample():
    x, labels = _planted(600)
    prof = profile_view(ArraySource(x, block_rows=64), labels, rank_rows=200)
    again = profile_view(ArraySource(x, block_rows=100), labels, rank_rows=200)
    memory = profile_view(x, labels)
    assert prof.subsampled and prof.rank_samples == 200 and prof.n_in.sum() == 600
    np.testing.assert_array_equal(prof.p, again.p)  # the same rows whatever the blocks
    np.testing.assert_array_equal(prof.mean_out, memory.mean_out)  # means over every row
    assert not np.array_equal(prof.p, memory.p)
    assert prof.top(0, 2).tolist() in ([0, 1], [1, 0])


def test_stored_zeros_of_a_sparse_view_tie_with_the_implicit_ones():
    x, labels = _planted(90)
    x = np.where(x > 0.5, 1.0, 0.0)
    explicit = sp.csr_matrix(x)
    explicit.data[::3] = 0.0  # stored entries holding 0 (as some files keep them)
    dense = explicit.toarray()
    np.testing.assert_array_equal(profile_view(explicit, labels).p, profile_view(dense, labels).p)


@pytest.mark.parametrize("kind", ["dense", "sparse", "source"])
def test_profile_steps_give_the_effect_sizes_first_then_the_same_profile(kind):
    x, labels = _planted()
    seen = np.random.default_rng(3).random(labels.size) > 0.1
    view = {"dense": x, "sparse": sp.csr_matrix(np.round(np.abs(x))),
            "source": ArraySource(x, block_rows=50)}[kind]  # fmt: skip
    steps = profiles.profile_steps(view, labels, observed=seen)
    partials, fractions = [], []
    while True:
        try:
            frac, partial = next(steps)
        except StopIteration as stop:
            full = stop.value
            break
        fractions.append(frac)
        if partial is not None:
            partials.append(partial)
    assert len(partials) == 1 and fractions == sorted(fractions)
    first = partials[0]
    assert np.isnan(first.auc).all() and np.isnan(first.q).all() and first.rank_samples is None
    np.testing.assert_array_equal(first.effect, full.effect)
    np.testing.assert_array_equal(first.mean_in, full.mean_in)
    for f in FIELDS:
        np.testing.assert_array_equal(
            getattr(full, f), getattr(profile_view(view, labels, observed=seen), f)
        )
