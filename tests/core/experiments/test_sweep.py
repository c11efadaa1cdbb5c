"""Parameter sweeps: grid parsing, real small sweeps through joblib, failures, cancel, CLI."""

from __future__ import annotations

import csv
import hashlib
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import scipy.io

from core.cli.main import main
from core.experiments.parallel import CancelFlag
from core.experiments.sweep import Sweep, default_values, parse_grid, parse_seeds, run_sweep
from core.methods.base import COMMON_PARAMS, REGISTRY, BaseSolver, FitResult
from core.methods.params import Param, ParamError, ParamSpec
from tests.conftest import make_blobs_views


def started_marker(x: np.ndarray) -> Path:
    """A file named after the data, which a cell's solver creates when it starts running."""
    digest = hashlib.sha1(np.ascontiguousarray(x, dtype=float).tobytes()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"mvc-slow-test-started-{digest}"


class SlowSolver(BaseSolver):
    """Sleeps between iterations: a cell that runs long enough to be cancelled."""

    name = "slow-test"
    param_spec = COMMON_PARAMS + ParamSpec(
        Param("delay", "float", 0.05, "Seconds per iteration.", low=0.0, high=10.0)
    )

    def __init__(self, n_clusters=2, *, max_iter=100, tol=1e-6, random_state=0, delay=0.05):
        self.n_clusters, self.max_iter, self.tol = n_clusters, max_iter, tol
        self.random_state, self.delay = random_state, delay

    def _run(self, views, rep):
        started_marker(views[0]).touch()  # seen by the test in any worker process
        for it in range(1, self.max_iter + 1):
            time.sleep(self.delay)
            yield rep.iteration(it, 1.0 / it)
        labels = np.arange(views[0].shape[0]) % self.n_clusters
        return FitResult(labels, [1.0], self.max_iter, False)


@pytest.fixture
def slow_solver():
    REGISTRY[SlowSolver.name] = SlowSolver
    yield SlowSolver
    REGISTRY.pop(SlowSolver.name, None)


@pytest.fixture
def blobs():
    return make_blobs_views(n=90, c=3, dims=(4, 6), sep=8.0)


# -- parsing -----------------------------------------------------------------------------------
def test_parse_grid_values_ranges_and_choices():
    assert parse_grid("n-anchors=16,32,16", "fmdc").values == (16, 32)
    assert parse_grid("n_anchors=auto,8", "fmdc").values == (None, 8)
    assert parse_grid("lambda1=1e-2:1e2:5", "alpc").values == pytest.approx((0.01, 0.1, 1, 10, 100))
    assert parse_grid("n_neighbors=4:8:3", "fmdc").values == (4, 6, 8)
    assert parse_grid("init=random,anchor_spectral", "fmdc").values == ("random", "anchor_spectral")
    assert parse_seeds("0-2,5") == [0, 1, 2, 5]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("lam=1,2", ["unknown parameter 'lam'", "fmdc parameters:", "n_anchors", "n_neighbors"]),
        ("n_anchors=1,16", ["'n_anchors'", "[2, 65536]", "Got 1", "fmdc parameters:"]),
        ("n_neighbors=ten", ["n_neighbors", "'ten'", "[1, 200]", "fmdc parameters:"]),
        ("init=greedy", ["'init'", "'anchor_spectral', 'random'"]),
        ("n_anchors", ["name=v1,v2", "fmdc parameters:"]),
        ("n_anchors=", ["no values"]),
        ("random_state=1,2", ["--seeds"]),
    ],
)
def test_parse_grid_errors_name_the_parameter_and_range(text, expected):
    with pytest.raises(ParamError) as err:
        parse_grid(text, "fmdc")
    for piece in expected:
        assert piece in str(err.value)


def test_default_values_stay_in_range():
    spec = REGISTRY["alpc"].param_spec
    lam = default_values(spec["lambda1"])
    assert lam == pytest.approx([1, 10, 100, 1000, 10000])  # geometric around the default 100
    k = default_values(REGISTRY["fmdc"].param_spec["n_neighbors"])
    assert 15 in k and all(1 <= v <= 200 for v in k) and len(k) == 5
    assert default_values(REGISTRY["fmdc"].param_spec["init"]) == ["anchor_spectral", "random"]
    band = default_values(REGISTRY["rg-mvc"].param_spec["bandwidth"])
    assert band == pytest.approx([0.25, 0.5, 1, 2, 4])


