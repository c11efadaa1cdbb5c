"""Colour sources of the embedding (Qt-free): categories, numbers, features, disagreement."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from mvc_gui.model.colouring import (
    DISAGREE_COLOR,
    categorical,
    continuous,
    disagreement,
    feature_column,
)
from mvc_gui.model.palette import NOISE_COLOR, cluster_colors

RAMP = [(i, 0, 255 - i) for i in range(0, 250, 10)]  # 25 distinct colours


def _brute_force_disagreement(a: np.ndarray, b: np.ndarray) -> int:
    """Samples outside the best one-to-one matching of b's clusters to a's, by trying every
    matching (independent of the Hungarian assignment)."""
    ca, cb = np.unique(a), np.unique(b)
    best = 0
    small, large = (cb, ca) if cb.size <= ca.size else (ca, cb)
    for image in itertools.permutations(large, small.size):
        pairs = dict(zip(small.tolist(), image, strict=True))
        if cb.size <= ca.size:
            hits = sum(int(np.sum((b == k) & (a == v))) for k, v in pairs.items())
        else:
            hits = sum(int(np.sum((a == k) & (b == v))) for k, v in pairs.items())
        best = max(best, hits)
    return a.size - best


def test_text_categories_get_palette_colours_and_empty_cells_grey():
    values = np.array(["liver", "", "brain", "liver", "nan", "kidney"])
    col = categorical(values, "tissue")
    assert col.names == ["brain", "kidney", "liver"]
    assert col.counts == [1, 1, 2] and col.n_missing == 2
    palette = cluster_colors(3)
    assert [col.colour_of(i) for i in range(6)] == [
        palette[2], NOISE_COLOR, palette[0], palette[2], NOISE_COLOR, palette[1]
    ]  # fmt: skip
    assert col.value_text(1) == "tissue: no value" and col.value_text(0) == "tissue: liver"


def test_numbers_map_to_the_ramp_by_their_range_and_nan_is_grey():
    x = np.array([10.0, 20.0, np.nan, 15.0, np.inf, 12.5])
    col = continuous(x, "age", RAMP)
    assert (col.lo, col.hi) == (10.0, 20.0)
    assert col.colour_of(0) == RAMP[0] and col.colour_of(1) == RAMP[-1]
    assert col.colour_of(3) == RAMP[len(RAMP) // 2]  # the middle value, the middle colour
    assert col.colour_of(5) == RAMP[int(0.25 * len(RAMP))]
    assert col.colour_of(2) == NOISE_COLOR and col.colour_of(4) == NOISE_COLOR
    assert col.n_missing == 2 and col.value_text(3) == "age: 15" and "no value" in col.value_text(2)
    flat = continuous(np.full(4, 3.0), "constant", RAMP)
    assert set(flat.codes.tolist()) == {len(RAMP) // 2}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_disagreement_counts_the_samples_outside_the_best_matching(seed):
    rng = np.random.default_rng(seed)
    current = rng.integers(0, 4, 200)
    # the other run: the same partition relabelled, with 23 samples moved, and a fifth cluster
    relabel = np.array([3, 0, 2, 1])
    other = relabel[current]
    moved = rng.choice(200, 23, replace=False)
    other[moved] = rng.integers(0, 5, 23)
    col = disagreement(current, other, "run #2")
    expected = _brute_force_disagreement(current, other)
    assert int(col.emphasis.sum()) == expected == col.counts[1]
    assert col.summary.startswith(f"{expected} of 200 samples")
    i = int(np.flatnonzero(col.emphasis)[0])
    assert col.colour_of(i) == DISAGREE_COLOR
    assert col.value_text(i) == f"run #2: cluster {other[i]}, disagrees"
    # a mere relabelling disagrees nowhere
    assert disagreement(current, relabel[current], "run #3").counts == [200, 0]


def test_disagreement_of_runs_on_different_data_says_so():
    with pytest.raises(ValueError, match="different data"):
        disagreement(np.zeros(5, int), np.zeros(6, int), "run #4")


def test_a_feature_column_of_a_sparse_view_equals_the_dense_one():
    dense = np.random.default_rng(0).random((30, 8)) * (
        np.random.default_rng(1).random((30, 8)) > 0.7
    )
    for j in (0, 5, 7):
        np.testing.assert_array_equal(feature_column(sp.csr_matrix(dense), j), dense[:, j])
        np.testing.assert_array_equal(feature_column(dense, j), dense[:, j])


def test_an_id_like_column_keeps_the_frequent_values_and_lumps_the_rest():
    values = np.array(["common"] * 50 + ["often"] * 20 + [f"id{i}" for i in range(100)] + [""])
    col = categorical(values, "sample name", max_categories=5)
    assert len(col.colours) == 5 and col.names[-1] == "other (98 values)"
    assert col.names[:4] == ["common", "id0", "id1", "often"]  # then the first of the singles
    assert col.counts == [50, 1, 1, 20, 98] and col.n_missing == 1
    assert col.colour_of(0) == col.colours[0] and col.colour_of(169) == col.colours[-1]
