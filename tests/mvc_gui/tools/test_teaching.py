"""Teaching mode: explanations for every method, live step highlighting, Step, playback."""

from __future__ import annotations

import re

import numpy as np
import pytest

from core.data.demo import make_blobs_noisy_view
from core.methods import REGISTRY
from mvc_gui.model.teaching_texts import HIGHLIGHT, describe_state, method_text, render_html
from resources import resource_path
from tests.mvc_gui.fake_solver import FakeSolver

REAL_METHODS = [name for name in REGISTRY if name != "fake"]


class MovingSolver(FakeSolver):
    """Labels that change every iteration (iteration t moves 4t samples to cluster 0), so
    the state of every iteration differs from the final one."""

    name = "moving"

    def _run(self, views, rep):
        n = views[0].shape[0]
        base = np.arange(n) % self.n_clusters
        history = []
        for it in range(1, self.max_iter + 1):
            labels = base.copy()
            labels[: 4 * it] = 0
            history.append(10.0 - it)
            w = np.full(len(views), float(it))
            w[0] = 1.0
            yield rep.iteration(it, history[-1], view_weights=w, labels=labels)
        from core.methods.base import FitResult

        return FitResult(labels=labels, objective_history=history, n_iter=self.max_iter,
                         converged=False, view_weights=w / w.sum())  # fmt: skip


@pytest.fixture
def moving():
    REGISTRY["moving"] = MovingSolver
    yield MovingSolver
    REGISTRY.pop("moving", None)


def _run_to_end(qtbot, win, method, **params):
    win.method_panel.refresh_methods()
    win.method_panel.set_method(method)
    win.method_panel.set_params(params)
    with qtbot.waitSignal(win.controller.run_finished, timeout=120_000):
        assert win.run() is not None
    return win.controller.history


@pytest.mark.parametrize("name", REAL_METHODS)
def test_every_method_explains_the_stages_its_solver_runs(name):
    assert resource_path("teaching", f"{name}.html").is_file()
    text = method_text(name)
    assert text.goal and text.formula and text.watch
    ds = make_blobs_noisy_view(n=90, c=3, seed=0)
    solver = REGISTRY[name].from_params({"n_clusters": 3, "max_iter": 3})
    stages = {state.stage for state in solver.iterate(ds.views)}
    assert stages <= set(text.stages()), f"{name}: no text for {stages - set(text.stages())}"
    assert text.stages()[0] == "preprocessing" and text.stages()[-1] == "done"
    assert len(text.steps_of("iterating")) >= 1
    page = render_html(text, "iterating")
    for step in text.steps:
        assert step.title in page
    # the highlight marks exactly the rows of the stage being executed
    highlighted = re.findall(rf"<td bgcolor='{HIGHLIGHT}'[^>]*>(.*?)</td>", page)
    titles = " ".join(highlighted)
    assert all(s.title in titles for s in text.steps_of("iterating"))
    assert not any(s.title in titles for s in text.steps if s.stage != "iterating")
    assert text.maximises == (not REGISTRY[name].objective_decreases)


def test_narration_names_the_executed_steps_and_flags_a_wrong_direction():
    from core.methods.base import IterationState

    fmdc = method_text("fmdc")
    state = IterationState(stage="iterating", iteration=4, objective=2.0, extras={"moved": 7.0})
    line = describe_state(fmdc, state, previous_objective=2.5)
    assert "Iteration 4 just ran" in line and "Y-step" in line and "α-step" in line
    assert "moved</i> = 7" in line and "against" not in line
    assert "against the expected direction" in describe_state(fmdc, state, 1.5)
    dtll = method_text("dtll")  # maximised: a rise is expected
    assert "against" not in describe_state(dtll, state, 1.5)


def test_tools_action_toggles_the_dock_which_follows_the_method_panel(window):
    dock, action = window.tools.teaching.dock, window.tools.teaching.action
    assert dock.isHidden() and action in window.tools_menu.actions()
    assert dock.toggleViewAction() in window.view_menu.actions()
    action.setChecked(True)
    assert not dock.isHidden()
    window.method_panel.set_method("dtll")
    panel = window.tools.teaching.panel
    assert panel.method == "dtll"
    assert "Schatten" in panel.text_view.toPlainText()
    action.setChecked(False)
    assert dock.isHidden()


def test_highlighted_step_follows_the_run_stage(qtbot, loaded):
    panel = loaded.tools.teaching.panel
    seen = []

    def check(history):  # connected after the dock: the panel has already updated
        state = history.last.state
        seen.append(("done" if state.final else state.stage, panel.highlighted_stage))

    loaded.controller.iteration_done.connect(check)
    history = _run_to_end(qtbot, loaded, "fake", n_clusters=3, max_iter=15, delay=0.02)
    assert all(stage == shown for stage, shown in seen), seen
    stages = [stage for stage, _ in seen]
    assert "iterating" in stages and stages[-1] == "done"
    assert panel.highlighted_stage == "done" and "Finished" in panel.narration.text()
    # every iteration's labels reached the history through the solver process
    snaps = history.snapshots
    assert len(snaps) == 16 and [s.iteration for s in snaps[:-1]] == list(range(1, 16))
    assert all(snaps.labels_at(i)[0] is not None for i in range(len(snaps)))