# -- running ------------------------------------------------------------------------------------
def test_fmdc_sweep_one_row_per_cell_with_metrics(blobs, tmp_path):
    views, labels = blobs
    axes = [parse_grid("n_anchors=8,16", "fmdc"), parse_grid("n_neighbors=3,5", "fmdc")]
    sweep = Sweep("fmdc", axes, [0, 1], {"n_clusters": 3})
    seen = []
    run_sweep(sweep, views, labels, n_jobs=2, on_row=lambda i, r: seen.append(i))
    assert sorted(seen) == list(range(8))
    for row in sweep.rows:
        assert row["status"] == "ok", row.get("error")
        assert row["acc"] >= 0.95 and row["nmi"] >= 0.85 and -1 <= row["stability"] <= 1
        assert len(row["view_weights"]) == 2 and row["n_iter"] >= 1 and row["seconds"] > 0
    assert {(r["n_anchors"], r["n_neighbors"], r["seed"]) for r in sweep.rows} == {
        (a, k, s) for a in (8, 16) for k in (3, 5) for s in (0, 1)
    }
    grid = sweep.grid("acc")
    assert grid.shape == (2, 2) and np.all(grid >= 0.95)
    sweep.write_csv(tmp_path / "s.csv")
    rows = list(csv.DictReader(open(tmp_path / "s.csv")))
    assert len(rows) == 8 and rows[0]["params"].startswith("{")
    assert float(rows[0]["acc"]) >= 0.95 and rows[0]["status"] == "ok"


def test_label_free_scores_without_labels(blobs):
    views, _ = blobs
    sweep = Sweep("kmeans-concat", [parse_grid("n_clusters=2,3", "kmeans-concat")], [0, 1], {})
    run_sweep(sweep, views, None, n_jobs=1)
    assert "acc" not in sweep.columns() and "silhouette" in sweep.columns()
    by_k = {r["n_clusters"]: r for r in sweep.rows}
    assert all("acc" not in r for r in sweep.rows)
    assert by_k[3]["silhouette"] > 0.6  # three separated blobs: k = 3 scores well
    assert np.isfinite(by_k[3]["objective"]) and by_k[3]["stability"] == pytest.approx(1.0)
    assert sweep.scores() == ["objective", "silhouette", "stability"]


def test_failing_cell_is_recorded_and_the_sweep_goes_on(blobs, tmp_path):
    views, labels = blobs
    sweep = Sweep("kmeans-concat", [parse_grid("n_clusters=3,500", "kmeans-concat")], [0], {})
    run_sweep(sweep, views, labels, n_jobs=2)
    ok, bad = sweep.rows
    assert ok["status"] == "ok" and ok["acc"] == pytest.approx(1.0)
    assert bad["status"] == "error" and "fewer than the 500 clusters" in bad["error"]
    text = sweep.csv_text()
    assert "fewer than the 500 clusters" in text


def test_cancel_between_cells_leaves_the_rest_not_run(blobs):
    views, labels = blobs
    sweep = Sweep("kmeans-concat", [parse_grid("n_clusters=2,3,4,5", "kmeans-concat")], [0, 1], {})
    flag = CancelFlag()
    run_sweep(sweep, views, labels, n_jobs=1, on_row=lambda i, r: flag.set(), cancel=flag)
    flag.cleanup()
    assert sum(r is not None for r in sweep.rows) == 1
    assert sweep.csv_text().count("not run") == 7


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_cancel_stops_running_cells(blobs, slow_solver, n_jobs):
    views, labels = blobs
    views = [views[0] + np.random.default_rng().normal(scale=1e-9), *views[1:]]  # its own marker
    marker = started_marker(views[0])
    axis = parse_grid("delay=0.05,0.06", "slow-test")
    sweep = Sweep("slow-test", [axis], [0], {"max_iter": 200})  # 10 s per cell uncancelled
    flag = CancelFlag()
    t = threading.Thread(
        target=run_sweep, args=(sweep, views, labels), kwargs={"n_jobs": n_jobs, "cancel": flag}
    )
    t.start()
    try:
        for _ in range(12_000):  # until a cell runs (a hang fails after 2 minutes)
            if marker.exists() or not t.is_alive():
                break
            time.sleep(0.01)
        assert marker.exists(), "no cell started"
        flag.set()
        t.join(timeout=120)
        assert not t.is_alive()
    finally:
        flag.set()
        marker.unlink(missing_ok=True)
    flag.cleanup()
    # cancelled, not finished: a cell left to run would report "ok" after its 10 s
    assert all(r is None or r["status"] == "cancelled" for r in sweep.rows)
    assert any(r is not None for r in sweep.rows)  # a running cell stopped and reported


