"""float32 path of the anchor methods: the data stay float32 (never copied to float64), the
labels match float64, and "auto" picks float32 only for large or already-float32 data."""

from __future__ import annotations

import numpy as np
import pytest

from core.data.demo import make_synthetic
from core.methods import REGISTRY
from core.methods.params import ParamError
from core.numerics.metrics import accuracy
from core.numerics.precision import FLOAT32_ABOVE, prefer_float32, resolve_dtype

ANCHOR_METHODS = ("fmdc", "alpc", "dtll", "mvsc-hfd")


@pytest.fixture(scope="module")
def data():
    return make_synthetic(600, (20, 40), 4, seed=3, separation=3.0)


@pytest.mark.parametrize("name", ANCHOR_METHODS)
def test_float32_labels_match_float64(data, name):
    # data representable in float32, so only the computation differs (rounding the input
    # itself moves ALPC's and DTLL's results as much: docs/benchmarks/float32.md)
    views = [x.astype(np.float32).astype(np.float64) for x in data.views]
    fits = {
        dt: REGISTRY[name].from_params({"n_clusters": 4, "dtype": dt}).fit(views)
        for dt in ("float64", "float32")
    }
    acc = {dt: accuracy(data.labels, f.labels_) for dt, f in fits.items()}
    assert abs(acc["float32"] - acc["float64"]) <= 0.01
    assert accuracy(fits["float64"].labels_, fits["float32"].labels_) >= 0.97


def test_float32_views_are_not_copied_to_float64(data, monkeypatch):
    import core.methods.base as base

    seen = []
    real = base.check_views

    def spy(*args, **kw):
        out = real(*args, **kw)
        seen.extend(x.dtype for x in out)
        return out

    monkeypatch.setattr(base, "check_views", spy)
    views32 = [x.astype(np.float32) for x in data.views]
    REGISTRY["fmdc"].from_params({"n_clusters": 4}).fit(views32)  # dtype="auto"
    assert seen and all(d == np.float32 for d in seen)


def test_auto_dtype_rule():
    small = [np.zeros((10, 3))]
    assert resolve_dtype("auto", small) is np.float64
    assert resolve_dtype("auto", [np.zeros((10, 3), np.float32)]) is np.float32
    big = [np.broadcast_to(np.zeros(1), (FLOAT32_ABOVE // 10 + 1, 10))]
    assert resolve_dtype("auto", big) is np.float64  # no float32 copy next to the caller's
    assert prefer_float32(big) and not prefer_float32(small)
    assert resolve_dtype("float64", [np.zeros((2, 2), np.float32)]) is np.float64
    with pytest.raises(ValueError, match="dtype"):
        resolve_dtype("half", small)


def test_bad_dtype_parameter_is_refused():
    with pytest.raises(ParamError, match="dtype"):
        REGISTRY["fmdc"].from_params({"n_clusters": 2, "dtype": "float16"})
