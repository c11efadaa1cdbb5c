"""Recorded snapshots for teaching playback (Qt-free): one per iteration, compact labels
stored only when they change, capped stores thinned evenly, the frame at a position."""

from __future__ import annotations

import numpy as np
import pytest

from core.data.demo import make_blobs_noisy_view
from core.methods import FMDC
from core.methods.base import IterationState
from mvc_gui.model.playback import SnapshotRecorder, ThinnedStore, compact_labels, playback_frame
from mvc_gui.model.run_history import Frame, RunHistory
from mvc_gui.model.runner import run_solver
from tests.conftest import make_blobs_views


class _Go:
    """A run_solver control that never pauses."""

    def wait_turn(self) -> bool:
        return True

    def after_state(self, state) -> None:
        pass


def _run(solver, views, truth) -> RunHistory:
    history = RunHistory(1, solver.name, solver.get_params())
    end = run_solver(1, solver, lambda: (views, ["none"] * len(views)), truth, history.add, _Go())
    assert end.status == "finished", end.details
    return history


def _frame(it: int, labels: np.ndarray | None, final: bool = False, objective=None) -> Frame:
    stage = "done" if final else "iterating"
    state = IterationState(stage=stage, iteration=it, objective=objective, final=final)
    return Frame(1, state, labels)


def test_fake_run_records_every_iteration_with_labels_weights_metrics(fake_solver):
    views, truth = make_blobs_views(n=120, c=3, dims=(4, 6), seed=3)
    solver = fake_solver(n_clusters=3, max_iter=12, delay=0.0)
    history = _run(solver, views, truth)
    snaps = history.snapshots
    assert len(snaps) == 13  # 12 iterations + the final state
    assert [s.iteration for s in snaps[:-1]] == list(range(1, 13))
    assert [s.stage for s in snaps] == ["iterating"] * 12 + ["done"]
    assert snaps[-1].final and not snaps[0].final
    np.testing.assert_allclose([s.objective for s in snaps[:-1]], 100.0 / np.arange(1, 13))
    for s in snaps[:-1]:
        np.testing.assert_allclose(s.view_weights, [1 / 3, 2 / 3])
        assert set(s.metrics) >= {"acc", "nmi", "ari"}
    assert snaps[0].extras == {} and snaps[-1].labels_version >= 0
    labels, _, exact = snaps.labels_at(len(snaps) - 1)
    assert exact and np.array_equal(labels, history.labels)
    # compact storage: uint8 labels, stored only when the partition changed
    stored = [snaps.labels.at_or_before(k)[1] for k in snaps.labels.keys]
    assert all(a.dtype == np.uint8 for a in stored)
    changes = 1 + sum(
        not np.array_equal(snaps.labels_at(i)[0], snaps.labels_at(i - 1)[0])
        for i in range(1, len(snaps))
    )
    assert len(snaps.labels) == changes < len(snaps)


def test_real_fmdc_run_has_a_snapshot_per_iteration():
    ds = make_blobs_noisy_view(n=300, c=3, seed=1)
    solver = FMDC(
        n_clusters=3, n_anchors=32, n_neighbors=15, init="random", n_init=1, random_state=3
    )
    history = _run(solver, ds.views, ds.labels)
    snaps = history.snapshots
    n_iter = solver.n_iter_
    assert n_iter >= 2 and len(snaps) == n_iter + 1
    np.testing.assert_allclose([s.objective for s in snaps[:-1]], solver.objective_history_)
    assert np.all(np.diff([s.objective for s in snaps[:-1]]) <= 1e-9)  # FMDC never rises
    for s in snaps:
        assert s.view_weights is not None and abs(s.view_weights.sum() - 1) < 1e-9
    # from a random start the labels change at first: iteration 1 differs from the end (seed 3:
    # with some seeds one sweep already reaches the final labels on these easy blobs)
    first, _, _ = snaps.labels_at(0)
    last, _, _ = snaps.labels_at(len(snaps) - 1)
    assert not np.array_equal(first, last)
    assert np.array_equal(last, history.labels)
    assert snaps[0].metrics["acc"] < snaps[-1].metrics["acc"]
    # FMDC hands out its equal-weight consensus graph before iterating, so playback has a
    # heat map from the first iteration on, and the learned-weight one at the end
    first_heat, last_heat = snaps.heat_at(0), snaps.heat_at(len(snaps) - 1)
    assert first_heat is not None and last_heat is not None and first_heat is not last_heat


