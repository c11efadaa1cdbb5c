"""The solver contract, checked for every registered method (scikit-learn style)."""

from __future__ import annotations

import inspect
import pickle
import pydoc

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.metrics import adjusted_rand_score

from conftest import make_blobs_views
from core.data.dataset import DataError
from core.methods import REGISTRY
from core.methods.base import IterationState
from core.methods.docstrings import COMMON_ATTRIBUTES
from core.methods.params import ParamError

NAMES = sorted(REGISTRY)


@pytest.fixture(scope="module")
def blobs():
    views, labels = make_blobs_views(n=90, c=3, dims=(4, 6), sep=8.0, seed=3)
    return views, labels


def _solver(name: str, **kw):
    return REGISTRY[name](n_clusters=3, **kw)


@pytest.mark.parametrize("name", NAMES)
def test_spec_matches_init_signature(name):
    cls = REGISTRY[name]
    assert set(cls.param_spec.names()) == set(cls().get_params())
    assert cls.title and cls.summary and cls.reference
    for p in cls.param_spec:
        assert p.help, f"{name}.{p.name} needs help text (it is the GUI tooltip)"
        p.check(p.default)  # the default itself is valid


@pytest.mark.parametrize("name", NAMES)
def test_spec_defaults_are_the_init_defaults(name):
    cls = REGISTRY[name]
    init = inspect.signature(cls.__init__).parameters
    for p in cls.param_spec:
        assert init[p.name].default == p.default, f"{name}.{p.name}: spec and __init__ differ"


@pytest.mark.parametrize("name", NAMES)
def test_help_lists_every_parameter_and_attribute(name):
    cls = REGISTRY[name]
    text = pydoc.render_doc(cls, renderer=pydoc.plaintext)
    assert "Parameters" in text and "Attributes" in text
    for p in cls.param_spec:
        assert f"{p.name} : " in text, f"help({cls.__name__}) does not list {p.name}"
    for attr in cls.own_attributes:
        assert f"{attr} : " in text


@pytest.mark.parametrize("name", NAMES)
def test_fitted_attributes_are_the_documented_ones(name, blobs):
    cls = REGISTRY[name]
    fitted = {a for a in vars(_solver(name).fit(blobs[0])) if a.endswith("_")}
    documented = set(COMMON_ATTRIBUTES) | set(cls.own_attributes)
    assert fitted <= documented, f"undocumented: {sorted(fitted - documented)}"
    always = {a for a, text in cls.own_attributes.items() if "only" not in text}
    assert always <= fitted, f"documented but not set: {sorted(always - fitted)}"


@pytest.mark.parametrize("name", NAMES)
def test_clone_and_no_fitted_attributes_before_fit(name):
    s = _solver(name)
    c = clone(s)
    assert c.get_params() == s.get_params()
    assert not [a for a in vars(s) if a.endswith("_") and not a.startswith("_")]


@pytest.mark.parametrize("name", NAMES)
def test_fit_contract_and_determinism(name, blobs):
    views, truth = blobs
    a = _solver(name, random_state=7)
    assert a.fit(views) is a
    assert a.labels_.shape == (90,) and a.labels_.dtype == np.int64
    assert a.n_iter_ <= a.max_iter
    b = _solver(name, random_state=7).fit(views)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    # well-separated blobs: every method must find them
    assert adjusted_rand_score(truth, a.labels_) == pytest.approx(1.0)
    assert np.array_equal(a.fit_predict(views), a.labels_)
    pickle.loads(pickle.dumps(a))


@pytest.mark.parametrize("name", NAMES)
def test_iterate_ends_like_fit(name, blobs):
    views, _ = blobs
    states = list(_solver(name).iterate(views))
    assert all(isinstance(s, IterationState) for s in states)
    assert states[-1].final and states[-1].stage == "done"
    assert not any(s.final for s in states[:-1])
    progress = [s.progress for s in states]
    assert progress == sorted(progress) and progress[-1] == 1.0
    fitted = _solver(name).fit(views)
    np.testing.assert_array_equal(states[-1].labels, fitted.labels_)
    iters = [s for s in states if s.stage == "iterating"]
    assert iters, "at least one iteration state"
    if fitted.view_weights_ is not None:
        assert states[-1].view_weights.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("name", NAMES)
def test_closing_early_leaves_solver_unfitted(name, blobs):
    views, _ = blobs
    s = _solver(name)
    gen = s.iterate(views)
    next(gen)
    gen.close()
    assert not hasattr(s, "labels_")
    s.fit(views)  # still usable afterwards
    gen = s.iterate(views)
    next(gen)
    gen.close()
    assert not hasattr(s, "labels_"), "a stopped re-run must not leave old results behind"


@pytest.mark.parametrize("name", NAMES)
def test_invalid_parameters_name_the_parameter(name, blobs):
    views, _ = blobs
    with pytest.raises(ParamError, match=r"'max_iter'.*must be"):
        _solver(name, max_iter=0).fit(views)
    with pytest.raises(ParamError, match="'n_clusters'"):
        REGISTRY[name](n_clusters=1).fit(views)


@pytest.mark.parametrize("name", NAMES)
def test_bad_views_are_rejected_clearly(name, blobs):
    views, _ = blobs
    from core.data.dataset import DataError

    with pytest.raises(DataError, match="different numbers of samples"):
        _solver(name).fit([views[0], views[1][:50]])
    bad = views[0].copy()
    bad[5, 2] = np.nan
    with pytest.raises(DataError, match="row 5, column 2"):
        _solver(name).fit([bad, views[1]])
    assert np.isnan(bad[5, 2]), "inputs are never modified"


def test_deprecated_solvers_alias_still_imports_with_a_warning():
    """``core.solvers`` moved to ``core.methods`` in 0.2 and stays importable for one release."""
    import importlib
    import sys

    sys.modules.pop("core.solvers", None)
    with pytest.warns(DeprecationWarning, match="core.methods"):
        alias = importlib.import_module("core.solvers")
    from core.methods import FMDC
    from core.solvers.base import IterationState as AliasState

    assert alias.FMDC is FMDC and AliasState is IterationState


@pytest.mark.parametrize("name", NAMES)
def test_missing_views_are_refused_or_handled(name, blobs):
    """An all-True mask is complete data; a method that cannot handle samples missing from
    a view says so by name instead of clustering zeros."""
    views, _ = blobs
    cls = REGISTRY[name]
    full = np.ones((views[0].shape[0], len(views)), dtype=bool)
    a = _solver(name, random_state=0).fit(views)
    b = _solver(name, random_state=0).fit(views, observed=full)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    partial = full.copy()
    partial[:10, 0] = False
    if not cls.supports_incomplete:
        with pytest.raises(DataError, match=f"{cls.__name__} needs every view"):
            _solver(name).fit(views, observed=partial)
