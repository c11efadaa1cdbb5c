"""Figures for papers: every plot as PNG, SVG and PDF at a chosen size and DPI with its
legend, and File > Figure... (embedding, weights and a table on one page)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QTableWidget, QTableWidgetItem

from mvc_gui.plots.figure import FigureSize
from mvc_gui.window.figure_export import FigureDialog

MM_PER_PT = 25.4 / 72


@pytest.fixture
def ran(qtbot, loaded):
    loaded.resize(1280, 800)
    loaded.show()
    qtbot.waitExposed(loaded)
    loaded.method_panel.set_params({"n_clusters": 3, "max_iter": 5})
    with qtbot.waitSignal(loaded.controller.run_finished, timeout=120_000):
        loaded.run()
    emb = loaded.plots["embedding"]
    qtbot.waitUntil(lambda: emb.xy is not None and not loaded.embedder.busy, timeout=120_000)
    return loaded


def _svg_text(path) -> str:
    root = ET.parse(path).getroot()  # raises if the file is not well-formed XML
    return " ".join(t.strip() for t in root.itertext() if t.strip())


def _pdf_page_mm(path) -> tuple[float, float]:
    data = path.read_bytes()
    assert data.startswith(b"%PDF")
    box = re.search(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", data)
    return float(box.group(1)) * MM_PER_PT, float(box.group(2)) * MM_PER_PT


def test_every_plot_exports_png_svg_and_pdf_at_the_asked_size(ran, tmp_path):
    size = FigureSize(120, 80, "mm", 300)
    for name in ran.plots:
        for ext in ("png", "svg", "pdf"):
            ran.export_plot(name, size, str(tmp_path / f"{name}.{ext}"))
        image = QImage(str(tmp_path / f"{name}.png"))
        assert (image.width(), image.height()) == size.pixels() == (1417, 945), name
        assert round(image.dotsPerMeterX() * 0.0254) == 300
        _svg_text(tmp_path / f"{name}.svg")
        w, h = _pdf_page_mm(tmp_path / f"{name}.pdf")
        assert w == pytest.approx(120, abs=0.5) and h == pytest.approx(80, abs=0.5)
    assert ran.messages.level != "error"
    # the embedding's legend is in the figure, as text (clusters, then a metadata colouring)
    text = _svg_text(tmp_path / "embedding.svg")
    for c in np.unique(ran.controller.history.labels).tolist():
        assert f"cluster {c}" in text
    emb = ran.plots["embedding"]
    emb.chooser.select(("truth",))
    ran.export_plot("embedding", FigureSize(800, 600, "px", 96), str(tmp_path / "truth.svg"))
    legend = emb.figure_legend()
    assert legend.title == "reference labels"
    text = _svg_text(tmp_path / "truth.svg")
    assert all(entry in text for _, entry in legend.entries)


def test_on_screen_size_without_a_size_and_a_wrong_suffix_is_refused(ran, tmp_path):
    emb = ran.plots["embedding"]
    ran.export_plot("embedding", None, str(tmp_path / "screen.png"))
    image = QImage(str(tmp_path / "screen.png"))
    assert (image.width(), image.height()) == emb.default_figure_size("png").pixels()
    ran.export_plot("embedding", None, str(tmp_path / "figure.jpg"))
    assert ran.messages.level == "error" and ".png, .svg or .pdf" in ran.messages.text
    assert not (tmp_path / "figure.jpg").exists()


def test_figure_page_holds_embedding_weights_and_a_table(ran, tmp_path, qtbot):
    labels = ran.controller.history.labels
    ran.presenter.select_cluster(0, "replace")
    panel = ran.selection_panel
    size = FigureSize(180, 120, "mm", 150)
    # no association table registered: the selection's composition by cluster stands in
    ran.register_figure_part("association", None)
    qtbot.waitUntil(lambda: panel.clusters.rowCount() == 1, timeout=120_000)
    ran.export_figure_page(size, str(tmp_path / "page.svg"))
    text = _svg_text(tmp_path / "page.svg")
    assert "Selection by cluster" in text and f"{int((labels == 0).sum()):,}" in text
    # a tool's registered table takes its place
    table = QTableWidget(2, 2)
    table.setHorizontalHeaderLabels(["column", "Cramér's V"])
    for i, (col, v) in enumerate([("diet", "0.81"), ("genotype", "0.64")]):
        table.setItem(i, 0, QTableWidgetItem(col))
        table.setItem(i, 1, QTableWidgetItem(v))
    ran.register_figure_part("association", table)
    for ext in ("svg", "pdf", "png"):
        ran.export_figure_page(size, str(tmp_path / f"page.{ext}"))
    text = _svg_text(tmp_path / "page.svg")
    assert "diet" in text and "Cramér's V" in text and "Selection by cluster" not in text
    assert "cluster 0" in text  # the embedding's legend
    assert _pdf_page_mm(tmp_path / "page.pdf") == pytest.approx((180, 120), abs=0.5)
    image = QImage(str(tmp_path / "page.png"))
    assert (image.width(), image.height()) == size.pixels()
    assert round(image.dotsPerMeterX() * 0.0254) == 150
    assert ran.messages.level != "error"


def test_figure_dialog_keeps_the_printed_size_when_the_unit_changes(qtbot):
    dialog = FigureDialog("Export", FigureSize(85, 60, "mm", 300))
    qtbot.addWidget(dialog)
    assert dialog.size() == FigureSize(85, 60, "mm", 300.0)
    assert "1,004 x 709 pixels" in dialog.info.text()
    dialog.unit_box.setCurrentIndex(0)  # px
    assert (dialog.width_box.value(), dialog.height_box.value()) == (1004, 709)
    dialog.format_box.setCurrentIndex(2)
    assert dialog.fmt == "pdf"


def test_the_dpi_changes_the_recorded_resolution_not_the_drawing(ran, tmp_path):
    """Text and geometry are laid out alike at any DPI: a device at 300 DPI once sized the
    plots' point fonts against 300 DPI but their geometry against the scale, moving the tick
    labels off their ticks."""
    for dpi in (96, 300):
        ran.export_plot("weights", FigureSize(600, 800, "px", dpi), str(tmp_path / f"{dpi}.png"))
    low, high = QImage(str(tmp_path / "96.png")), QImage(str(tmp_path / "300.png"))
    assert round(high.dotsPerMeterX() * 0.0254) == 300
    high.setDotsPerMeterX(low.dotsPerMeterX())
    high.setDotsPerMeterY(low.dotsPerMeterY())
    assert high == low
