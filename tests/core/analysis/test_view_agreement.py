"""How much each view says, and why one sample sits in its cluster
(core/analysis/view_agreement.py, core/analysis/explain_sample.py)."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from core.analysis.explain_sample import explain_sample
from core.analysis.view_agreement import view_agreement, write_view_agreement_csv
from core.data.dataset import DataError, MultiViewDataset
from core.data.prepare import prepare_views
from core.methods import REGISTRY
from core.records.runs import RunResult
from tests.conftest import make_blobs_views


def _informative_and_noise(n: int = 300, seed: int = 0):
    """View 1 separates the three classes; view 2 is pure noise."""
    views, labels = make_blobs_views(n=n, c=3, dims=(6,), seed=seed)
    noise = np.random.default_rng(seed + 1).normal(size=(n, 6))
    return [views[0], noise], labels


def test_an_informative_view_agrees_and_a_noise_view_does_not(tmp_path):
    views, labels = _informative_and_noise()
    va = view_agreement(views, labels, 3, weights=[0.8, 0.2], view_names=["signal", "noise"])
    assert va.ari[0] > 0.9 and va.nmi[0] > 0.9
    assert va.ari[1] < 0.1
    assert va.weights.tolist() == [0.8, 0.2] and va.n_observed.tolist() == [300, 300]
    assert va.agree[0].mean() > 0.95  # clusters matched to the result's by Hungarian
    # each sample: its share of agreeing views (the signal view, and the noise view by chance)
    assert va.per_sample.shape == (300,) and set(np.unique(va.per_sample)) <= {0.0, 0.5, 1.0}
    assert np.all(va.per_sample >= 0.5 * va.agree[0])
    path = write_view_agreement_csv(tmp_path / "view_agreement.csv", va)
    rows = list(csv.DictReader(path.open()))
    assert [r["view"] for r in rows] == ["signal", "noise"] and rows[0]["weight"] == "0.8"
    assert float(rows[0]["agreeing_share"]) > 0.95


def test_a_sample_missing_a_view_is_judged_by_the_views_it_has():
    views, labels = _informative_and_noise()
    observed = np.ones((300, 2), dtype=bool)
    observed[:40, 0] = False
    views[0][:40] = 0.0  # never read
    va = view_agreement(views, labels, 3, observed=observed)
    assert va.n_observed.tolist() == [260, 300]
    assert (va.view_labels[0, :40] == -1).all() and not va.agree[0, :40].any()
    np.testing.assert_array_equal(va.per_sample[:40], va.agree[1, :40].astype(float))
    assert va.ari[0] > 0.9 and va.weights is None


def _fitted(views, method: str = "fmdc"):
    ds = MultiViewDataset(views, view_names=["signal", "noise"])
    prepared, transforms = prepare_views(ds.views, "zscore")
    solver = REGISTRY[method].from_params({"n_clusters": 3, "max_iter": 10})
    solver.fit(prepared)
    return RunResult.from_fit(solver, ds, transforms=transforms), ds


def test_explain_sample_votes_through_the_run_prediction_reference():
    views, _ = _informative_and_noise()
    result, ds = _fitted(views)
    i = 17
    ex = explain_sample(result, ds.views, i)
    assert ex.index == i and ex.cluster == int(result.labels[i])
    assert ex.view_names == ["signal", "noise"]
    assert ex.votes.shape == (2, 3)
    np.testing.assert_allclose(ex.votes.sum(axis=1), 1.0)
    assert ex.votes[0].max() > 0.9  # the informative view votes clearly
    assert ex.predicted == int(result.prediction.predict(ds)[i])  # what mvc predict says
    assert ex.votes[0].argmax() == ex.cluster == ex.predicted
    near = ex.neighbour_clusters[0]
    assert near.size == 10 and np.mean(near == ex.cluster) > 0.9
    assert np.all(np.diff(ex.distances[0]) >= 0)
    assert ex.reference


def test_explain_sample_of_a_prediction_model_and_a_missing_view():
    views, _ = _informative_and_noise()
    result, ds = _fitted(views)
    observed = np.ones((300, 2), dtype=bool)
    observed[5, 1] = False
    ex = explain_sample(result.prediction, ds.views, 5, observed=observed)
    assert np.isnan(ex.votes[1]).all() and ex.neighbours[1].size == 0
    assert ex.weights[1] == 0 and ex.predicted == ex.cluster == int(ex.votes[0].argmax())
    with pytest.raises(DataError, match="no sample 301"):
        explain_sample(result, ds.views, 300)
    with pytest.raises(DataError, match="fitted on 6"):
        explain_sample(result, [ds.views[0][:, :4], ds.views[1]], 0)


@pytest.mark.parametrize("blocks", [True, False])
def test_a_large_view_is_clustered_on_a_subsample(monkeypatch, blocks):
    """Above FIT_ROWS observed rows a view (a row-block one is then never gathered whole) is
    clustered on a seeded subsample and the other rows are assigned by that clustering."""
    from core.analysis import view_agreement as va_module
    from core.data.blocks import ArraySource

    views, labels = _informative_and_noise()
    observed = np.ones((300, 2), dtype=bool)
    observed[:30, 0] = False
    monkeypatch.setattr(va_module, "FIT_ROWS", 120)
    monkeypatch.setattr(va_module, "ASSIGN_ROWS", 50)
    gathered = []
    real = va_module._gather
    monkeypatch.setattr(
        va_module, "_gather", lambda x, rows: gathered.append(rows.sum()) or real(x, rows)
    )
    first = ArraySource(views[0], block_rows=64) if blocks else views[0]
    source = [first, views[1]]
    va = view_agreement(source, labels, 3, observed=observed)
    assert gathered[0] == 120  # the subsample only
    assert (va.view_labels[0, 30:] >= 0).all() and (va.view_labels[0, :30] == -1).all()
    assert va.ari[0] > 0.9 and va.n_observed[0] == 270
