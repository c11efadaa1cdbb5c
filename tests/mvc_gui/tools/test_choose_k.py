"""Choosing k in the window: unlabelled data defaults to "auto" (not 2), the run's estimate
is drawn as its gap-score curve with the three ranked candidates marked (neighbours under
one label) and listed, the run
says "k = 4 (also plausible: ...)", a click on a point or a listed candidate picks another k;
an estimate stored before the ranking still shows; "Suggest parameters" applies a cell."""

from __future__ import annotations

import numpy as np

from core.data.dataset import MultiViewDataset
from mvc_gui.model.data_session import DataSession
from tests.conftest import make_blobs_views


def _set_unlabelled(window, c=4):
    views, _ = make_blobs_views(n=160, c=c, dims=(4, 6))
    ds = MultiViewDataset(views=views, labels=None, view_names=["a", "b"], name="nolabels")
    window.set_session(DataSession(ds), ds.summary())


def test_unlabelled_data_defaults_to_auto_and_shows_the_estimate(qtbot, window):
    panel = window.method_panel
    _set_unlabelled(window)
    editor = panel.form().editors["n_clusters"]
    assert panel.params()["n_clusters"] == "auto" and editor._auto.isChecked()
    panel.set_params({"max_iter": 3, "delay": 0.0})
    with qtbot.waitSignal(window.controller.run_finished, timeout=120_000):
        window.run()
    history = window.controller.history
    est = history.result.n_clusters_estimate
    assert est["k"] == 4 and np.unique(history.result.labels).size == 4
    tool = window.tools.choose_k
    ranked = est["ranked"]
    said = f"k = 4 (also plausible: {ranked[1]}, {ranked[2]})"
    assert ranked[0] == 4 and len(ranked) >= 3
    # the curve they come from, with the three candidates marked on it at their k
    plot = tool.plot
    assert plot.selected == 4 and plot.curve.xData.size == len(est["curve"])
    assert plot.curve.xData[0] == 2 and plot.chosen_line.value() == 4
    marked = sorted(int(x) for x in plot.markers.getData()[0])
    assert ranked[:3] == [4, 3, 5] and marked == [3, 4, 5]
    # neighbours share one label (three labels on adjacent points overlap)
    assert [lab.toPlainText() for lab in plot.labels] == ["4 (3, 5)"]
    left, right = plot.plot.viewRange()[0]  # opens on the candidates, not the whole tail
    assert left < 3 and 5 < right <= 22
    # the short list, best first, and the run's own texts: never a bare estimate
    items = [tool.candidates.item(i).text() for i in range(tool.candidates.count())]
    assert len(items) == 3 and items[0].startswith("1. k = 4: gap score 1.00, stability ")
    assert items[1].startswith(f"2. k = {ranked[1]}: gap score ")
    assert said in tool.status.text() and said in plot.title.text()
    assert f"finished with {said}" in window.presenter.results.status.text()
    tool.plot.k_clicked.emit(5)  # as a click on the 5th point does
    assert panel.params()["n_clusters"] == 5 and not editor._auto.isChecked()
    tool.candidates.itemClicked.emit(tool.candidates.item(1))  # the second candidate
    assert panel.params()["n_clusters"] == ranked[1] and plot.selected == ranked[1]
    panel.set_default_clusters(3)  # labelled data: the class count, as before
    assert panel.params()["n_clusters"] == 3


def test_an_estimate_stored_before_the_ranking_shows_its_eigenvalues(window):
    """Runs and sessions saved by earlier versions hold k, runner_up and eigenvalues only."""
    old = {
        "k": 4,
        "runner_up": 3,
        "eigenvalues": [1.0, 0.98, 0.97, 0.95, 0.4, 0.3],
        "candidates": [4, 3, 2],
        "gaps": [0.55, 0.02, 0.01],
        "stability": [1.0, 0.9, 0.8],
        "seconds": 0.2,
    }
    tool = window.tools.choose_k
    tool.show_estimate(old, "Reopened.")
    assert list(tool.plot.curve.xData) == [1, 2, 3, 4, 5, 6]
    assert tool.plot.chosen_line.value() == 4.5  # in the drop after the 4th eigenvalue
    assert "k = 4 (also plausible: 3)" in tool.plot.title.text()
    items = [tool.candidates.item(i).text() for i in range(tool.candidates.count())]
    assert items == [
        "1. k = 4: gap score 0.55, stability 1.00",
        "2. k = 3: gap score 0.02, stability 0.90",
    ]