# -- command line -------------------------------------------------------------------------------
@pytest.fixture
def blob_mat(tmp_path, blobs):
    views, labels = blobs
    cell = np.empty((1, 2), dtype=object)
    cell[0, 0], cell[0, 1] = views
    path = tmp_path / "data.mat"
    scipy.io.savemat(path, {"X": cell, "Y": (labels + 1)[:, None]})
    return path


def test_cli_sweep_writes_one_row_per_cell(blob_mat, tmp_path, capsys):
    out = tmp_path / "sweep.csv"
    before = blob_mat.read_bytes()
    code = main(
        [
            "sweep",
            str(blob_mat),
            "--method",
            "fmdc",
            "--grid",
            "n_anchors=8,16",
            "--grid",
            "n_neighbors=3,5",
            "--n-jobs",
            "1",
            "--max-iter",
            "20",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    err = capsys.readouterr()
    assert "[4/4]" in err.err and "ACC" in err.err and "4 cells (0 failed)" in err.out
    rows = list(csv.DictReader(open(out)))
    assert [(r["n_anchors"], r["n_neighbors"]) for r in rows] == [
        ("8", "3"),
        ("8", "5"),
        ("16", "3"),
        ("16", "5"),
    ]
    assert all(float(r["acc"]) >= 0.95 for r in rows) and '"max_iter": 20' in rows[0]["params"]
    assert blob_mat.read_bytes() == before
    assert not list(tmp_path.glob(".sweep.csv*"))  # no temporary file left behind


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--grid", "n_anchors=1,8"], "[2, 65536]"),
        (["--grid", "anchors=8"], "unknown parameter 'anchors'"),
        (["--grid", "n_anchors=8", "--n-anchors", "16"], "both fixed"),
        (["--grid", "n_anchors=8", "--seeds", "a"], "--seeds"),
        (["--grid", "n_anchors=8", "--backend", "dask"], "dask.distributed"),
        (["--grid", "n_anchors=8", "--n-jobs", "0"], "--n-jobs"),
        (["--grid", "n_anchors=8", "--views", "3"], "no view 3"),
    ],
)
def test_cli_sweep_errors_exit_2(blob_mat, tmp_path, capsys, monkeypatch, extra, message):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # as if dask were not installed
    out = tmp_path / "sweep.csv"
    code = main(["sweep", str(blob_mat), "--method", "fmdc", "--out", str(out), *extra])
    assert code == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_alpc_tune_grid_is_relative_to_the_automatic_lambda1(blobs):
    from core.experiments.tune import tune_axes

    views, _ = blobs
    base = {"n_clusters": 3}
    auto = REGISTRY["alpc"](3)._resolve_params(views)["lambda1"]
    lam = tune_axes("alpc", len(views[0]), views, base)[0]
    assert lam.name == "lambda1"
    assert lam.values == pytest.approx([m * auto for m in (0.1, 0.3, 1, 3, 10)], rel=1e-3)
    scaled = tune_axes("alpc", len(views[0]), [10 * x for x in views], base)[0]
    assert scaled.values == pytest.approx([100 * v for v in lam.values], rel=1e-3)
    huge = tune_axes("alpc", len(views[0]), [1e6 * x for x in views], base)[0]
    assert max(huge.values) == REGISTRY["alpc"].param_spec["lambda1"].high  # kept in range
    with pytest.raises(ParamError, match="relative"):
        tune_axes("alpc", len(views[0]))
