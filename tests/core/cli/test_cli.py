"""The `mvc` command as a user runs it: info, run with progress, exports, clear errors."""

from __future__ import annotations

import csv
import json
import re

import numpy as np
import pytest
import scipy.io

from core.cli.main import main


@pytest.fixture
def small_mat(tmp_path):
    g = np.random.default_rng(0)
    y = np.repeat([1, 2, 3], 30)
    centers = g.normal(scale=8, size=(3, 5))
    x1 = centers[y - 1] + g.normal(size=(90, 5))
    x2 = (centers[y - 1] @ g.normal(size=(5, 7))) + g.normal(size=(90, 7))
    x = np.empty((1, 2), dtype=object)
    x[0, 0], x[0, 1] = x1.T, x2.T  # stored d x n, as many MATLAB files are
    path = tmp_path / "toy.mat"
    scipy.io.savemat(path, {"X": x, "Y": y[:, None]})
    return path


def test_info_describes_views_and_classes(small_mat, capsys):
    assert main(["info", str(small_mat)]) == 0
    out = capsys.readouterr().out
    assert "90 samples, 2 views" in out
    assert "90 x 5" in out and "90 x 7" in out
    assert "3 classes" in out and "1: 30" in out


def test_run_writes_labels_and_record_atomically(small_mat, tmp_path, capsys):
    out_csv, out_json = tmp_path / "labels.csv", tmp_path / "run.json"
    before = small_mat.read_bytes()
    code = main(
        [
            "run",
            str(small_mat),
            "--method",
            "fmdc",
            "--n-anchors",
            "16",
            "--seed",
            "3",
            "--out",
            str(out_csv),
            "--report",
            str(out_json),
        ]
    )
    assert code == 0
    captured = capsys.readouterr()
    assert "iterating" in captured.err and "objective" in captured.err
    assert "ACC 1.0000" in captured.out and "view weights:" in captured.out
    rows = list(csv.reader(out_csv.open()))
    assert rows[0] == ["sample_id", "cluster", "truth"] and len(rows) == 91
    assert [r[0] for r in rows[1:]] == [str(i) for i in range(1, 91)]  # the file has no ids
    record = json.loads(out_json.read_text())
    assert record["params"]["random_state"] == 3 and record["params"]["n_anchors"] == 16
    assert record["metrics"]["acc"] == 1.0 and record["objective_history"]
    assert "numpy" in record["versions"] and "total" in record["timings"]
    assert not list(tmp_path.glob("*.tmp")) and small_mat.read_bytes() == before


def test_run_on_demo_with_baseline(capsys):
    assert main(["run", "--demo", "--method", "kmeans-concat", "--quiet", "--n-init", "2"]) == 0
    assert "ACC" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "missing.mat", "--method", "fmdc"], "missing.mat"),
        (["run", "--demo", "--method", "fmdc", "--n-neighbors", "0"], "'n_neighbors'"),
        (["run", "--demo", "--method", "fmdc", "--views", "9"], "no view 9"),
        (["run", "--demo", "--method", "fmdc", "--preprocess", "whiten"], "whiten"),
    ],
)
def test_errors_are_clear_and_exit_2(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("mvc: error:") and message in err


def test_corrupt_file_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "bad.mat"
    bad.write_bytes(b"MATLAB 5.0 MAT-file" + b"\x00" * 200 + b"garbage")
    assert main(["info", str(bad)]) == 2
    assert "bad.mat" in capsys.readouterr().err


def test_written_files_get_the_usual_permissions(tmp_path):
    """Exports go through a private temporary file; the result must not stay private
    (a report copied to a web folder must be readable)."""
    import os
    import stat

    from core.data.atomic import atomic_write

    mask = os.umask(0o022)
    os.umask(mask)
    path = atomic_write(tmp_path / "report.html", "<html></html>")
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask


@pytest.fixture
def unlabelled_mat(tmp_path):
    g = np.random.default_rng(3)
    y = np.repeat([0, 1, 2, 3], 40)
    x = np.empty((1, 2), dtype=object)
    for i, d in enumerate((5, 8)):
        centres = g.normal(scale=8, size=(4, d))
        x[0, i] = centres[y] + g.normal(size=(y.size, d))
    path = tmp_path / "nolabels.mat"
    scipy.io.savemat(path, {"X": x})
    return path


def test_run_without_labels_estimates_k_and_prints_it(unlabelled_mat, tmp_path, capsys):
    report = tmp_path / "run.json"
    code = main(
        ["run", str(unlabelled_mat), "--method", "fmdc", "--quiet", "--report", str(report)]
    )
    assert code == 0
    out = capsys.readouterr().out
    # the estimate with the other plausible values, never a bare number
    line = next(x for x in out.splitlines() if x.startswith("number of clusters estimated:"))
    assert re.match(r"number of clusters estimated: k = 4 \(also plausible: \d+, \d+\)", line)
    # a small estimate says it may be the coarse split of finer groups
    assert "note: a small estimate can be the coarse split of finer groups" in out
    assert "cluster sizes: [40, 40, 40, 40]" in out
    record = json.loads(report.read_text())
    assert record["params"]["n_clusters"] == "auto"
    assert record["n_clusters_estimate"]["k"] == 4


def test_tune_prints_and_writes_the_best_cell(small_mat, tmp_path, capsys):
    out_json = tmp_path / "best.json"
    argv = [
        "tune",
        str(small_mat),
        "--method",
        "fmdc",
        "--grid",
        "n_neighbors=3,10",
        "--seeds",
        "0,1",
        "--quiet",
        "--out",
        str(out_json),
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "suggested (combined): --n-neighbors " in out and "regret" in out
    best = json.loads(out_json.read_text())
    assert best["method"] == "fmdc" and best["n_neighbors"] in (3, 10)
    suggested = out.split("suggested (combined): --n-neighbors ")[1].split()[0]
    assert int(suggested) == best["n_neighbors"]


@pytest.mark.parametrize(
    ("grid", "message"),
    [
        ("n_neighbors=0,5", "n_neighbors"),
        ("lambda9=1,2", "unknown parameter 'lambda9'"),
        ("n_neighbors=", "no values given"),
    ],
)
def test_tune_bad_grid_is_a_clear_error(small_mat, grid, message, capsys):
    argv = ["tune", str(small_mat), "--method", "fmdc", "--grid", grid, "--quiet"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("mvc: error:") and message in err


def test_tune_stability_needs_two_seeds(small_mat, capsys):
    argv = [
        "tune",
        str(small_mat),
        "--method",
        "fmdc",
        "--seeds",
        "0",
        "--quiet",
        "--criterion",
        "stability",
    ]
    assert main(argv) == 2
    assert "two or more seeds" in capsys.readouterr().err
