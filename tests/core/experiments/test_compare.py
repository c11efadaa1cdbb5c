"""Agreement between labellings and the runs table (core.experiments.compare)."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from sklearn import metrics as skm

from core.experiments.compare import (
    TABLE_COLUMNS,
    agreement,
    contingency,
    format_params,
    param_changes,
    param_table,
    run_row,
    table_csv,
)
from core.numerics.metrics import confusion_matrix
from core.records.runs import RunResult


def test_identical_partitions_agree_fully_whatever_the_numbers():
    a = np.repeat([0, 1, 2, 3], 25)
    b = np.array([7, 3, 9, 1])[a]  # same partition, other cluster ids
    got = agreement(a, b)
    assert got == {"ari": pytest.approx(1.0), "nmi": pytest.approx(1.0), "matched": 1.0}
    table = contingency(a, b)
    np.testing.assert_array_equal(table.counts, np.diag([25, 25, 25, 25]))
    assert table.col_labels.tolist() == [7, 3, 9, 1]  # B's cluster matched to A's 0, 1, 2, 3


def test_hand_computed_contingency_puts_matches_on_the_diagonal():
    a = np.array([0, 0, 0, 1, 1, 1, 2, 2])
    b = np.array([1, 1, 1, 0, 0, 2, 2, 2])
    t = contingency(a, b)
    assert t.row_labels.tolist() == [0, 1, 2]
    assert t.col_labels.tolist() == [1, 0, 2]
    np.testing.assert_array_equal(t.counts, [[3, 0, 0], [0, 2, 1], [0, 0, 2]])
    assert t.n_matched == 3 and t.matched_fraction == pytest.approx(7 / 8)


@pytest.mark.parametrize("seed", range(4))
def test_agreement_matches_sklearn_and_is_symmetric(seed):
    g = np.random.default_rng(seed)
    a = g.integers(0, 5, 300)
    b = np.where(g.random(300) < 0.7, a, g.integers(0, 3, 300))  # partly agreeing, fewer ids
    got = agreement(a, b)
    assert got["ari"] == pytest.approx(skm.adjusted_rand_score(a, b))
    assert got["nmi"] == pytest.approx(skm.normalized_mutual_info_score(a, b))
    back = agreement(b, a)
    assert back["ari"] == pytest.approx(got["ari"]) and back["nmi"] == pytest.approx(got["nmi"])
    assert back["matched"] == pytest.approx(got["matched"])
    assert 0.2 < got["ari"] < 0.9  # neither identical nor independent


def test_unequal_cluster_counts_keep_every_sample():
    a = np.repeat([0, 1, 2, 3], [10, 20, 30, 40])
    b = np.where(a < 2, 5, 8)  # B merges A's clusters pairwise
    t = contingency(a, b)
    assert t.counts.shape == (4, 2) and t.n_matched == 2
    assert t.counts.sum() == 100
    # the same numbers as the raw contingency, only permuted
    raw = confusion_matrix(a, b)
    assert sorted(t.counts.ravel().tolist()) == sorted(raw.ravel().tolist())
    # best matching: A's 3 (40) with 8, A's 1 (20) with 5
    assert t.matched_fraction == pytest.approx(0.6)
    assert contingency(b, a).counts.shape == (2, 4)


def test_labellings_of_different_data_are_refused():
    with pytest.raises(ValueError, match="different data"):
        agreement(np.zeros(10), np.zeros(12))


def test_param_changes_against_method_defaults():
    assert param_changes("fmdc", {"n_clusters": 2, "random_state": 5, "n_anchors": None}) == {}
    changed = param_changes("fmdc", {"n_clusters": 10, "n_anchors": 64, "tol": 1e-10})
    assert changed == {"n_clusters": 10, "n_anchors": 64}
    # the GUI's default number of clusters is the number of classes
    assert param_changes("fmdc", {"n_clusters": 10, "n_neighbors": 5}, n_classes=10) == {
        "n_neighbors": 5
    }
    assert format_params({"n_anchors": 64, "lambda1": 0.123456}) == "n_anchors=64, lambda1=0.1235"
    assert format_params({}) == "defaults"
    assert param_changes("no-such-method", {"a": 1, "random_state": 0}) == {"a": 1}


def _result(**kw):
    base = {
        "method": "fmdc",
        "params": {"n_clusters": 3, "n_anchors": 32, "random_state": 7, "tol": 1e-10},
        "labels": np.array([0, 1, 2]),
        "n_iter": 12,
        "metrics": {"acc": 0.91, "nmi": 0.8, "ari": 0.75},
        "timings": {"total": 1.25},
        "dataset": {"name": "blobs"},
    }
    base.update(kw)
    return RunResult(**base)


def test_run_rows_and_csv_export():
    rows = [
        run_row(1, _result(), n_classes=3),
        run_row(2, _result(stopped_early=True, metrics={}, timings={}), seconds=0.5),
    ]
    assert rows[0]["parameters"] == "n_anchors=32"
    assert rows[0]["seed"] == 7 and rows[0]["status"] == "finished"
    assert rows[1]["parameters"] == "n_clusters=3, n_anchors=32"
    assert rows[1]["status"] == "stopped" and rows[1]["acc"] is None and rows[1]["seconds"] == 0.5
    parsed = list(csv.reader(io.StringIO(table_csv(rows))))
    assert parsed[0] == list(TABLE_COLUMNS)
    first = dict(zip(parsed[0], parsed[1], strict=True))
    assert first["run"] == "1" and first["method"] == "fmdc" and first["acc"] == "0.91"
    assert first["seconds"] == "1.25" and first["iterations"] == "12"
    assert json.loads(first["params_json"])["n_anchors"] == 32
    second = dict(zip(parsed[0], parsed[2], strict=True))
    assert second["acc"] == "" and second["status"] == "stopped"


def test_param_table_flags_differences():
    rows = param_table({"k": 3, "lam": 0.1, "auto": None}, {"k": 3, "lam": 1.0, "extra": True})
    assert rows == [
        ("k", "3", "3", False),
        ("lam", "0.1", "1", True),
        ("auto", "auto", "", True),
        ("extra", "", "True", True),
    ]
