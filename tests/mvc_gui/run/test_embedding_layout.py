"""The layout choice: t-SNE / UMAP control, the controller's method switch, stage texts."""

from __future__ import annotations

import pytest

from core.numerics.layout import LARGE_ITER, MAX_EXACT, SUBSAMPLE_ITER, layout_kind
from mvc_gui.model.data_session import DataSession
from mvc_gui.run.embedding_controller import EmbeddingController, layout_status


def test_layout_chooser_offers_umap_only_when_installed(qtbot, monkeypatch):
    from mvc_gui.plots import embedding_parts, embedding_plot

    monkeypatch.setattr(embedding_parts, "umap_available", lambda: False)
    plot = embedding_plot.EmbeddingPlot()
    qtbot.addWidget(plot)
    box = plot.layout_method
    assert [box.itemText(i) for i in range(box.count())] == ["t-SNE", "UMAP"]
    assert not box.model().item(1).isEnabled()
    assert "pip install" in box.toolTip()

    monkeypatch.setattr(embedding_parts, "umap_available", lambda: True)
    plot = embedding_plot.EmbeddingPlot()
    qtbot.addWidget(plot)
    assert plot.layout_method.model().item(1).isEnabled()
    with qtbot.waitSignal(plot.layout_method_changed) as got:
        plot.layout_method.setCurrentIndex(1)
    assert got.args == ["umap"] and plot.title.text() == "Embedding (UMAP)"


def test_status_names_each_stage_of_the_large_layout():
    n = 100_000
    assert layout_kind(n) == "large"
    assert "subsample" in layout_status("large", n, 100)
    assert "nearest neighbours of all 100,000" in layout_status("large", n, SUBSAMPLE_ITER)
    last = layout_status("large", n, SUBSAMPLE_ITER + LARGE_ITER)
    assert f"{LARGE_ITER}/{LARGE_ITER}" in last and "all 100,000" in last
    assert layout_status("tsne", MAX_EXACT, 25).endswith("iteration 25/750)...")
    assert "UMAP" in layout_status("umap", 10)


def test_switching_to_umap_computes_and_caches_per_method(qtbot, small_dataset):
    pytest.importorskip("umap")
    ec = EmbeddingController(use_process=False)
    finals = []
    ec.layout_updated.connect(lambda xy, final: final and finals.append(xy.copy()))
    session = DataSession(small_dataset)
    ec.request(session)
    qtbot.waitUntil(lambda: not ec.busy, timeout=60_000)
    ec.set_method("umap")  # the last requested data, laid out again by UMAP
    qtbot.waitUntil(lambda: not ec.busy, timeout=120_000)
    assert len(finals) == 2 and finals[1].shape == (150, 2)
    assert {k[-1] for k in ec.cache} == {"tsne", "umap"}
    ec.set_method("tsne")  # cached: shown at once
    assert len(finals) == 3 and not ec.busy and (finals[2] == finals[0]).all()
    assert ec.shutdown(2.0)
