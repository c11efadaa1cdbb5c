"""File > Assign new samples... (issue 14, item 2): the run on display assigns the samples
of another file and writes their labels; a file with other features is refused in words."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from core.numerics.metrics import all_metrics
from mvc_gui.tools.assign import assign_file
from tests.conftest import make_blobs_views


@pytest.fixture(params=["process", "thread"])
def solver_mode(request, monkeypatch):
    """The prediction statistics are computed where the run ran (solver child or worker
    thread), never in the GUI thread: both places must hand them over."""
    monkeypatch.setenv("MVC_GUI_SOLVER", request.param)
    return request.param


def test_assign_new_samples_from_the_window(qtbot, solver_mode, window, tmp_path):
    from core.data.dataset import MultiViewDataset
    from mvc_gui.model.data_session import DataSession

    views, labels = make_blobs_views(n=300, c=3, dims=(4, 6), seed=5)
    ds = MultiViewDataset(views=[v[:240] for v in views], labels=labels[:240], name="fit")
    window.set_session(DataSession(ds), ds.summary())
    window.method_panel.set_method("fmdc")
    window.method_panel.set_params({"n_clusters": 3, "max_iter": 10})
    with qtbot.waitSignal(window.controller.run_finished, timeout=60_000):
        window.run()
    assert window.controller.use_process == (solver_mode == "process")
    model = window.presenter.history.prediction
    assert model is not None and model.view_indices == [0, 1]
    new = tmp_path / "new.npz"
    np.savez(new, X0=views[0][240:], X1=views[1][240:], y=labels[240:])
    out = tmp_path / "assigned.csv"
    assign_file(window, model, str(new), str(out))  # read in the loader child, then assigned
    qtbot.waitUntil(lambda: "Assigned 60 samples" in window.stage_label.text(), timeout=60_000)
    # what the assignment rests on, and how far it reproduces the run's own labels
    assert "reproduces" in window.stage_label.toolTip()
    assert window.messages.level == "info" and "reference points: " in window.messages.text
    got = np.array([int(r["cluster"]) for r in csv.DictReader(open(out))])
    assert got.size == 60 and all_metrics(labels[240:], got)["acc"] >= 0.95
    bad = tmp_path / "bad.npz"
    np.savez(bad, X0=views[0][240:, :3], X1=views[1][240:], y=labels[240:])
    assign_file(window, model, str(bad), str(tmp_path / "never.csv"))
    qtbot.waitUntil(lambda: window.messages.level == "error", timeout=60_000)
    assert "3 features" in window.messages.text and not (tmp_path / "never.csv").exists()
