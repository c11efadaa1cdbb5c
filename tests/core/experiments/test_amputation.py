"""Amputation: views removed from a share of the samples, each sample keeping one."""

from __future__ import annotations

import csv

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from conftest import make_blobs_views
from core.cli.main import main
from core.data.dataset import DataError
from core.experiments.amputation import amputate, amputation_mask, fill_missing
from core.experiments.missing import Amputation, run_amputation
from core.experiments.robustness import method_params


@pytest.mark.parametrize("n_views", [2, 3, 5])
def test_every_sample_keeps_a_view_and_the_share_is_exact(n_views):
    for rate in (0.1, 0.3, 0.5, 0.9):
        mask = amputation_mask(200, n_views, rate, seed=3)
        assert mask.shape == (200, n_views)
        assert mask.any(axis=1).all()
        assert np.count_nonzero(~mask.all(axis=1)) == round(rate * 200)


def test_missing_samples_are_nested_across_rates_and_seeded():
    low, high = amputation_mask(100, 3, 0.1, 7), amputation_mask(100, 3, 0.5, 7)
    assert (high[~low.all(axis=1)] == low[~low.all(axis=1)]).all()
    np.testing.assert_array_equal(low, amputation_mask(100, 3, 0.1, 7))
    assert not np.array_equal(low, amputation_mask(100, 3, 0.1, 8))
    assert amputation_mask(100, 3, 0.0, 7).all()


def test_amputate_never_modifies_its_input():
    rng = np.random.default_rng(0)
    dense = rng.normal(size=(50, 4)) + 3
    sparse = sp.random(50, 6, density=0.5, random_state=1, format="csr")
    before = [dense.copy(), sparse.toarray()]
    views, mask = amputate([dense, sparse], 0.4, seed=2)
    np.testing.assert_array_equal(dense, before[0])
    np.testing.assert_array_equal(sparse.toarray(), before[1])
    assert sp.issparse(views[1])
    assert not views[0][~mask[:, 0]].any() and not views[1][~mask[:, 1]].toarray().any()
    np.testing.assert_array_equal(views[0][mask[:, 0]], dense[mask[:, 0]])


def test_mean_fill_uses_the_observed_samples_only():
    x = np.arange(12.0).reshape(6, 2)
    mask = np.array([[1, 1], [0, 1], [1, 1], [0, 1], [1, 1], [1, 0]], dtype=bool)
    filled = fill_missing([x, x], mask, "mean")
    expected = x[mask[:, 0]].mean(axis=0)
    np.testing.assert_allclose(filled[0][1], expected)
    np.testing.assert_allclose(filled[0][3], expected)
    np.testing.assert_array_equal(filled[0][0], x[0])
    assert not fill_missing([x, x], mask, "zero")[1][5].any()


def test_bad_rates_and_single_views_are_refused():
    with pytest.raises(DataError, match=r"missing rate must be in \[0, 1\)"):
        amputation_mask(10, 2, 1.0)
    with pytest.raises(DataError, match="at least two views"):
        amputation_mask(10, 1, 0.3)
    with pytest.raises(DataError, match="fill must be one of"):
        fill_missing([np.ones((3, 2))], np.ones((3, 1), bool), "median")


def test_amputation_experiment_and_cli(tmp_path, capsys):
    """FMDC keeps its own handling, a method without it gets the fill; the CSV says which."""
    views, labels = make_blobs_views(n=90, c=3, dims=(4, 6), sep=8.0)
    plan = Amputation(method_params(["fmdc", "kmeans-concat"], 3), [0, 0.5], [0], [], ["a", "b"])
    run_amputation(plan, views, labels, n_jobs=1)
    assert all(r["status"] == "ok" for r in plan.rows)
    assert plan.summary("acc")["fmdc"][1][1] > 0.9
    plan.write_csv(tmp_path / "m.csv")
    rows = list(csv.DictReader(open(tmp_path / "m.csv")))
    assert {r["method"]: r["handling"] for r in rows} == {
        "fmdc": "incomplete",
        "kmeans-concat": "mean-filled",
    }
    cell = np.empty((1, 2), dtype=object)
    cell[0, 0], cell[0, 1] = views
    data = tmp_path / "data.mat"
    scipy.io.savemat(data, {"X": cell, "Y": (labels + 1)[:, None]})
    argv = ["robustness", str(data), "--method", "fmdc", "--seeds", "0", "--n-jobs", "1"]
    out = tmp_path / "missing.csv"
    assert main([*argv, "--missing", "0.1,0.3", "--out", str(out)]) == 0
    assert "missing views" in capsys.readouterr().out
    assert [r["level"] for r in csv.DictReader(open(out))] == ["0.1", "0.3"]
    for bad, message in ((["--missing", "1"], "in [0, 1)"), ([], "--noisy-views")):
        assert main([*argv, *bad, "--out", str(tmp_path / "bad.csv")]) == 2
        assert message in capsys.readouterr().err
    assert not (tmp_path / "bad.csv").exists()
