"""Qt-free parts of the GUI: label alignment, frames, history, heat map, palette, session."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from core.methods.base import IterationState
from mvc_gui.model.aggregations import confusion, heatmap_image
from mvc_gui.model.data_session import DataSession
from mvc_gui.model.palette import cluster_colors
from mvc_gui.model.run_history import FrameBuilder, RunHistory, align_labels


def test_align_labels_is_a_permutation_matching_previous():
    prev = np.array([0, 0, 1, 1, 2, 2])
    new = np.array([2, 2, 0, 0, 1, 1])
    assert align_labels(prev, new).tolist() == prev.tolist()
    assert align_labels(None, new).tolist() == new.tolist()


def test_heatmap_sorts_rows_by_cluster_and_aggregates():
    rng = np.random.default_rng(0)
    n, m = 5000, 30
    labels = rng.integers(0, 3, n)
    z = sp.random(n, m, density=0.1, format="csr", random_state=1)
    z = z + sp.csr_matrix((np.ones(n), (np.arange(n), labels * 10)), shape=(n, m))
    heat = heatmap_image(z, labels, max_rows=500)
    assert heat.image.shape[1] == m and heat.image.shape[0] <= 500 + 3
    assert heat.image.dtype == np.float32
    # display rows are grouped by cluster, in order
    assert np.all(np.diff(heat.row_cluster) >= 0)
    assert np.all(np.diff(heat.col_cluster) >= 0)
    # each cluster's dominant anchor is one of the columns of that cluster
    for c in range(3):
        rows = heat.row_cluster == c
        col = np.argmax(heat.image[rows].mean(axis=0))
        assert heat.col_cluster[col] == c


def test_heatmap_without_labels_and_dense():
    z = np.random.default_rng(0).random((50, 7))
    heat = heatmap_image(z, None)
    assert heat.image.shape == (50, 7) and heat.row_cluster is None
    np.testing.assert_allclose(heat.image, z, rtol=1e-6)


def test_confusion_orders_matches_on_diagonal():
    truth = np.array([0, 0, 1, 1, 2, 2])
    pred = np.array([2, 2, 0, 0, 1, 1])
    counts, order = confusion(truth, pred, 3, 3)
    assert np.trace(counts[:, order]) == 6


def test_frame_builder_and_history():
    truth = np.array([0, 0, 1, 1])
    b = FrameBuilder(7, truth, heat_every=0.0)
    g = sp.identity(4, format="csr")
    frames = [
        b.build(IterationState(stage="graph", anchor_graph=g)),
        b.build(
            IterationState(
                stage="iterating", iteration=1, objective=3.0, labels=np.array([1, 1, 0, 0])
            )
        ),
        b.build(
            IterationState(
                stage="iterating", iteration=2, objective=2.0, labels=np.array([0, 0, 1, 1])
            )
        ),
        b.build(
            IterationState(
                stage="done", iteration=2, objective=2.0, final=True, labels=np.array([0, 0, 1, 1])
            )
        ),
    ]
    h = RunHistory(7, "fake", {})
    for f in frames:
        h.add(f)
    assert h.iterations == [1, 2] and h.objective == [3.0, 2.0]
    assert h.metrics["acc"] == [1.0, 1.0]
    # the second labelling is the first one relabelled: aligned, so colours stay
    assert h.labels.tolist() == [1, 1, 0, 0]
    assert h.final is frames[-1] and h.heat is not None


def test_palette_distinct_and_stable():
    many = cluster_colors(40)
    assert len(set(many)) == 40
    assert cluster_colors(3) == many[:3]
    assert many[0] == (0, 114, 178)  # Okabe-Ito blue first


def test_session_key_and_prepared(small_dataset):
    s = DataSession(small_dataset)
    key = s.key
    views, chosen = s.prepared()
    assert len(views) == 2 and len(chosen) == 2
    s.included[1] = False
    assert s.key != key and s.view_names == ["alpha"]


def test_frames_count_what_the_panels_show_only_when_the_labels_move():
    truth = np.array([0, 0, 1, 1, 2, 2])
    b = FrameBuilder(1, truth)
    a = np.array([1, 1, 0, 0, 0, 2])

    def state(it, labels):
        return IterationState(stage="iterating", iteration=it, objective=1.0 / it, labels=labels)

    first, again = b.build(state(1, a)), b.build(state(2, a.copy()))
    moved = b.build(state(3, np.array([1, 1, 0, 0, 2, 2])))
    assert first.labels_changed and moved.labels_changed
    assert again.labels_changed is False and again.counts is None
    for f in (first, moved):
        assert f.counts.tolist() == np.bincount(f.labels).tolist()
        # the worker's class x cluster table is the confusion the window would count
        counted, order = confusion(truth, f.labels, 3, 3)
        tabled, order2 = confusion(truth, f.labels, 3, 3, table=f.truth_counts)
        assert tabled.tolist() == counted.tolist() and order.tolist() == order2.tolist()
    h = RunHistory(1, "fake", {})
    versions = []
    for f in (first, again, moved):
        h.add(f)
        versions.append(h.labels_version)
    assert versions == [1, 1, 2] and h.counts is moved.counts
    # playback stores a labelling once, trusting the worker's comparison
    assert len(h.snapshots.labels) == 2


def test_session_counts_classes_without_sorting(small_dataset):
    from dataclasses import replace

    s = DataSession(replace(small_dataset, labels=np.array([0, 2, 2, 5] * 30 + [0] * 30)))
    assert s.n_classes == 3 == s.dataset.n_classes
    s.dataset = replace(small_dataset, labels=None)
    assert s.n_classes is None