def test_estimate_now_runs_in_a_worker_and_draws(qtbot, window):
    _set_unlabelled(window, c=3)
    tool = window.tools.choose_k
    worker = tool.estimate()
    with qtbot.waitSignal(worker.done, timeout=120_000):
        pass
    assert tool.plot.estimate["k"] == 3 and tool.plot.selected == 3
    assert (
        tool.candidates.count() == 3 and "Estimated k = 3 (also plausible: " in tool.status.text()
    )
    # k = 3 is small: the dock says it may be the coarse split of finer groups
    assert "Note: A small estimate can be the coarse split of finer groups" in tool.status.text()


def test_suggest_parameters_applies_the_best_cell(qtbot, loaded):
    panel = loaded.method_panel
    panel.set_method("kmeans-concat")
    assert panel.suggest_button.isEnabled()
    panel.set_params({"n_init": 3})
    worker = loaded.tools.choose_k.suggest()
    with qtbot.waitSignal(worker.done, timeout=60_000):
        pass
    assert panel.params()["n_init"] in (1, 10)
    assert "Suggested for kmeans-concat" in loaded.tools.choose_k.status.text()


def test_distinct_candidates_keep_a_label_each(window):
    """Estimates that show distinct peaks (alternatives="distinct", or saved that way)."""
    curve = [1.0, 0.4, 0.1, 0.3, 0.33, 0.1, 0.2, 0.1, 0.05, 0.2, 0.1, 0.1, 0.1, 0.48, 0.1]
    est = {
        "k": 3,
        "runner_up": 15,
        "eigenvalues": [1.0, 0.9, 0.8, 0.5],
        "candidates": [3, 15, 6],
        "gaps": [0.4, 0.48, 0.33],
        "stability": [0.99, 0.76, 0.72],
        "ranked": [3, 15, 6],
        "scores": [0.4, 0.48, 0.33],
        "curve": curve,
        "curve_k0": 2,
        "seconds": 0.1,
    }
    tool = window.tools.choose_k
    tool.show_estimate(est, "Reopened.")
    assert [lab.toPlainText() for lab in tool.plot.labels] == ["3", "15", "6"]
    assert "k = 3 (also plausible: 15, 6)" in tool.plot.title.text()
    assert tool.plot.plot.viewRange()[0][1] >= 16  # the farthest candidate is in view


def test_every_method_and_the_dock_estimate_the_same_k_in_the_window(qtbot):
    """The estimate is the data's, not the method's: the window's runs (thread and child
    process) and the Number of clusters dock read the views as the ``general`` rule prepares
    them, as mvc run does (tests/core/cli/test_auto_k_every_method.py)."""
    from core.data.preprocessing import preprocess
    from core.numerics.n_clusters import estimate_n_clusters
    from mvc_gui.run.controller import RunController
    from mvc_gui.tools.choose_k import _estimate
    from tests.core.cli.test_auto_k_every_method import word_counts

    views = word_counts()
    ds = MultiViewDataset(views=views, labels=None, view_names=["a", "b"], name="counts")
    want = estimate_n_clusters(preprocess(views, "auto", "general")[0], 0).ranked
    for use_process in (False, True):
        controller = RunController(use_process=use_process)
        try:
            for method in ("alpc", "dtll"):  # raw counts, tf-idf: not the general rule
                session = DataSession(ds)
                with qtbot.waitSignal(controller.run_finished, timeout=300_000):
                    controller.start(method, {"n_clusters": "auto", "max_iter": 3}, session)
                assert controller.history.result.n_clusters_estimate["ranked"] == want, method
                assert _estimate(session, 0)["ranked"] == want  # (its rule is the method's)
        finally:
            assert controller.shutdown(5.0)
