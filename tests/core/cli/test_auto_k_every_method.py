"""An estimated number of clusters is a property of the data, not of the method: every route
(mvc run, mvc sweep, mvc tune, the solver itself) estimates it on the views as the ``general``
rule prepares them, the views the estimator was judged on held out (docs/tuning.md)."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
import scipy.io

from core.cli.main import main
from core.data.prepare import estimate_views
from core.data.preprocessing import preprocess
from core.experiments.sweep import Sweep, run_sweep
from core.methods import REGISTRY
from core.numerics.n_clusters import estimate_n_clusters
from tests.conftest import make_blobs_views

METHODS = sorted(m for m in REGISTRY if m != "fake")


def word_counts(seed: int = 3, c: int = 5, n_per: int = 40) -> list[np.ndarray]:
    """Two bag-of-words views (density < 0.1) of c topics: the rules of the methods read them
    differently (tf-idf, raw counts, l2); on this draw ALPC's raw counts give another estimate."""
    g = np.random.default_rng(seed)
    y = np.repeat(np.arange(c), n_per)
    views = []
    for d in (400, 300):
        topics = g.dirichlet(np.full(d, 0.05), size=c)
        common = g.dirichlet(np.full(d, 1.0))
        views.append(np.stack([g.multinomial(30, 0.6 * common + 0.4 * topics[t]) for t in y]))
    return [v.astype(float) for v in views]


@pytest.fixture(scope="module")
def counts_mat(tmp_path_factory):
    views = word_counts()
    x = np.empty((1, 2), dtype=object)
    x[0, 0], x[0, 1] = views
    path = tmp_path_factory.mktemp("counts") / "counts.mat"
    scipy.io.savemat(path, {"X": x})
    return path, views


def general_estimate(views: list[np.ndarray]) -> list[int]:
    return estimate_n_clusters(preprocess(views, "auto", "general")[0], 0).ranked


def test_the_views_differ_between_methods_and_the_estimate_would_follow(counts_mat):
    _, views = counts_mat
    own = {m: REGISTRY[m].auto_preprocessing for m in METHODS}
    assert {m for m, r in own.items() if estimate_views(views, "auto", r) is not None}
    # read on ALPC's raw counts the estimate differs: what a method's own views would give
    raw = estimate_n_clusters(preprocess(views, "auto", own["alpc"])[0], 0).ranked
    assert raw[0] != general_estimate(views)[0]


@pytest.mark.parametrize("method", METHODS)
def test_mvc_run_estimates_the_same_k_for_every_method(counts_mat, tmp_path, method):
    path, views = counts_mat
    report = tmp_path / "run.json"
    assert main(["run", str(path), "--method", method, "--quiet", "--report", str(report)]) == 0
    estimate = json.loads(report.read_text())["n_clusters_estimate"]
    assert estimate["ranked"] == general_estimate(views)


def test_a_sweep_estimates_k_on_the_views_it_is_given_for_it():
    views, _ = make_blobs_views(n=160, c=4, dims=(5, 8), sep=10.0)
    two, _ = make_blobs_views(n=160, c=2, dims=(5, 8), sep=10.0)
    sweep = Sweep("fmdc", [], [0], {"n_clusters": "auto"})
    run_sweep(sweep, two, n_jobs=1, k_views=lambda: views)
    k = estimate_n_clusters(views, 0).k
    assert k != estimate_n_clusters(two, 0).k
    assert np.unique(sweep._labels[0]).size == k


@pytest.mark.parametrize("command", ["sweep", "tune"])
def test_mvc_sweep_and_tune_estimate_on_the_views_mvc_run_does(
    counts_mat, tmp_path, monkeypatch, command
):
    import core.numerics.n_clusters as n_clusters

    path, views = counts_mat
    seen = []
    real = n_clusters.estimate_n_clusters
    monkeypatch.setattr(
        n_clusters, "estimate_n_clusters", lambda v, *a, **kw: seen.append(v) or real(v, *a, **kw)
    )
    argv = [command, str(path), "--method", "alpc", "--n-jobs", "1", "--quiet"]
    if command == "sweep":
        argv += ["--grid", "lambda2=1", "--seeds", "0", "--out", str(tmp_path / "s.csv")]
    else:
        argv += ["--seeds", "0,1", "--out", str(tmp_path / "best.json")]
    assert main(argv) == 0
    general = preprocess(views, "auto", "general")[0]
    assert seen  # every cell estimated k, on the general views
    for estimated in seen:
        assert all(np.allclose(a, b) for a, b in zip(estimated, general, strict=True))
    if command == "sweep":  # and the table says which k each cell used
        with open(tmp_path / "s.csv", newline="") as fh:
            rows = list(csv.DictReader(fh))
        assert [r["k_estimated"] for r in rows] == [str(general_estimate(views)[0])]
