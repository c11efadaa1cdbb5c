"""RunController driven by the fake generator solver (no heavy computation)."""

from __future__ import annotations

import signal
import threading

import pytest

from core.methods import REGISTRY
from core.methods.params import ParamError
from mvc_gui.model.data_session import DataSession
from mvc_gui.run.controller import RunController


@pytest.fixture(params=["process", "thread"])
def controller(qtbot, request):
    c = RunController(use_process=request.param == "process")
    yield c
    assert c.shutdown(2.0)


def test_run_to_completion_emits_ordered_signals(qtbot, controller, small_dataset):
    seen = []
    controller.iteration_done.connect(lambda h: seen.append(h.last.state.iteration))
    with qtbot.waitSignals(
        [controller.run_started, controller.run_finished], order="strict", timeout=60_000
    ):
        controller.start("fake", {"n_clusters": 3, "max_iter": 25}, DataSession(small_dataset))
    h = controller.history
    assert seen == sorted(seen) and seen[-1] == 25  # throttled but ends on the final state
    assert len(seen) < 25
    assert h.iterations == list(range(1, 26))
    assert h.final.state.final and h.result.n_iter == 25
    assert set(h.result.metrics) >= {"acc", "nmi", "ari"}
    assert h.result.labels.tolist() == h.labels.tolist()
    assert h.heat is not None and h.heat.row_cluster is not None
    assert not controller.running


def test_stop_does_not_wait_for_the_solver_and_drops_late_frames(qtbot, controller, small_dataset):
    # each iteration sleeps 2 s: a Stop that waited for the solver's next state would return
    # after the solver thread had ended (no wall-clock bound, which a busy machine can miss)
    controller.start(
        "fake", {"n_clusters": 3, "max_iter": 500, "delay": 2.0}, DataSession(small_dataset)
    )
    qtbot.waitUntil(lambda: bool(controller.history.iterations), timeout=120_000)
    worker = controller._worker
    late = []
    controller.iteration_done.connect(late.append)
    with qtbot.waitSignal(controller.run_stopped, timeout=120_000):
        controller.stop()
        solver_still_in_its_step = worker.is_alive()
    assert not controller.running
    if not controller.use_process:  # (a child is killed after a grace period instead)
        assert solver_still_in_its_step
    assert worker.join(120)  # then it ends: at its next state, or killed
    qtbot.wait(100)
    assert late == []
    assert controller.history.result.stopped_early


def test_new_run_supersedes_old_one(qtbot, controller, small_dataset):
    session = DataSession(small_dataset)
    first = controller.start("fake", {"n_clusters": 3, "max_iter": 200, "delay": 0.02}, session)
    qtbot.waitUntil(lambda: bool(controller.history.iterations), timeout=120_000)
    finished = []
    controller.run_finished.connect(lambda h: finished.append(h.run_id))
    second = controller.start("fake", {"n_clusters": 2, "max_iter": 5}, session)
    qtbot.waitUntil(lambda: bool(finished), timeout=60_000)
    assert finished == [second] and second != first
    assert int(controller.history.labels.max()) <= 1
    alive = [t for t in threading.enumerate() if t.name.endswith("SolverWorker")]
    assert len(alive) <= 1


def test_pause_and_step(qtbot, controller, small_dataset):
    controller.start(
        "fake", {"n_clusters": 3, "max_iter": 50}, DataSession(small_dataset), paused=True
    )
    qtbot.wait(200)
    assert controller.history.iterations == []
    controller.step()
    qtbot.waitUntil(lambda: controller.history.iterations == [1], timeout=120_000)
    qtbot.wait(150)
    assert controller.history.iterations == [1]
    controller.step()
    qtbot.waitUntil(lambda: controller.history.iterations == [1, 2], timeout=120_000)
    with qtbot.waitSignal(controller.run_finished, timeout=60_000):
        controller.resume()


def test_worker_error_reaches_user_with_traceback(qtbot, controller, small_dataset):
    with qtbot.waitSignal(controller.run_failed, timeout=120_000) as blocker:
        controller.start("fake", {"n_clusters": 3, "fail_at": 3}, DataSession(small_dataset))
    message, details = blocker.args
    assert "fake failure" in message and "Traceback" in details
    assert not controller.running


def test_invalid_parameters_raise_before_starting(controller, small_dataset):
    with pytest.raises(ParamError, match="n_clusters"):
        controller.start("fake", {"n_clusters": 1}, DataSession(small_dataset))
    assert controller.history is None


@pytest.mark.parametrize("name", sorted(set(REGISTRY) - {"fake"}))
def test_every_registered_method_runs_through_the_controller(qtbot, controller, name):
    from core.data.dataset import MultiViewDataset
    from tests.conftest import make_blobs_views

    views, labels = make_blobs_views(n=120, c=3, dims=(5, 7))
    session = DataSession(MultiViewDataset(views=views, labels=labels))
    failed = []
    controller.run_failed.connect(lambda m, d: failed.append(m + "\n" + d))
    with qtbot.waitSignal(controller.run_finished, timeout=60_000, raising=False) as blocker:
        controller.start(name, {"n_clusters": 3, "max_iter": 10}, session)
    assert not failed, failed[0]
    assert blocker.signal_triggered
    h = controller.history
    assert h.result.labels.shape == (120,) and "acc" in h.result.metrics