def test_label_store_thins_evenly_and_keeps_first_and_newest():
    rec = SnapshotRecorder(label_limits=(8, 1 << 30))
    rng = np.random.default_rng(0)
    frames = [rng.integers(0, 4, 50) for _ in range(100)]
    for it, labels in enumerate(frames, 1):
        rec.record(_frame(it, labels))
    keys = rec.labels.keys
    assert 4 <= len(keys) <= 8 and keys[0] == 0 and keys[-1] == 99
    gaps = np.diff(keys[:-1])
    assert gaps.max() == gaps.min()  # evenly spread (the newest one aside)
    assert rec.labels.dropped == 100 - len(keys)
    for i in (0, keys[1], 99):  # kept: exact
        labels, source, exact = rec.labels_at(i)
        assert exact and source == i and np.array_equal(labels, frames[i])
    dropped = keys[1] + 1
    labels, source, exact = rec.labels_at(dropped)
    assert not exact and source == keys[1] and np.array_equal(labels, frames[keys[1]])
    assert "thinned" in playback_frame(rec, dropped).caption


def test_100k_samples_100_iterations_stay_within_the_byte_budget():
    n, rng = 100_000, np.random.default_rng(1)
    default = SnapshotRecorder()
    small = SnapshotRecorder(label_limits=(256, 2 << 20))  # 2 MB: about 20 labellings
    for it in range(1, 101):
        labels = rng.integers(0, 10, n)
        for rec in (default, small):
            rec.record(_frame(it, labels, objective=1.0 / it))
    assert len(default.labels) == 100 and default.labels.nbytes == 100 * n  # uint8: 10 MB
    assert small.labels.nbytes <= 2 << 20 and 10 <= len(small.labels) <= 20
    assert len(small) == 100 and small.labels.keys[-1] == 99


def test_labels_recorded_only_on_change_and_heat_before_first_iteration():
    rec = SnapshotRecorder()
    a = np.array([0, 0, 1, 1])
    b = np.array([0, 1, 1, 1])

    class Heat:
        image = np.zeros((2, 3), dtype=np.float32)

    graph_frame = Frame(1, IterationState(stage="graph"), None, heat=Heat())
    assert rec.record(graph_frame) is None  # preparation stages are not snapshots
    for it, labels in enumerate((a, a, b, b), 1):
        rec.record(_frame(it, labels))
    rec.record(_frame(4, b, final=True))
    assert len(rec) == 5 and rec.labels.keys == [0, 2]
    assert [s.labels_version for s in rec] == [0, 0, 2, 2, 2]
    assert rec.heat_at(0) is graph_frame.heat and rec.heat_at(4) is graph_frame.heat
    assert compact_labels(np.array([-1, 300])).dtype == np.int16


def test_playback_frame_curves_marker_and_clamping(fake_solver):
    views, truth = make_blobs_views(n=90, c=3, dims=(4, 5), seed=0)
    history = _run(fake_solver(n_clusters=3, max_iter=6, delay=0.0), views, truth)
    rec = history.snapshots
    f = playback_frame(rec, 2)
    assert f.objective_x.tolist() == [1, 2, 3]
    assert f.marker == (3.0, pytest.approx(100.0 / 3))
    assert f.metric_x.tolist() == [1, 2, 3] and len(f.metrics["acc"]) == 3
    assert "iteration 3 (snapshot 3 of 7)" in f.caption
    last = playback_frame(rec, 99)  # clamped to the final snapshot
    assert last.snapshot.final and last.objective_x.size == 6
    assert last.marker == (6.0, pytest.approx(100.0 / 6))
    assert "final state" in last.caption
    with pytest.raises(IndexError):
        playback_frame(SnapshotRecorder(), 0)


def test_thinned_store_replaces_newest_key_and_refuses_older_keys():
    store = ThinnedStore(4, 1000)
    store.add(1, "a", 10)
    store.add(1, "b", 20)
    assert store.keys == [1] and store.at_or_before(5) == (1, "b") and store.nbytes == 20
    assert store.at_or_before(0) is None
    with pytest.raises(ValueError):
        store.add(0, "c", 1)
