"""Assigning new samples to a fitted run (issue 14, item 2): every method predicts, the
preprocessing of new samples uses the fitted statistics, and ``mvc predict`` reproduces a
fit's quality on held-out samples."""

from __future__ import annotations

import csv
import os
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from core.cli.main import main as mvc
from core.data.demo import load_demo
from core.data.preprocessing import ViewTransform, fit_view, preprocess_view
from core.methods import REGISTRY
from core.numerics.metrics import all_metrics
from tests.conftest import make_blobs_views


@pytest.mark.parametrize("kind", ["none", "l2", "zscore", "minmax", "maxscale", "tfidf", "auto"])
@pytest.mark.parametrize("sparse", [False, True])
def test_fitted_statistics_reproduce_preprocessing(kind, sparse):
    rng = np.random.default_rng(0)
    x = rng.poisson(0.7, (60, 9)).astype(float) * [1, 3, 10, 100, 1, 1, 2, 5, 1]
    x = sp.csr_matrix(x) if sparse else x
    y, name = preprocess_view(x, kind)
    fitted = fit_view(x, kind)
    assert fitted.label == name
    # stored and read back (the .predict.npz beside a run record) it is the same transform
    fitted = ViewTransform.from_arrays(fitted.to_arrays())
    assert fitted.label == name
    z = fitted.apply(x)

    def dense(a):
        return a.toarray() if sp.issparse(a) else a

    np.testing.assert_allclose(dense(z), dense(y), atol=1e-12)
    # new samples use the fitted statistics, not their own
    if kind in ("zscore", "minmax", "tfidf"):
        new = x[:5] * 3.0
        own, _ = preprocess_view(new, kind)
        assert not np.allclose(dense(fitted.apply(new)), dense(own))


@pytest.mark.parametrize("method", sorted(m for m in REGISTRY if m != "fake"))
def test_every_method_predicts_its_own_clusters(method):
    views, labels = make_blobs_views(n=240, c=3, dims=(5, 8), seed=3)
    solver = REGISTRY[method].from_params({"n_clusters": 3, "max_iter": 10})
    solver.fit([v[:200] for v in views])
    pred = solver.predict([v[200:] for v in views])
    assert pred.shape == (40,) and solver.assigner_.source
    # every reference says how far it reproduces the run's own labels (on fitted samples
    # outside it), whether or not it competed with another: here, well-separated blobs
    share = re.search(r"reproduces (\d+\.\d)% of the run's labels", solver.assigner_.source)
    assert share and float(share.group(1)) >= 95.0
    # well separated blobs: the new samples join the clusters of their classes
    fitted = all_metrics(labels[:200], solver.labels_)["acc"]
    assert all_metrics(labels[200:], pred)["acc"] >= fitted - 0.05


def _handwritten():
    root = os.environ.get("MVC_DATASETS")
    if root and (Path(root) / "Handwritten.mat").exists():
        from core.data.io import load_dataset

        return load_dataset(str(Path(root) / "Handwritten.mat"))
    return load_demo("handwritten")  # the UCI handwritten digits too


def test_predict_held_out_handwritten(tmp_path, record_property, capsys):
    """Fit FMDC (defaults) on 80 %, assign the other 20 % with `mvc predict`."""
    ds = _handwritten()
    rng = np.random.default_rng(0)
    order = rng.permutation(ds.n_samples)
    cut = int(0.8 * ds.n_samples)
    files = {}
    for part, rows in (("fit", order[:cut]), ("new", order[cut:]), ("all", order)):
        files[part] = tmp_path / f"{part}.npz"
        arrays = {f"X{i}": v[rows] for i, v in enumerate(ds.views)}
        np.savez(files[part], **arrays, y=ds.labels[rows])

    def labels_of(path):
        return np.array([int(r["cluster"]) for r in csv.DictReader(open(path))])

    run = tmp_path / "run.json"
    base = ["--method", "fmdc", "--quiet"]
    assert mvc(["run", str(files["fit"]), *base, "--report", str(run), "--out",
                str(tmp_path / "fit.csv")]) == 0  # fmt: skip
    assert (tmp_path / "run.predict.npz").exists()
    assert mvc(["predict", "--run", str(run), str(files["new"]), "--out",
                str(tmp_path / "new.csv")]) == 0  # fmt: skip
    said = capsys.readouterr().out  # what the assignment rests on, and how far to trust it
    assert re.search(r"reference points: .*\(reproduces \d+\.\d% of the run's labels\)", said)
    assert mvc(["run", str(files["all"]), *base, "--out", str(tmp_path / "all.csv")]) == 0
    fit, new, full = (labels_of(tmp_path / f"{p}.csv") for p in ("fit", "new", "all"))
    truth = ds.labels[order]
    acc_fit = all_metrics(truth[:cut], fit)["acc"]
    acc_new = all_metrics(truth[cut:], new)["acc"]
    agree = all_metrics(full[cut:], new)["ari"]  # against a fit on all the data
    record_property("acc_fit_acc_predicted_ari_vs_full", (acc_fit, acc_new, agree))
    assert abs(acc_new - acc_fit) <= 0.03
    assert agree >= 0.8


def test_predict_refuses_mismatched_file(tmp_path, capsys):
    views, labels = make_blobs_views(n=120, c=3, dims=(4, 6))
    np.savez(tmp_path / "a.npz", X0=views[0], X1=views[1], y=labels)
    np.savez(tmp_path / "b.npz", X0=views[0], X1=views[1][:, :5], y=labels)
    run = tmp_path / "r.json"
    assert mvc(["run", str(tmp_path / "a.npz"), "--method", "fmdc", "--n-clusters", "3",
                "--quiet", "--report", str(run)]) == 0  # fmt: skip
    out = str(tmp_path / "x.csv")
    assert mvc(["predict", "--run", str(run), str(tmp_path / "b.npz"), "--out", out]) == 2
    assert "view 2" in capsys.readouterr().err and not Path(out).exists()
    (tmp_path / "r.predict.npz").unlink()
    assert mvc(["predict", "--run", str(run), str(tmp_path / "a.npz"), "--out", out]) == 2
    assert "r.predict.npz not found" in capsys.readouterr().err