def test_stop_kills_a_process_stuck_in_a_long_step(qtbot, small_dataset):
    from mvc_gui.run.solver_process import SolverServer

    c = RunController(use_process=True)
    c.start("fake", {"n_clusters": 3, "max_iter": 3, "delay": 10.0}, DataSession(small_dataset))
    qtbot.waitUntil(
        lambda: c.history.last is not None and c.history.last.state.stage == "graph",
        timeout=120_000,
    )
    worker = c._worker
    child = SolverServer.shared()._proc
    c.stop()
    assert worker.join(120)
    # killed inside its 10 s step, not left to finish it (no wall-clock bound: the child's
    # exit status says how it ended, however busy the machine)
    assert child.wait(120) in (-signal.SIGTERM, -signal.SIGKILL)
    # the next run starts a fresh child and completes
    with qtbot.waitSignal(c.run_finished, timeout=60_000):
        c.start("fake", {"n_clusters": 3, "max_iter": 3}, DataSession(small_dataset))
    assert SolverServer.shared().alive
    assert c.shutdown(2.0)
    qtbot.wait(100)  # deliver the last queued signals before the controller goes away


@pytest.mark.parametrize("use_process", [True, False])
def test_embedding_controller_computes_then_caches(qtbot, small_dataset, use_process):
    from mvc_gui.run.embedding_controller import EmbeddingController

    ec = EmbeddingController(use_process=use_process)
    frames = []
    ec.layout_updated.connect(lambda xy, final: frames.append((xy.shape, final)))
    session = DataSession(small_dataset)
    ec.request(session)
    qtbot.waitUntil(lambda: not ec.busy, timeout=60_000)
    assert frames[-1] == ((150, 2), True) and len(frames) > 2  # animated, ends final
    assert session.chosen  # 'auto' preprocessing resolved and reported
    frames.clear()
    ec.request(session)  # cached: no recomputation
    assert frames == [((150, 2), True)] and not ec.busy
    assert ec.shutdown(2.0)
    qtbot.wait(50)


def test_embedding_child_survives_a_request_during_a_layout(qtbot, small_dataset):
    """A new layout asked for while the child is mid-t-SNE (views or preprocessing changed)
    cancels the first and computes the second, in the same child."""
    from mvc_gui.run.embedding_controller import EmbeddingController

    ec = EmbeddingController(use_process=True)
    finals = []
    ec.layout_updated.connect(lambda xy, final: final and finals.append(xy.shape))
    first = DataSession(small_dataset)
    frames = []
    ec.layout_updated.connect(lambda xy, final: frames.append(final))
    ec.request(first)
    qtbot.waitUntil(lambda: len(frames) >= 1, timeout=60_000)  # the child is iterating
    second = DataSession(small_dataset)
    second.methods = ["minmax"] * small_dataset.n_views
    ec.request(second)
    qtbot.waitUntil(lambda: not ec.busy, timeout=60_000)
    assert finals == [(150, 2)]
    from mvc_gui.run.solver_process import SolverServer

    assert SolverServer.shared("mvc_gui.run.embedding_process").alive
    assert ec.shutdown(2.0)
    qtbot.wait(50)


def test_incomplete_data_runs_with_its_mask_or_is_refused_by_name(qtbot, controller):
    """The app passes the dataset's observed mask (thread and child process alike)."""
    from core.data.dataset import DataError, MultiViewDataset
    from core.experiments.amputation import amputate
    from tests.conftest import make_blobs_views

    views, labels = make_blobs_views(n=120, c=3, dims=(5, 7), sep=8.0)
    views, mask = amputate(views, 0.3, seed=0)
    session = DataSession(MultiViewDataset(views=views, labels=labels, observed=mask))
    assert session.observed is not None and (session.observed == mask).all()
    with qtbot.waitSignal(controller.run_finished, timeout=60_000):
        controller.start("fmdc", {"n_clusters": 3}, session)
    assert controller.history.result.metrics["acc"] > 0.9
    with qtbot.waitSignal(controller.run_finished, timeout=60_000):
        controller.start("dtll", {"n_clusters": 3}, session)
    assert controller.history.result.metrics["acc"] > 0.9
    with pytest.raises(DataError, match="RGMVC needs every view of every sample, but 36 sample"):
        controller.start("rg-mvc", {"n_clusters": 3}, session)  # refused before it starts


def test_final_scores_come_from_the_worker_and_equal_the_run_records(
    qtbot, controller, small_dataset
):
    from core.numerics.metrics import all_metrics

    session = DataSession(small_dataset)
    with qtbot.waitSignal(controller.run_finished, timeout=60_000):
        controller.start("fake", {"n_clusters": 3, "max_iter": 5}, session)
    result = controller.history.result
    assert result.true_labels is session.labels
    expected = all_metrics(session.labels, result.labels)
    assert result.metrics.keys() == expected.keys()
    for key, value in expected.items():
        assert abs(result.metrics[key] - value) < 1e-12, key


def test_a_stopped_runs_scores_equal_its_labels_scores(qtbot, controller, small_dataset):
    from core.numerics.metrics import all_metrics

    session = DataSession(small_dataset)
    controller.start("fake", {"n_clusters": 3, "max_iter": 500, "delay": 0.02}, session)
    qtbot.waitUntil(lambda: controller.history.labels is not None, timeout=120_000)
    with qtbot.waitSignal(controller.run_stopped, timeout=120_000):
        controller.stop()
    result = controller.history.result
    expected = all_metrics(session.labels, result.labels)
    assert result.metrics.keys() == expected.keys()
    for key, value in expected.items():
        assert abs(result.metrics[key] - value) < 1e-12, key
