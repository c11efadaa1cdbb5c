from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from core.data.dataset import DataError
from core.data.preprocessing import choose_auto, preprocess, preprocess_view


@pytest.fixture
def dense(rng):
    x = rng.normal(size=(30, 4)) * [1, 100, 1e4, 1]
    x[4] = 0.0  # an all-zero row
    x[:, 3] = 0.0  # constant column
    return x


@pytest.fixture
def counts(rng):
    x = sp.random(30, 50, density=0.1, format="csr", random_state=3)
    x.data = np.ceil(x.data * 5)
    dense = x.toarray()
    dense[2] = 0  # an all-zero row
    return sp.csr_matrix(dense)


@pytest.mark.parametrize("method", ["none", "zscore", "minmax", "maxscale", "l2", "tfidf", "auto"])
def test_every_method_is_finite_keeps_sparsity_and_inputs(method, dense, counts):
    for x in (np.abs(dense), counts):
        before = x.copy()
        out, name = preprocess_view(x, method)
        assert sp.issparse(out) == sp.issparse(x)
        data = out.data if sp.issparse(out) else out
        assert np.isfinite(data).all(), name
        diff = (x - before) if not sp.issparse(x) else (x - before).toarray()
        assert not np.any(diff), "input modified"


def test_zscore_constant_column_and_l2_zero_row(dense):
    z, _ = preprocess_view(dense, "zscore")
    np.testing.assert_allclose(z[:, :3].std(0, ddof=1), 1.0)
    np.testing.assert_array_equal(z[:, 3], 0.0)
    r, _ = preprocess_view(dense, "l2")
    norms = np.linalg.norm(r, axis=1)
    assert norms[4] == 0 and np.allclose(np.delete(norms, 4), 1.0)


def test_sparse_zscore_is_not_centred_and_says_so(counts):
    z, name = preprocess_view(counts, "zscore")
    assert sp.issparse(z) and "not centred" in name


def test_auto_chooses_by_what_the_data_looks_like(dense, counts):
    assert choose_auto(counts) == "l2"
    assert choose_auto(counts.toarray()) == "l2"  # dense but count-like
    assert choose_auto(dense) == "zscore"
    _, chosen = preprocess([dense, counts], "auto")
    assert chosen == ["auto: zscore", "auto: l2"]


def test_errors_are_specific(dense):
    with pytest.raises(DataError, match="unknown preprocessing"):
        preprocess([dense], "whiten")
    with pytest.raises(DataError, match="2 preprocessing choices for 1 views"):
        preprocess([dense], ["l2", "l2"])
    with pytest.raises(DataError, match="negative"):
        preprocess_view(dense, "tfidf")


def test_tfidf_text_keeps_tf_idf_for_bags_of_words_only(rng):
    words = sp.random(40, 500, density=0.02, format="csr", random_state=1)
    words.data = np.ceil(words.data * 9)
    ratings = rng.integers(0, 4, size=(40, 20)) * (rng.random((40, 20)) < 0.45)  # 0-3, ~35 %
    pixels = rng.integers(0, 256, size=(40, 64)) * (rng.random((40, 64)) < 0.2)
    assert choose_auto(words, "tfidf_text") == "tfidf"
    assert choose_auto(words.toarray(), "tfidf_text") == "tfidf"  # stored dense, still text
    assert choose_auto(ratings.astype(float), "tfidf_text") == "l2"  # like Dermatology
    assert choose_auto(pixels.astype(float), "tfidf_text") == "l2"  # like HW2sources


def test_tfidf_text_real_minmax_scales_mostly_zero_weights_by_column(rng):
    """DTLL's rule: tfidf_text, and min-max for dense non-negative real features that are
    mostly zeros (BDGP_fea's descriptors, WebKB's weights); counts and text keep tfidf_text's
    choice, dense real features general's."""
    rule = "tfidf_text_real_minmax"
    words = sp.random(40, 500, density=0.02, format="csr", random_state=1)
    words.data = np.ceil(words.data * 9)
    weights = rng.uniform(0.05, 0.7, size=(40, 30)) * (rng.random((40, 30)) < 0.15)
    ratings = rng.integers(0, 4, size=(40, 20)) * (rng.random((40, 20)) < 0.45)
    dense = rng.uniform(0.1, 2.0, size=(40, 8))
    assert choose_auto(weights, rule) == "minmax"
    assert choose_auto(words, rule) == choose_auto(words, "tfidf_text") == "tfidf"
    assert choose_auto(ratings.astype(float), rule) == choose_auto(
        ratings.astype(float), "tfidf_text"
    )
    assert choose_auto(dense, rule) == choose_auto(dense, "tfidf_text")
    assert choose_auto(sp.csr_matrix(weights), rule) == "l2"  # stored sparse: tfidf_text's l2
    out, names = preprocess([weights], "auto", rule)
    assert names == ["auto: minmax"] and out[0].max() == 1.0 and out[0].min() == 0.0


