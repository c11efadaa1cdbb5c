"""Exports carry the solver's own cluster numbers (issue 14, item 6): the GUI renumbers
clusters only to keep colours steady, so its labels CSV equals ``mvc run``'s."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from core.cli.main import main as mvc
from core.methods.base import REGISTRY
from tests.mvc_gui.fake_solver import RotatingFakeSolver


@pytest.fixture
def rotating():
    REGISTRY["fake_rotating"] = RotatingFakeSolver
    yield
    REGISTRY.pop("fake_rotating", None)


def _rows(path):
    return list(csv.reader(open(path)))


def test_gui_labels_csv_equals_cli(
    threads, rotating, qtbot, window, small_dataset, tmp_path, monkeypatch
):
    data = tmp_path / "blobs.npz"
    np.savez(data, X0=small_dataset.views[0], X1=small_dataset.views[1], y=small_dataset.labels)
    window.open_path(str(data))
    qtbot.waitUntil(lambda: window.session is not None, timeout=60_000)
    window.method_panel.refresh_methods()
    window.method_panel.set_method("fake_rotating")
    window.method_panel.set_params({"n_clusters": 3, "max_iter": 8, "delay": 0.0})
    with qtbot.waitSignal(window.controller.run_finished, timeout=120_000):
        window.run()
    gui_csv = tmp_path / "gui.csv"
    monkeypatch.setattr(window, "ask_save_path", lambda *a: str(gui_csv))
    window.export_labels()

    cli_csv = tmp_path / "cli.csv"
    argv = ["run", str(data), "--method", "fake_rotating", "--n-clusters", "3"]
    assert mvc([*argv, "--max-iter", "8", "--delay", "0", "--quiet", "--out", str(cli_csv)]) == 0
    assert _rows(gui_csv) == _rows(cli_csv)
    # the display keeps its steady colours (first numbers rotated by 1, the last by 8 % 3):
    # a permutation of the exported numbers
    shown = window.controller.history.labels
    exported = np.array([int(r[1]) for r in _rows(gui_csv)[1:]])
    assert not np.array_equal(shown, exported)
    assert len(set(zip(shown.tolist(), exported.tolist(), strict=True))) == 3
