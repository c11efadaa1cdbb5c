"""Files that store missing views as all-zero rows plus an indicator load as incomplete."""

from __future__ import annotations

import numpy as np
import scipy.io

from core.data.io import load_dataset


def _file(tmp_path, indicator=None, name="MissingStatus"):
    rng = np.random.default_rng(0)
    n = 40
    x1, x2 = rng.random((n, 5)) + 0.1, rng.random((n, 3)) + 0.1
    observed = np.ones((n, 2), dtype=bool)
    observed[:8, 0] = False
    observed[30:, 1] = False
    x1[~observed[:, 0]] = 0
    x2[~observed[:, 1]] = 0
    data = {"X": np.array([x1.T, x2.T], dtype=object).reshape(1, 2), "Y": np.arange(n) % 4 + 1}
    if indicator is not None:
        data[name] = indicator(observed).astype(np.uint8)
    path = tmp_path / "incomplete.mat"
    scipy.io.savemat(path, data)
    return path, observed


def test_indicator_matching_the_zero_rows_sets_observed(tmp_path):
    for polarity in (lambda o: o, lambda o: ~o):  # 1 = observed, or 1 = missing
        path, observed = _file(tmp_path, polarity)
        ds = load_dataset(path)
        np.testing.assert_array_equal(ds.observed, observed)
        assert not ds.complete
        assert any("18 of 40 samples miss at least one view" in w for w in ds.warnings)


def test_indicator_not_matching_the_data_falls_back_to_the_zero_rows(tmp_path):
    path, observed = _file(tmp_path, lambda o: np.roll(o, 5, axis=0))
    ds = load_dataset(path)
    np.testing.assert_array_equal(ds.observed, observed)
    assert any("does not match the all-zero rows" in w for w in ds.warnings)


def test_zero_rows_without_an_indicator_are_data(tmp_path):
    path, _ = _file(tmp_path)
    ds = load_dataset(path)
    assert ds.observed is None and ds.complete


def test_cli_runs_incomplete_files_with_methods_that_handle_them(tmp_path, capsys):
    from core.cli.main import main

    path, _ = _file(tmp_path, lambda o: o)
    assert main(["info", str(path)]) == 0
    assert "18 of 40 samples miss at least one view" in capsys.readouterr().out
    assert main(["run", str(path), "--method", "fmdc", "--quiet"]) == 0
    assert "ACC" in capsys.readouterr().out
    assert main(["run", str(path), "--method", "dtll", "--quiet"]) == 0  # handles them too
    assert "ACC" in capsys.readouterr().out
    assert main(["run", str(path), "--method", "rg-mvc", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "--method rg-mvc needs every view of every sample, but 18 sample(s)" in err
