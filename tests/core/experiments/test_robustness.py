"""Noise robustness: add_noise properties, accuracy and view weights against noise, CLI."""

from __future__ import annotations

import csv

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from core.cli.main import main
from core.data.dataset import DataError
from core.experiments.robustness import (
    Robustness,
    add_noise,
    method_params,
    noisy_copy,
    run_robustness,
)
from tests.conftest import make_blobs_views


@pytest.fixture
def dense(rng):
    x = rng.normal(size=(400, 30))
    x[:, :10] *= 1000.0  # features on very different scales
    return x


def test_noise_hits_the_requested_fraction_and_scales_per_feature(dense):
    before = dense.copy()
    noisy = add_noise(dense, 0.5, fraction=0.8, rng=1)
    np.testing.assert_array_equal(dense, before)  # input untouched
    changed = noisy != dense
    assert changed.mean() == pytest.approx(0.8, abs=0.02)
    # noise std relative to each feature's std is alpha * sqrt(fraction), whatever the scale
    rel = (noisy - dense).std(axis=0) / dense.std(axis=0)
    assert rel[:10] == pytest.approx(np.full(10, 0.5 * np.sqrt(0.8)), rel=0.15)
    assert rel[10:] == pytest.approx(np.full(20, 0.5 * np.sqrt(0.8)), rel=0.15)
    same = add_noise(dense, 0.5, fraction=0.8, rng=1)
    np.testing.assert_array_equal(noisy, same)  # seeded


def test_level_zero_is_an_identity_copy(dense):
    out = add_noise(dense, 0.0, rng=0)
    np.testing.assert_array_equal(out, dense)
    assert out is not dense and not np.shares_memory(out, dense)


def test_absolute_and_view_scales(dense):
    absolute = add_noise(dense, 2.0, fraction=1.0, rng=0, scale="none") - dense
    assert absolute.std() == pytest.approx(2.0, rel=0.05)
    view = add_noise(dense, 1.0, fraction=1.0, rng=0, scale="view") - dense
    assert view.std() == pytest.approx(dense.std(), rel=0.05)


def test_sparse_views_stay_sparse_and_untouched(rng):
    x = sp.random(300, 200, density=0.05, format="csr", random_state=3) * 10
    before = x.copy()
    noisy = add_noise(x, 1.0, fraction=0.8, rng=0)
    assert sp.issparse(noisy) and noisy.nnz == x.nnz
    np.testing.assert_array_equal(noisy.indices, x.indices)
    assert (noisy.data != x.data).mean() == pytest.approx(0.8, abs=0.03)
    assert (x != before).nnz == 0
    assert (add_noise(x, 0.0) != x).nnz == 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"alpha": -1}, ">= 0"),
        ({"alpha": 1, "fraction": 1.5}, "[0, 1]"),
        ({"alpha": 1, "scale": "huge"}, "noise scale"),
    ],
)
def test_add_noise_rejects_bad_arguments(dense, kwargs, message):
    with pytest.raises(DataError, match=message.replace("[", r"\[").replace("]", r"\]")):
        add_noise(dense, **kwargs)


def test_same_noise_for_every_method_and_level(dense):
    a = noisy_copy([dense, dense], [1], 1.0, seed=3)
    b = noisy_copy([dense, dense], [1], 2.0, seed=3)
    assert a[0] is dense  # clean views are passed through
    np.testing.assert_allclose(b[1] - dense, 2 * (a[1] - dense))  # common random numbers


def test_accuracy_falls_as_noise_grows_on_a_single_view():
    views, labels = make_blobs_views(n=120, c=3, dims=(5,), sep=6.0)
    plan = Robustness(method_params(["kmeans-concat"], 3), [0, 1, 3], [0, 1], [0], ["only"])
    run_robustness(plan, views, labels, n_jobs=1)
    levels, acc, _ = plan.summary("acc")["kmeans-concat"]
    assert list(levels) == [0, 1, 3]
    assert acc[0] == pytest.approx(1.0) and acc[2] < acc[1] < acc[0] and acc[2] < 0.8
    agreement = plan.summary("ari_vs_clean")["kmeans-concat"][1]
    assert agreement[0] == pytest.approx(1.0) and agreement[2] < 0.7
    assert plan.weight_summary() == {"kmeans-concat": None}  # no view weights


def test_view_weight_of_the_noisy_view_drops(tmp_path):
    views, labels = make_blobs_views(n=120, c=3, dims=(5, 8), sep=6.0)
    plan = Robustness(
        method_params(["fmdc", "kmeans-concat"], 3), [0, 3], [0], [1], ["clean", "noisy"]
    )
    run_robustness(plan, views, labels, n_jobs=2)
    assert all(r["status"] == "ok" for r in plan.rows)
    weights = plan.weight_summary()
    assert weights["kmeans-concat"] is None
    assert weights["fmdc"][1, 1] < weights["fmdc"][0, 1]  # the noisy view counts less
    assert plan.summary("acc")["fmdc"][1][1] >= 0.95  # the clean view carries the clustering
    plan.write_csv(tmp_path / "r.csv")
    rows = list(csv.DictReader(open(tmp_path / "r.csv")))
    assert len(rows) == 4 and rows[0]["noisy_views"] == "noisy"
    assert rows[0]["weight:clean"] != "" and rows[-1]["weight:clean"] == ""


def test_cli_robustness(tmp_path, capsys):
    views, labels = make_blobs_views(n=90, c=3, dims=(4, 6), sep=8.0)
    cell = np.empty((1, 2), dtype=object)
    cell[0, 0], cell[0, 1] = views
    data = tmp_path / "data.mat"
    scipy.io.savemat(data, {"X": cell, "Y": (labels + 1)[:, None]})
    out = tmp_path / "robustness.csv"
    args = [
        "robustness",
        str(data),
        "--method",
        "fmdc",
        "--method",
        "kmeans-concat",
        "--noisy-views",
        "2",
        "--levels",
        "0,2",
        "--seeds",
        "0,1",
        "--n-jobs",
        "1",
    ]
    assert main([*args, "--out", str(out)]) == 0
    printed = capsys.readouterr()
    assert "[8/8]" in printed.err and "fmdc" in printed.out and "level 2" in printed.out
    rows = list(csv.DictReader(open(out)))
    assert len(rows) == 8 and {r["level"] for r in rows} == {"0", "2"}
    assert all(r["noisy_views"] == "view 2" for r in rows)
    fmdc = [r for r in rows if r["method"] == "fmdc"]
    assert all(r["weight:view 1"] and r["weight:view 2"] for r in fmdc)
    assert all(r["weight:view 1"] == "" for r in rows if r["method"] == "kmeans-concat")
    for bad, message in (
        (["--noisy-views", "0"], "numbered from 1"),
        (["--noisy-views", "7"], "not among the views"),
        (["--noisy-views", "nope"], "no view 'nope'"),
        (["--levels", "0,x"], "--levels"),
        (["--levels", "-1"], ">= 0"),
    ):
        argv = [
            "robustness",
            str(data),
            "--method",
            "fmdc",
            "--noisy-views",
            "1",
            "--out",
            str(tmp_path / "bad.csv"),
            *bad,
        ]
        assert main(argv) == 2
        assert message in capsys.readouterr().err
    assert not (tmp_path / "bad.csv").exists()
