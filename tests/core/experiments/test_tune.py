"""mvc tune's suggestion: only settings that change the result compete, the pick follows
its criterion among cells whose seeds agree, and the note says why."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.io

from core.cli.main import main
from core.experiments.sweep import GridAxis
from core.experiments.tune import MIN_STABILITY, pick, tune, tune_axes


def _blobs(n_per: int = 30, seed: int = 0) -> tuple[list[np.ndarray], np.ndarray]:
    g = np.random.default_rng(seed)
    y = np.repeat([0, 1, 2], n_per)
    centres = g.normal(scale=8, size=(3, 5))
    return [centres[y] + g.normal(size=(y.size, 5)), np.abs(centres[y]) + g.random((y.size, 5))], y


def _cell(stability: float, silhouette: float, **params) -> dict:
    return {"params": params, "stability": stability, "silhouette": silhouette, "ok": 2}


def test_settings_with_the_same_labels_are_merged_and_an_idle_axis_is_named():
    views, y = _blobs()
    axes = [GridAxis("n_init", (1, 10))]  # well-separated blobs: both give the same labels
    result = tune("kmeans-concat", views, {"n_clusters": 3}, axes=axes, true_labels=y)
    assert len(result.cells) == 1 and result.cells[0]["same_as"] == [{"n_init": 10}]
    assert result.idle_axes == ["n_init"]
    assert "n_init did not change the labels on these data" in result.note
    assert "same labels as n_init=1, merged: n_init=10" in result.note


def test_an_unstable_cell_is_not_suggested_over_a_stable_one():
    cells = [_cell(0.18, 0.90, n_anchors=16), _cell(0.81, 0.40, n_anchors=32)]
    for criterion in ("combined", "silhouette"):
        assert pick(cells, criterion) == 1
    only_unstable = [_cell(0.18, 0.90, a=1), _cell(0.25, 0.40, a=2)]
    assert pick(only_unstable, "silhouette") == 0  # nothing reaches the floor: all compete
    assert MIN_STABILITY == 0.3  # chosen leave-one-file-out (docs/benchmarks/tune_regret.md)


def test_tied_scores_share_a_rank_so_the_order_of_the_grid_does_not_decide():
    # cells 1 and 2 tie on stability; cell 2 has the better silhouette and must win
    cells = [_cell(0.70, 0.20, a=1), _cell(0.90, 0.30, a=2), _cell(0.90, 0.35, a=3)]
    assert pick(cells, "combined") == 2
    assert pick(list(reversed(cells)), "combined") == 0


def test_integer_relative_axes_are_rounded_and_anchors_stay_at_one_per_cluster():
    views, _ = _blobs()
    axes = tune_axes("mvsc-hfd", views[0].shape[0], views, {"n_clusters": 3})
    anchors = next(a for a in axes if a.name == "n_anchors")
    assert all(isinstance(v, int) for v in anchors.values)
    assert min(anchors.values) >= 3 and len(set(anchors.values)) == len(anchors.values)


@pytest.fixture
def small_mat(tmp_path):
    views, y = _blobs()
    x = np.empty((1, 2), dtype=object)
    x[0, 0], x[0, 1] = views[0].T, views[1].T
    path = tmp_path / "toy.mat"
    scipy.io.savemat(path, {"X": x, "Y": (y + 1)[:, None]})
    return path


def test_cli_compares_preprocessings_and_says_why(small_mat, tmp_path, capsys):
    out_json = tmp_path / "best.json"
    argv = ["tune", str(small_mat), "--method", "fmdc", "--grid", "preprocess=auto,minmax",
            "--grid", "n_neighbors=3,10", "--quiet", "--out", str(out_json)]  # fmt: skip
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "(minmax)" in captured.err and "(auto)" in captured.err
    header = captured.out.splitlines()[0].split()
    assert header[:2] == ["n_neighbors", "preprocess"]
    assert "note: suggested for the best sum of its stability and silhouette ranks" in captured.out
    best = json.loads(out_json.read_text())
    assert best["preprocess"] in ("auto", "minmax") and best["note"]
    assert f"--preprocess {best['preprocess']}" in captured.out


def test_cli_refuses_an_unknown_preprocessing(small_mat, capsys):
    argv = ["tune", str(small_mat), "--method", "fmdc", "--grid", "preprocess=auto,magic"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("mvc: error:") and "magic" in err and "zscore" in err


def test_a_tie_of_rank_sums_goes_to_the_more_stable_cell():
    # 40 mice, FMDC: one cell stable with the lower silhouette, one unstable with the higher
    cells = [_cell(0.43, 0.093, n_neighbors=15), _cell(1.0, 0.020, n_neighbors=5)]
    assert pick(cells, "combined") == 1
