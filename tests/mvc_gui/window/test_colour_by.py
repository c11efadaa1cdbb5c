"""Colour the embedding by anything, per-view layouts, confusion and metrics against metadata:
what the analyst sees in the real window (offscreen)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import QRectF, Qt

from core.data.dataset import MultiViewDataset, encode_labels
from core.data.prepare import prepare_views
from core.numerics.layout import embed, representation
from core.numerics.metrics import accuracy
from mvc_gui.model.data_session import DataSession
from mvc_gui.model.palette import NOISE_COLOR, cluster_colors
from mvc_gui.plots.embedding_plot import ramp
from tests.conftest import make_blobs_views
from tests.mvc_gui.model.test_colouring import _brute_force_disagreement


@pytest.fixture
def meta_dataset():
    views, labels = make_blobs_views(n=150, c=3, dims=(4, 6))
    rng = np.random.default_rng(0)
    age = rng.normal(50, 10, 150)
    age[[3, 70, 140]] = np.nan
    batch = np.array(["A", "B"])[rng.integers(0, 2, 150)]
    batch[[5, 6]] = ""  # no value
    site = np.array(["north", "south", "west"])[
        (np.arange(150) // 50 + (rng.random(150) < 0.2)) % 3
    ]
    names = [["g1", "g2", "g3", "g4"], ["CD4", "CD8", "CD19", "CD3", "CD14", "CD56"]]
    return MultiViewDataset(
        views=views,
        labels=labels,
        view_names=["rna", "protein"],
        name="cells",
        source="test:cells",
        sample_ids=np.array([f"cell{i:03d}" for i in range(150)]),
        metadata={"age": age, "batch": batch, "site": site},
        meta={"feature_names": names},
    )


def _show(qtbot, win, ds):
    win.set_session(DataSession(ds), ds.summary())
    emb = win.plots["embedding"]
    qtbot.waitUntil(lambda: emb.xy is not None and not win.embedder.busy, timeout=60_000)
    return emb


def _run(qtbot, win, **params):
    win.method_panel.set_params({"max_iter": 4, "delay": 0.0, **params})
    with qtbot.waitSignal(win.controller.run_finished, timeout=120_000):
        win.run()
    return win.controller.history


def _rgb(emb):
    return emb.drawn_colours()[0][:, :3]


def test_colour_by_metadata_feature_and_disagreement(threads, qtbot, window, meta_dataset):
    ds = meta_dataset
    emb = _show(qtbot, window, ds)
    first = _run(qtbot, window, n_clusters=3)
    second = _run(qtbot, window, n_clusters=4)
    # a text column: palette colours, a legend with counts, no value grey, the hover says it
    assert emb.chooser.select(("meta", "batch"))
    batch = ds.metadata["batch"]
    palette = np.array(cluster_colors(2))
    rgb = _rgb(emb)
    for name, colour in zip(["A", "B"], palette, strict=True):
        assert (rgb[batch == name] == colour).all()
    assert (rgb[batch == ""] == NOISE_COLOR).all()
    assert emb.legend.isVisibleTo(emb)
    legend = emb.legend.text()
    assert f"A ({np.sum(batch == 'A')})" in legend and "no value (2)" in legend
    hover = emb.hover_text(0)
    assert hover.startswith("sample cell000") and f"batch: {batch[0]}" in hover
    # a number column: the colour ramp over its range, NaN grey, the range in the legend
    assert emb.chooser.select(("meta", "age"))
    age = ds.metadata["age"]
    rgb, colours = _rgb(emb), np.array(ramp())
    assert (rgb[np.isnan(age)] == NOISE_COLOR).all()
    assert (rgb[np.nanargmin(age)] == colours[0]).all()
    assert (rgb[np.nanargmax(age)] == colours[-1]).all()
    lo, hi = np.nanmin(age), np.nanmax(age)
    ok = ~np.isnan(age)
    bins = np.minimum(((age[ok] - lo) / (hi - lo) * len(colours)).astype(int), len(colours) - 1)
    np.testing.assert_array_equal(rgb[ok], colours[bins])
    assert f"{lo:.4g}" in emb.legend.text() and f"{hi:.4g}" in emb.legend.text()
    assert "no value (3)" in emb.legend.text()
    assert f"age: {age[0]:.4g}" in emb.hover_text(0)
    # a feature typed by name (with completion) in the second view
    assert emb.chooser.select(("feature", 1, 0))
    edit = emb.chooser.feature_edit
    edit.clear()
    qtbot.keyClicks(edit, "cd19")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert emb.chooser.choice() == ("feature", 1, 2)
    x = ds.views[1][:, 2]
    rgb = _rgb(emb)
    assert (rgb[np.argmin(x)] == colours[0]).all() and (rgb[np.argmax(x)] == colours[-1]).all()
    assert emb.legend.title.text() == "<b>protein: CD19</b>"
    assert f"protein: CD19: {x[7]:.4g}" in emb.hover_text(7)
    # the disagreement of the run on display (#2) with run #1 of the Runs dock
    assert emb.chooser.run_box.count() == 2
    assert emb.chooser.select(("disagree", 0))
    expected = _brute_force_disagreement(second.labels, first.labels)
    assert expected > 0
    size = emb.drawn_colours()[1]
    differ = size > size.min()
    assert int(differ.sum()) == expected
    assert emb.legend.summary.text().startswith(f"{expected} of 150 samples")
    assert "disagree" in emb.hover_text(int(np.flatnonzero(differ)[0]))


def test_per_view_layout_from_the_child_is_that_view_alone_and_cached(qtbot, window, meta_dataset):
    ds = meta_dataset
    emb = _show(qtbot, window, ds)
    everything = emb.xy.copy()
    emb.chooser.select(("meta", "site"))
    emb.layout_box.setCurrentIndex(2)  # "protein alone"
    assert emb.layout_view == 1 and window.embedder.busy
    qtbot.waitUntil(lambda: emb.xy is not None and not window.embedder.busy, timeout=60_000)
    views, _ = prepare_views([ds.views[1]], ["auto"], window.session.auto_rule)
    np.testing.assert_allclose(emb.xy, embed(representation(views)), rtol=1e-6, atol=1e-6)
    assert not np.allclose(emb.xy, everything)
    # still coloured by the chosen column
    codes, names = encode_labels(ds.metadata["site"])
    np.testing.assert_array_equal(_rgb(emb), np.array(cluster_colors(len(names)))[codes])
    # back to all views: from the cache, at once
    emb.layout_box.setCurrentIndex(0)
    assert not window.embedder.busy
    np.testing.assert_array_equal(emb.xy, everything)
    emb.layout_box.setCurrentIndex(2)
    assert not window.embedder.busy and not np.allclose(emb.xy, everything)


def test_confusion_and_metrics_against_a_metadata_column(threads, qtbot, window, meta_dataset):
    ds = meta_dataset
    _show(qtbot, window, ds)
    conf = window.plots["confusion"]
    # before any run: words, not an empty axis
    assert conf.empty.isVisible() and "Filled after a run" in conf.empty.textItem.toPlainText()
    history = _run(qtbot, window, n_clusters=3)
    labels = history.labels
    conf.rows_box.setCurrentIndex(conf.rows_box.findData("batch"))
    assert conf.class_names == ["A", "B", "(no value)"]
    assert window.plots["confusion"].plot.getAxis("left").labelText == "batch"
    batch = ds.metadata["batch"]
    rows = [batch == "A", batch == "B", batch == ""]
    expected = [
        str(int(np.sum(r & (labels == c)))) for r in rows for c in conf.order
    ]  # row by row, clusters in the matched order, zero cells unlabelled
    assert conf.counts.texts() == [t for t in expected if t != "0"]
    # a categorical column as the reference labels: the metrics follow, the layout stays
    layout = window.plots["embedding"].xy
    window.tools.table_import.choose_reference("site")
    site, _ = encode_labels(ds.metadata["site"])
    acc = f"{accuracy(site, labels):.4f}"
    table = window.results_panel.table
    assert table.item(0, 0).text() == "ACC" and table.item(0, 1).text() == acc
    runs = window.tools.runs.table
    assert runs.item(0, 6).text() == acc
    assert not window.embedder.busy
    np.testing.assert_array_equal(window.plots["embedding"].xy, layout)
    # the confusion rows keep the chosen column; the reference rows are the new labels
    conf.rows_box.setCurrentIndex(0)
    assert conf.class_names == ["north", "south", "west"]


def test_a_view_alone_of_incomplete_data_leaves_out_the_samples_it_lacks(
    threads, qtbot, window, meta_dataset
):
    observed = np.ones((150, 2), dtype=bool)
    observed[:10, 1] = False  # the first ten samples have no protein view
    ds = replace(meta_dataset, observed=observed)
    emb = _show(qtbot, window, ds)
    assert (emb.drawn_colours()[1] > 0).all()
    emb.layout_box.setCurrentIndex(2)
    qtbot.waitUntil(lambda: emb.xy is not None and not window.embedder.busy, timeout=60_000)
    drawn = emb.drawn_colours()[1] > 0
    np.testing.assert_array_equal(drawn, observed[:, 1])
    assert emb.note.text() == "10 samples without the view protein are not shown."
    # a rectangle around everything selects only the samples on display
    with qtbot.waitSignal(emb.rect_selected) as picked:
        emb.vb.rect_selected.emit(QRectF(-1e6, -1e6, 2e6, 2e6))
    np.testing.assert_array_equal(picked.args[0], np.arange(10, 150))
    emb.layout_box.setCurrentIndex(0)
    assert (emb.drawn_colours()[1] > 0).all() and not emb.note.isVisibleTo(emb)
