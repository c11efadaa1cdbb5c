"""Incomplete views are preprocessed on the samples each view has (mvc run, the app, the
amputation experiment)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from core.data.dataset import DataError
from core.data.preprocessing import preprocess, transform_views
from core.experiments.amputation import fill_missing


def _incomplete(seed: int = 0):
    rng = np.random.default_rng(seed)
    x1 = rng.normal(3.0, 2.0, size=(50, 4))
    x2 = rng.poisson(2.0, size=(50, 6)).astype(float)
    observed = np.ones((50, 2), dtype=bool)
    observed[:35, 1] = False  # view 2: only 15 of 50 samples
    return [x1, x2], observed


def test_each_view_is_z_scored_on_its_observed_samples_only():
    views, observed = _incomplete()
    out, fitted = transform_views(views, "zscore", observed=observed)
    chosen = [t.label for t in fitted]
    seen = out[1][observed[:, 1]]
    np.testing.assert_allclose(seen.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(seen.std(axis=0, ddof=1), 1.0)
    assert (out[1][~observed[:, 1]] == 0).all() and chosen == ["zscore", "zscore"]
    # a mean fill keeps the means but shrinks the deviations with the share missing, so the
    # view with 70 % missing would be scaled up about 1.8 times against the complete one
    filled, _ = preprocess(fill_missing(views, observed, "mean"), "zscore")
    assert filled[1][observed[:, 1]].std(axis=0, ddof=1).mean() > 1.5


def test_missing_rows_are_never_read_and_sparse_stays_sparse():
    views, observed = _incomplete(1)
    garbage = [x.copy() for x in views]
    garbage[1][~observed[:, 1]] = 1e6
    sparse = [views[0], sp.csr_matrix(views[1])]
    a, _ = transform_views(views, ["auto", "tfidf"], observed=observed)
    b, _ = transform_views(garbage, ["auto", "tfidf"], observed=observed)
    c, _ = transform_views(sparse, ["auto", "tfidf"], observed=observed)
    for x, y, z in zip(a, b, c, strict=True):
        np.testing.assert_array_equal(x, y)
        np.testing.assert_allclose(z.toarray() if sp.issparse(z) else z, x)
    assert sp.issparse(c[1]) and c[1][~observed[:, 1]].nnz == 0


def test_complete_data_is_plain_preprocessing_and_bad_choices_are_refused():
    views, _ = _incomplete(2)
    a, _ = transform_views(views, "auto")
    b, _ = preprocess(views, "auto")
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    with pytest.raises(DataError, match="3 preprocessing choices for 2 views"):
        transform_views(views, ["auto"] * 3, observed=np.ones((50, 2), dtype=bool))