@pytest.mark.parametrize(
    ("rule", "base"),
    [("tfidf_text_binary_l2", "tfidf_text"), ("text_tfidf_zscore_binary_l2", "text_tfidf_zscore")],
)
def test_binary_l2_rules_leave_presence_data_unweighted(rng, rule, base):
    """RG-MVC's and MVSC-HFD's rules: bags of words of 0/1 values (word presence, links) get
    l2 instead of tf-idf; counts keep tf-idf, every other view the base rule's choice."""
    counts = sp.random(40, 500, density=0.02, format="csr", random_state=1)
    counts.data = np.ceil(counts.data * 9)
    presence = counts.copy()
    presence.data[:] = 1.0
    ratings = rng.integers(0, 4, size=(40, 20)) * (rng.random((40, 20)) < 0.45)
    assert choose_auto(counts, rule) == "tfidf"
    assert choose_auto(presence, rule) == "l2"
    assert choose_auto(presence.toarray(), rule) == "l2"  # stored dense, like WebKB-203
    assert choose_auto(presence, base) == "tfidf"
    for other in (ratings.astype(float), rng.normal(size=(40, 6)), rng.uniform(size=(40, 5))):
        assert choose_auto(other, rule) == choose_auto(other, base)


def test_text_tfidf_zscore_weighs_words_and_standardises_the_rest(rng):
    """MVSC-HFD's rule: tf-idf for bags of words (sparse non-negative, or dense counts with
    density < 0.1), the authors' z-score for everything else, including dense counts that
    are not text (ratings, pixels) and signed features."""
    words = sp.random(40, 500, density=0.02, format="csr", random_state=1)
    words.data = np.ceil(words.data * 9)
    weights = words.copy()
    weights.data = weights.data / 7.0  # sparse tf weights, not integers: still text
    ratings = rng.integers(0, 4, size=(40, 20)) * (rng.random((40, 20)) < 0.45)
    pixels = rng.integers(0, 256, size=(40, 64)) * (rng.random((40, 64)) < 0.2)
    signed = rng.normal(size=(40, 6))
    rule = "text_tfidf_zscore"
    assert choose_auto(words, rule) == "tfidf"
    assert choose_auto(words.toarray(), rule) == "tfidf"  # stored dense, still text
    assert choose_auto(weights, rule) == "tfidf"
    assert choose_auto(ratings.astype(float), rule) == "zscore"
    assert choose_auto(pixels.astype(float), rule) == "zscore"
    assert choose_auto(signed, rule) == "zscore"
    assert choose_auto(sp.csr_matrix(signed * (signed > 1)), rule) == "tfidf"  # sparse, >= 0
    out, names = preprocess([words, signed], "auto", rule)
    assert names == ["auto: tfidf", "auto: zscore"]
    assert sp.issparse(out[0])
    norms = np.sqrt(np.asarray(out[0].multiply(out[0]).sum(axis=1)).ravel())
    np.testing.assert_allclose(norms[words.getnnz(axis=1) > 0], 1.0)


def test_raw_text_keeps_words_raw_histograms_unit_and_standardises_the_rest(rng):
    # Wiki_fea's views are topic proportions and normalised bags of visual words: z-scoring
    # them cost ALPC 0.38 ACC; rows to unit norm keep their geometry
    topics = rng.dirichlet(np.ones(10), size=200)
    words = rng.poisson(0.05, size=(200, 50)).astype(float)  # density about 0.05
    pixels = rng.integers(0, 256, size=(200, 64)) * (rng.random((200, 64)) < 0.3)
    real = rng.gamma(2.0, size=(200, 6)) * np.array([1, 10, 100, 1, 5, 50])
    rule = "raw_text"
    assert choose_auto(topics, rule) == "l2"
    assert choose_auto(topics * 67098, rule) == "l2"  # fixed-size counts (MSRC's histograms)
    absent = topics.copy()
    absent[[3, 17]] = 0  # samples that lack the view are zero rows, not a different total
    assert choose_auto(absent, rule) == "l2"
    assert choose_auto(words, rule) == "none"  # the authors feed raw term counts
    assert choose_auto(sp.csr_matrix(words), rule) == "none"
    assert choose_auto(pixels.astype(float), rule) == "zscore"  # HW2sources: 0.847 -> 0.919
    assert choose_auto(real, rule) == "zscore"
    nearly = topics.copy()
    nearly[0] *= 1.01  # one row off the total: not a histogram
    assert choose_auto(nearly, rule) == "zscore"
    assert choose_auto(topics - 0.05, rule) == "zscore"  # negative values: not a histogram
