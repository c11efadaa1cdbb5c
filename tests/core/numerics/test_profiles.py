"""Cluster profiles (issue 14, item 1): the rank test equals scipy's Mann-Whitney U on
dense and sparse views (ties, negatives, implicit zeros), BH q-values equal scipy's, and the
features that set a cluster apart come first, with their names, in the CSV of `mvc run`."""

from __future__ import annotations

import csv

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import false_discovery_control, mannwhitneyu

from core.cli.main import main as mvc
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
