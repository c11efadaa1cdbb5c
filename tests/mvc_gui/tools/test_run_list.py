"""The "Runs" dock: runs fill the list, are shown again, compared and exported."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from core.numerics.metrics import adjusted_rand
from mvc_gui.model.data_session import DataSession
from tests.conftest import make_blobs_views


def _run(qtbot, win, **params):
    win.method_panel.set_params({"max_iter": 5, "delay": 0.0, **params})
    with qtbot.waitSignal(win.controller.run_finished, timeout=120_000):
        win.run()
    return win.controller.history


def _cells(panel, row):
    return [panel.table.item(row, c).text() for c in range(panel.table.columnCount())]


def test_runs_fill_the_list_as_they_finish_or_stop(qtbot, loaded):
    panel = loaded.tools.runs
    h1 = _run(qtbot, loaded, lam=0.5)
    loaded.method_panel.set_params({"max_iter": 1000, "delay": 0.05, "random_state": 9})
    loaded.run()
    qtbot.waitUntil(lambda: loaded.controller.history.labels is not None, timeout=60_000)
    with qtbot.waitSignal(loaded.controller.run_stopped, timeout=120_000):
        loaded.stop()
    assert [e.number for e in panel.entries] == [1, 2]
    first, second = _cells(panel, 0), _cells(panel, 1)
    assert first[:2] == ["1", "fake"]
    # only what differs from the defaults (n_clusters defaults to the 3 classes)
    assert first[2] == "max_iter=5, lam=0.5, delay=0"
    assert first[3] == "0" and first[5] == "5" and first[9] == "finished"
    assert first[6] == f"{h1.result.metrics['acc']:.4f}"
    assert first[8] == f"{h1.result.metrics['ari']:.4f}"
    assert first[4].endswith(" s")
    assert second[3] == "9" and second[9] == "stopped"
    assert panel.entries[1].seconds > 0  # a stopped run has no record time: the last state's
    assert panel.entries[0].history is h1


def test_show_redisplays_a_past_run_and_exports_follow_it(
    threads, qtbot, loaded, tmp_path, monkeypatch
):
    panel = loaded.tools.runs
    ha = _run(qtbot, loaded, n_clusters=3, max_iter=4)
    hb = _run(qtbot, loaded, n_clusters=2, max_iter=6)
    assert not np.array_equal(ha.labels, hb.labels)
    assert panel.show_entry(panel.entries[0])
    plots = loaded.plots
    np.testing.assert_array_equal(plots["embedding"].labels, ha.labels)
    x, y = plots["convergence"].curve.getData()
    assert list(x) == ha.iterations and list(y) == pytest.approx(ha.objective)
    assert plots["heatmap"].heat is ha.heat
    np.testing.assert_allclose(plots["weights"].target, ha.result.view_weights)
    assert loaded.results_panel.legend.count() == 3
    assert "run #1" in loaded.results_panel.status.text()
    assert loaded.results_panel.table.item(0, 1).text() == f"{ha.result.metrics['acc']:.4f}"
    target = tmp_path / "labels.csv"
    monkeypatch.setattr(loaded, "ask_save_path", lambda *a: str(target))
    loaded.export_labels()
    assert [int(r[1]) for r in list(csv.reader(open(target)))[1:]] == ha.labels.tolist()
    # a later live run takes the plots and the exports back
    hc = _run(qtbot, loaded, n_clusters=2, max_iter=3)
    np.testing.assert_array_equal(plots["embedding"].labels, hc.labels)
    assert list(plots["convergence"].curve.getData()[0]) == [1, 2, 3]
    loaded.export_labels()
    assert [int(r[1]) for r in list(csv.reader(open(target)))[1:]] == hc.labels.tolist()
    assert loaded.results_panel.legend.count() == 2


def test_compare_identical_and_different_runs(threads, qtbot, loaded, tmp_path, monkeypatch):
    panel = loaded.tools.runs
    _run(qtbot, loaded, n_clusters=3, random_state=1)
    _run(qtbot, loaded, n_clusters=3, random_state=1)
    _run(qtbot, loaded, n_clusters=2, random_state=1, lam=2.0)
    panel.select_numbers([1, 2])
    assert panel.buttons["compare"].isEnabled() and not panel.buttons["show"].isEnabled()
    same = panel.compare_selected()
    qtbot.addWidget(same)
    assert same.agreement["ari"] == pytest.approx(1.0)
    assert same.agreement["nmi"] == pytest.approx(1.0)
    counts = same.contingency.counts
    assert np.trace(counts) == counts.sum() == 150
    assert same.differences == []
    assert len(same.curves.curves) == 2
    assert list(same.curves.curves[1].getData()[0]) == [1, 2, 3, 4, 5]
    panel.select_numbers([1, 3])
    other = panel.compare_selected()
    qtbot.addWidget(other)
    a, b = panel.entries[0].result.labels, panel.entries[2].result.labels
    assert other.agreement["ari"] == pytest.approx(adjusted_rand(a, b))
    assert other.agreement["ari"] < 1.0
    assert other.contingency.counts.shape == (3, 2)
    assert {"n_clusters", "lam"} <= set(other.differences)
    assert "random_state" not in other.differences
    diff_row = [other.params.item(r, 0).text() for r in range(other.params.rowCount())].index("lam")
    assert (
        other.params.item(diff_row, 1).text() == "1"
        and other.params.item(diff_row, 2).text() == "2"
    )
    assert other.params.item(diff_row, 1).font().bold()
    assert "differ in: n_clusters, lam" in other.summary.text()
    target = tmp_path / "agreement.png"
    monkeypatch.setattr(loaded, "ask_save_path", lambda *a: str(target))
    other.matrix.export_button.click()
    assert target.stat().st_size > 1000


def test_export_table_remove_clear_and_cap(threads, qtbot, loaded, tmp_path, monkeypatch):
    panel = loaded.tools.runs
    panel.max_runs = 2
    for seed in (1, 2, 3):
        _run(qtbot, loaded, random_state=seed)
    assert [e.number for e in panel.entries] == [2, 3]
    assert "#1" in panel.note.text() and "last 2" in panel.note.text()
    (tmp_path / "out").mkdir()
    target = tmp_path / "out" / "runs.csv"
    monkeypatch.setattr(loaded, "ask_save_path", lambda *a: str(target))
    panel.export_csv()
    rows = list(csv.DictReader(open(target)))
    assert [r["run"] for r in rows] == ["2", "3"] and [r["seed"] for r in rows] == ["2", "3"]
    assert rows[0]["method"] == "fake" and rows[0]["status"] == "finished"
    assert float(rows[1]["acc"]) == pytest.approx(panel.entries[1].result.metrics["acc"], abs=1e-6)
    assert rows[0]["iterations"] == "5" and float(rows[0]["seconds"]) > 0
    assert [p.name for p in target.parent.iterdir()] == ["runs.csv"]  # no temporary file left
    panel.select_numbers([2])
    panel.remove_selected()
    assert [e.number for e in panel.entries] == [3] and panel.table.rowCount() == 1
    panel.clear()
    assert panel.entries == [] and panel.table.rowCount() == 0
    assert not panel.buttons["export"].isEnabled()


def test_use_parameters_and_refusals(threads, qtbot, loaded):
    panel = loaded.tools.runs
    _run(qtbot, loaded, lam=0.25, mode="b")
    loaded.method_panel.set_params({"lam": 3.0, "mode": "a"})
    panel.select_numbers([1])
    panel.use_selected()
    params = loaded.method_panel.params()
    assert params["lam"] == pytest.approx(0.25) and params["mode"] == "b"
    # showing is refused during a live run
    loaded.method_panel.set_params({"max_iter": 1000, "delay": 0.05})
    loaded.run()
    assert not panel.show_entry(panel.entries[0])
    assert "run is in progress" in loaded.messages.text
    with qtbot.waitSignal(loaded.controller.run_stopped, timeout=120_000):
        loaded.stop()
    # runs made on other data are greyed and cannot be shown
    views, labels = make_blobs_views(n=60, c=3, dims=(4, 6))
    from core.data.dataset import MultiViewDataset

    other = MultiViewDataset(views, labels, ["alpha", "beta"], name="other", source="other")
    loaded.set_session(DataSession(other), other.summary())
    assert panel.table.item(0, 1).foreground().color().name() == "#9aa3ad"
    assert not panel.show_entry(panel.entries[0])
    assert "not on the data loaded now" in loaded.messages.text
    assert loaded.plots["embedding"].labels is None


def test_consensus_of_selected_runs_is_a_run_of_its_own(threads, qtbot, loaded, tmp_path):
    """Runs dock > Consensus (issue 14, item 3): LWGP of three runs joins the list with
    the agreement between the runs in the note; its labels export like any run's."""
    panel = loaded.tools.runs
    for seed in (1, 2, 3):
        _run(qtbot, loaded, n_clusters=3, random_state=seed)
    panel.select_numbers([1, 2, 3])
    assert panel.buttons["consensus"].isEnabled()
    assert panel.consensus_selected() is not None
    qtbot.waitUntil(lambda: len(panel.entries) == 4, timeout=120_000)
    entry = panel.entries[-1]
    assert entry.history.method == "consensus" and entry.result.params["runs"] == [1, 2, 3]
    assert (
        "Agreement (ARI) #1-#2" in panel.note.text() and "with the consensus" in panel.note.text()
    )
    truth = loaded.session.labels
    best = max(adjusted_rand(truth, e.result.labels) for e in panel.entries[:3])
    assert adjusted_rand(truth, entry.result.labels) >= best - 0.05
    assert panel.show_entry(entry)
    out = tmp_path / "consensus.csv"
    loaded.ask_save_path = lambda *a: str(out)
    loaded.export_labels()
    rows = list(csv.DictReader(open(out)))
    assert [int(r["cluster"]) for r in rows] == entry.result.labels.tolist()