def test_step_button_runs_one_iteration_and_explains_it(qtbot, loaded):
    panel = loaded.tools.teaching.panel
    loaded.method_panel.set_params({"n_clusters": 3, "max_iter": 30})
    panel.step_button.click()
    c = loaded.controller
    one = lambda: c.history is not None and len(c.history.snapshots) == 1  # noqa: E731
    qtbot.waitUntil(one, timeout=120_000)
    qtbot.waitUntil(lambda: panel.highlighted_stage == "iterating", timeout=120_000)
    assert c.paused and "Iteration 1 just ran" in panel.narration.text()
    assert panel.slider.isEnabled()  # paused: the recorded iterations can be browsed
    panel.step_button.click()
    qtbot.waitUntil(lambda: "Iteration 2 just ran" in panel.narration.text(), timeout=120_000)
    assert len(c.history.snapshots) == 2 and c.paused
    c.stop()


def test_slider_shows_that_iteration_in_every_plot_and_live_restores(qtbot, loaded, moving):
    loaded.controller.use_process = False  # MovingSolver lives in this test module
    history = _run_to_end(qtbot, loaded, "moving", n_clusters=3, max_iter=8)
    panel, plots = loaded.tools.teaching.panel, loaded.plots
    loaded.tools.teaching.action.setChecked(True)
    assert panel.slider.isEnabled() and panel.slider.maximum() == 8
    panel.slider.setValue(2)  # what a drag does
    labels = history.snapshots.labels_at(2)[0]
    assert np.array_equal(plots["embedding"].labels, labels)
    assert not np.array_equal(labels, history.labels)
    assert int(np.sum(labels == 0)) == 50 + 12 - 4  # 4·3 samples moved to cluster 0
    marker = loaded.presenter._pb_items[0]
    assert marker.isVisible()
    assert [v.tolist() for v in marker.getData()] == [[3.0], [7.0]]
    assert plots["convergence"].curve.getData()[0].tolist() == [1, 2, 3]
    np.testing.assert_allclose(plots["weights"].target, [0.25, 0.75])  # w = (1, 3)
    table = loaded.results_panel.table
    rows = {table.item(r, 0).text(): table.item(r, 1).text() for r in range(table.rowCount())}
    assert rows["iteration"] == "3" and rows["objective"] == "7"
    assert float(rows["ACC"]) == pytest.approx(history.snapshots[2].metrics["acc"], abs=1e-4)
    assert "iteration 3" in panel.narration.text() and panel.highlighted_stage == "iterating"
    panel.live_button.click()
    assert panel.index is None and not marker.isVisible()
    assert np.array_equal(plots["embedding"].labels, history.labels)
    assert len(plots["convergence"].curve.getData()[0]) == 8
    assert panel.highlighted_stage == "done"


def test_play_advances_to_the_end_and_a_new_run_leaves_playback(qtbot, loaded):
    _run_to_end(qtbot, loaded, "fake", n_clusters=3, max_iter=6, delay=0.0)
    panel = loaded.tools.teaching.panel
    panel.speed.setCurrentText("8x")
    panel.play_button.click()
    assert panel.playing and panel.index == 0
    qtbot.waitUntil(lambda: not panel.playing, timeout=60_000)
    assert panel.index == panel.slider.value() == panel.slider.maximum() == 6
    assert panel.live_button.isEnabled()
    loaded.method_panel.set_params({"max_iter": 40, "delay": 0.02})
    with qtbot.waitSignal(loaded.controller.run_started, timeout=120_000):
        loaded.run()
    assert panel.index is None and not panel.slider.isEnabled()
    assert not loaded.presenter._pb_items[0].isVisible()
    loaded.controller.stop()


def test_a_run_shown_again_from_the_run_list_can_be_played_back(qtbot, loaded, moving):
    loaded.controller.use_process = False
    first = _run_to_end(qtbot, loaded, "moving", n_clusters=3, max_iter=5)
    second = _run_to_end(qtbot, loaded, "moving", n_clusters=3, max_iter=9)
    assert second is not first
    loaded.presenter.show_history(first)  # what the Runs dock's Show does
    panel = loaded.tools.teaching.panel
    panel.go_to(1)
    assert panel.history is first and panel.slider.maximum() == 5
    labels = first.snapshots.labels_at(1)[0]
    assert np.array_equal(loaded.plots["embedding"].labels, labels)


def test_navigation_buttons_step_through_the_recorded_iterations(qtbot, loaded):
    history = _run_to_end(qtbot, loaded, "fake", n_clusters=3, max_iter=5, delay=0.0)
    panel = loaded.tools.teaching.panel
    panel.prev_button.click()  # from the live (final) state: the last iteration
    assert panel.index == 4 and history.snapshots[4].iteration == 5
    panel.prev_button.click()
    panel.next_button.click()
    panel.next_button.click()
    assert panel.index == 5 and "final state" in panel.narration.text()
    panel.first_button.click()
    assert panel.index == 0 and panel.position_label.text() == "1 / 6"
    panel.last_button.click()
    assert panel.index == panel.slider.value() == 5
