"""Metrics against scikit-learn and hand-computed cases."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

from core.numerics.metrics import (
    accuracy,
    adjusted_rand,
    all_metrics,
    confusion_matrix,
    f_score,
    nmi,
    purity,
)


def test_hand_computed_case():
    y = np.array([0, 0, 0, 1, 1, 1])
    p = np.array(["b", "b", "a", "a", "a", "a"])  # any label type
    np.testing.assert_array_equal(confusion_matrix(y, p), [[1, 2], [3, 0]])
    assert accuracy(y, p) == pytest.approx(5 / 6)
    assert purity(y, p) == pytest.approx(5 / 6)
    # pairs: TP = C(2,2)+C(3,2) = 4; predicted-same = C(4,2)+C(2,2) = 7; true-same = 6
    prec, rec = 4 / 7, 4 / 6
    assert f_score(y, p) == pytest.approx(2 * prec * rec / (prec + rec))


def test_permutation_invariance_and_perfect_score():
    y = np.repeat([0, 1, 2], 5)
    perm = np.array([2, 0, 1])[y]
    assert all(v == pytest.approx(1.0) for v in all_metrics(y, perm).values())


@pytest.mark.parametrize("seed", range(5))
def test_against_sklearn(seed):
    g = np.random.default_rng(seed)
    y, p = g.integers(0, 4, 200), g.integers(0, 6, 200)  # more clusters than classes
    assert nmi(y, p) == pytest.approx(skm.normalized_mutual_info_score(y, p))
    assert nmi(y, p, "max") == pytest.approx(
        skm.normalized_mutual_info_score(y, p, average_method="max")
    )
    assert adjusted_rand(y, p) == pytest.approx(skm.adjusted_rand_score(y, p))
    cm = skm.cluster.contingency_matrix(y, p)
    assert purity(y, p) == pytest.approx(cm.max(0).sum() / 200)
    assert 0 <= accuracy(y, p) <= purity(y, p)


def test_degenerate_single_cluster():
    y = np.array([0, 0, 1, 1])
    one = np.zeros(4, dtype=int)
    assert nmi(y, one) == 0.0
    assert nmi(one, one) == 1.0
    assert adjusted_rand(y, one) == pytest.approx(skm.adjusted_rand_score(y, one))
    with pytest.raises(ValueError, match="4 true labels but 3"):
        accuracy(y, one[:3])


@pytest.mark.parametrize(
    "y_true, y_pred",
    [
        ([0, 0, 3, 3, 7], [5, 5, 5, 9, 9]),  # gaps in the cluster numbers
        ([-1, 0, 1, 1], [2, 2, 0, 0]),  # a negative label (noise)
        ([True, False, True], np.array([1, 0, 0], dtype=np.uint8)),
        (["b", "a", "b"], [0, 10**9, 0]),  # text; a huge cluster number
        ([0.5, 1.5, 0.5], [1, 1, 2]),
    ],
)
def test_counted_contingency_equals_the_sorted_one(y_true, y_pred):
    """Small non-negative integer labels are counted, not sorted: the same matrix as the
    np.unique definition, whatever the label type."""
    _, a = np.unique(np.asarray(y_true), return_inverse=True)
    _, b = np.unique(np.asarray(y_pred), return_inverse=True)
    want = np.zeros((a.max() + 1, b.max() + 1), dtype=np.int64)
    np.add.at(want, (a, b), 1)
    np.testing.assert_array_equal(confusion_matrix(y_true, y_pred), want)
