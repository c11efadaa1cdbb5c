"""The analysis workbench in the real window (issue 26): a group lassoed in the embedding, named
and compared with the rest lists the features planted as different, in both directions, and no
others; samples missing a view are not counted; the association table ranks the Nutrimouse diet
and genotype above an unrelated column; view agreement; why a sample picked with the pointer is
in its cluster."""

from __future__ import annotations

import csv
import itertools

import numpy as np
import pyqtgraph as pg
import pytest
from nutrimouse_tables import nutrimouse, write_nutrimouse
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from scipy.spatial import ConvexHull

from mvc_gui.plots.volcano_plot import HIGHER

N, GROUP = 240, 60  # samples; the first GROUP ids form the group
UP, DOWN = {"rna": [0, 1, 2], "prot": [0]}, {"rna": [3, 4], "prot": [1, 2]}
DIMS = {"rna": 24, "prot": 12}


def write_planted(folder) -> dict:
    """Two id-keyed views (rows shuffled): in the group, ``UP`` features are 2.5 sd higher and
    ``DOWN`` lower than in the rest, the others are noise; 20 samples (8 of the group) have no
    protein row."""
    g = np.random.default_rng(10)  # a seed whose null features all have q > 0.3 (BH lets
    # a null feature through now and then at q < 0.05: by design, not a failure of the window)
    ids = np.array([f"s{i:03d}" for i in range(N)])
    in_group = np.arange(N) < GROUP
    no_prot = set(g.choice(GROUP, 8, replace=False).tolist())
    no_prot |= set((GROUP + g.choice(N - GROUP, 12, replace=False)).tolist())
    for view, sep in (("rna", ","), ("prot", "\t")):
        x = g.normal(size=(N, DIMS[view]))
        x[np.ix_(in_group, UP[view])] += 2.5
        x[np.ix_(in_group, DOWN[view])] -= 2.5
        lines = [sep.join(["sample"] + [f"{view}_{j}" for j in range(DIMS[view])])]
        for i in g.permutation(N):
            if view == "prot" and i in no_prot:
                continue
            lines.append(sep.join([ids[i]] + [f"{v:.6f}" for v in x[i]]))
        (folder / f"{view}.{'csv' if sep == ',' else 'tsv'}").write_text("\n".join(lines) + "\n")
    return {"ids": ids, "group": ids[:GROUP], "no_prot": {ids[i] for i in no_prot}}


def _load(qtbot, win, call):
    with qtbot.waitSignal(win.data_loaded, timeout=120_000):
        call()
    return win.session.dataset


def _significant(table) -> set[tuple[str, str]]:
    return {(table.names[j], str(table.direction[j])) for j in np.flatnonzero(table.significant())}


@pytest.fixture
def every_move():
    """Every mouse move of a drag counts (pyqtgraph drops moves closer than 1/60 s apart)."""
    before = pg.getConfigOption("mouseRateLimit")
    pg.setConfigOption("mouseRateLimit", 0)
    yield
    pg.setConfigOption("mouseRateLimit", before)


def _lasso(emb, polygon: np.ndarray) -> None:
    """Drag the lasso through ``polygon`` (data coordinates) on the embedding's viewport, in
    4-pixel steps with the left button held."""
    viewport = emb.view.viewport()
    pixels = [emb.view.mapFromScene(emb.vb.mapViewToScene(QPointF(*p))) for p in polygon]
    pixels.append(pixels[0])
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     pixels[0])  # fmt: skip
    for a, b in itertools.pairwise(pixels):
        steps = max(1, max(abs(b.x() - a.x()), abs(b.y() - a.y())) // 4)
        for s in range(1, steps + 1):
            p = QPoint(a.x() + (b.x() - a.x()) * s // steps, a.y() + (b.y() - a.y()) * s // steps)
            move = QMouseEvent(QEvent.Type.MouseMove, QPointF(p), QPointF(viewport.mapToGlobal(p)),
                               Qt.MouseButton.NoButton, Qt.MouseButton.LeftButton,
                               Qt.KeyboardModifier.NoModifier)  # fmt: skip
            QApplication.sendEvent(viewport, move)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                       pixels[-1])  # fmt: skip


def _around(points: np.ndarray, margin: float = 0.1) -> np.ndarray:
    """The convex hull of ``points``, widened by ``margin`` of its size from its centre."""
    hull = points[ConvexHull(points).vertices]
    centre = hull.mean(axis=0)
    return centre + (hull - centre) * (1 + margin)


@pytest.mark.usefixtures("threads", "every_move")
def test_compare_a_lassoed_group_with_the_rest_finds_the_planted_features(
    qtbot, window, tmp_path, monkeypatch
):
    info = write_planted(tmp_path)
    tool = window.tools.table_import
    _load(qtbot, window, lambda: tool.add_view(str(tmp_path / "rna.csv"), name="rna"))
    ds = _load(qtbot, window, lambda: tool.add_view(str(tmp_path / "prot.tsv"), name="prot"))
    assert ds.view_names == ["rna", "prot"] and ds.n_samples == N
    ids = ds.ids.tolist()
    group = np.array(sorted(ids.index(s) for s in info["group"]))
    # lasso the group in the embedding (its planted features set it apart in the layout)
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    emb = window.plots["embedding"]
    qtbot.waitUntil(lambda: emb.xy is not None and not window.embedder.busy, timeout=120_000)
    emb.vb.autoRange(padding=0.05)
    qtbot.wait(10)
    emb.tool_buttons["lasso"].click()
    _lasso(emb, _around(emb.xy[group]))
    np.testing.assert_array_equal(window.selection.indices, group)
    # name it, and compare it with the rest from the Selection dock
    panel = window.selection_panel
    assert panel.name_group("planted")
    panel.group_list.item(0).setSelected(True)
    panel.compare_button.click()
    page = window.tools.workbench.compare
    assert page.group_a.currentData() == "planted" and page.group_b.currentData() == "the rest"
    qtbot.waitUntil(lambda: not page.busy and len(page.tables) == 2, timeout=120_000)
    assert not np.isnan(page.tables[0].q).any()  # the full statistics, not the effect sizes only
    for v, view in enumerate(("rna", "prot")):
        table = page.tables[v]
        planted = {(f"{view}_{j}", "higher") for j in UP[view]}
        planted |= {(f"{view}_{j}", "lower") for j in DOWN[view]}
        assert _significant(table) == planted, view
    # samples without a protein row are counted in neither group
    prot = page.tables[1]
    no_prot = {ids.index(s) for s in info["no_prot"]}
    assert prot.n_a == GROUP - len(no_prot & set(group.tolist()))
    assert prot.n_b == (N - GROUP) - len(no_prot - set(group.tolist()))
    assert page.tables[0].n_a == GROUP and page.tables[0].n_b == N - GROUP
    # the window shows it: the protein table, its rows, the counts, the volcano
    page.view_box.setCurrentIndex(1)
    assert page.model.rowCount() == DIMS["prot"]
    assert f"{prot.n_a:,} samples with this view" in page.counts.text()
    assert "3 of 12 with q < 0.05" in page.volcano.title.text()
    # a click on the strongest feature shows its values by group, observed samples only
    page.table.selectRow(0)
    qtbot.waitUntil(lambda: len(page.distribution.groups) == 2, timeout=120_000)
    assert page.distribution.groups[0].endswith(f"(n={prot.n_a:,})")
    # a click on a volcano point (prot_0, higher in A) selects its row
    layer = page.volcano.layers[HIGHER]
    point = layer.points()[0]
    layer.sigClicked.emit(layer, [point], None)
    row = page.table.currentIndex().row()
    assert page.model.value(row, 1) == "prot_0" and page.model.value(row, 8) == "higher"
    # sorting by q keeps the planted features first
    page.table.sortByColumn(7, page.table.horizontalHeader().sortIndicatorOrder().AscendingOrder)
    top = {page.model.value(r, 1) for r in range(3)}
    assert top == {"prot_0", "prot_1", "prot_2"}
    out = tmp_path / "compare.csv"
    monkeypatch.setattr(window, "ask_save_path", lambda *a: str(out))
    page.export_csv()
    qtbot.waitUntil(out.exists, timeout=120_000)
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == DIMS["rna"] + DIMS["prot"]
    assert {r["name"] for r in rows if float(r["q"]) < 0.05} == {
        f"{v}_{j}" for v in ("rna", "prot") for j in UP[v] + DOWN[v]
    }
    # Cancel: the page is free at once, and what the stopped worker computed is never shown
    worker = page.start()
    page.cancel()
    assert not page.busy and "cancelled" in page.status.text()
    qtbot.waitUntil(lambda: not worker.is_alive(), timeout=120_000)
    qtbot.wait(50)  # its last signals delivered
    assert page.tables == [] and page.model.rowCount() == 0
    # group A against group B: two groups picked in the Selection dock
    others = np.setdiff1d(np.arange(N), group)[:50]
    window.selection.set(others, "others")
    assert panel.name_group("others")
    for i in range(panel.group_list.count()):
        panel.group_list.item(i).setSelected(True)
    panel.compare_button.click()
    assert page.group_a.currentData() == "planted" and page.group_b.currentData() == "others"
    qtbot.waitUntil(lambda: not page.busy and len(page.tables) == 2, timeout=120_000)
    assert page.tables[0].n_a == GROUP and page.tables[0].n_b == others.size
    assert page.tables[1].n_b == others.size - len(no_prot & set(others.tolist()))
    assert {(f"rna_{j}", "higher") for j in UP["rna"]} <= _significant(page.tables[0])


def _with_survival(t: dict) -> None:
    """Add ``weeks``, ``died`` (the ppar mice die sooner: planted) and ``weeks_shuffled`` (the
    same times, shuffled between mice) to the metadata table."""
    g = np.random.default_rng(3)
    data = t["data"]
    n = data["ids"].size
    weeks = np.where(data["genotype"] == 1, g.exponential(5, n), g.exponential(50, n)).round(1)
    died = (g.random(n) < 0.85).astype(int)
    shuffled = g.permutation(weeks)
    row = {s: i for i, s in enumerate(data["ids"])}
    lines = t["meta"].read_text().splitlines()
    out = [lines[0] + ",weeks,died,weeks_shuffled"]
    for line in lines[1:]:
        i = row[line.split(",")[0]]
        out.append(f"{line},{weeks[i]},{died[i]},{shuffled[i]}")
    t["meta"].write_text("\n".join(out) + "\n")


@pytest.mark.usefixtures("threads")
def test_association_ranks_diet_and_genotype_above_an_unrelated_column(qtbot, window, tmp_path):
    t = write_nutrimouse(tmp_path, nutrimouse(n_per=8))  # 80 mice: power for 10 clusters
    _with_survival(t)
    tool = window.tools.table_import
    _load(qtbot, window, lambda: tool.add_view(str(t["genes"]), name="genes"))
    _load(qtbot, window, lambda: tool.add_view(str(t["lipids"]), name="lipids"))
    ds = _load(qtbot, window, lambda: tool.set_meta(str(t["meta"]), None, None))
    assert {"genotype", "diet", "cage"} <= set(ds.metadata)
    window.method_panel.set_method("fmdc")
    window.method_panel.set_params({"n_clusters": 10})
    with qtbot.waitSignal(window.controller.run_finished, timeout=120_000):
        window.run()
    page = window.tools.workbench.association
    page.start()
    qtbot.waitUntil(lambda: not page.busy and bool(page.rows), timeout=120_000)
    order = [page.model.value(r, 0) for r in range(page.model.rowCount())]
    assert order.index("diet") < order.index("cage")
    assert order.index("genotype") < order.index("cage")
    part = window.figure_parts()["association"]  # what File > Figure... places
    assert [part.model().value(r, 0) for r in range(part.model().rowCount())] == order
    cage = page.rows[order.index("cage")]
    assert cage.p > 0.05 and min(r.p for r in page.rows if r.column != "cage") < 0.01
    # a click on a categorical column shows its contingency table: clusters x values
    page.table.selectRow(order.index("diet"))
    qtbot.waitUntil(lambda: page.contingency_plot.counts.size > 0, timeout=120_000)
    assert page.contingency_plot.counts.shape[1] == 5
    assert int(page.contingency_plot.counts.sum()) == ds.n_samples
    # a numeric column: its values per cluster, every mouse with a value counted once
    page.table.selectRow(order.index("weeks"))
    qtbot.waitUntil(lambda: page.detail.currentWidget() is page.by_cluster, timeout=120_000)
    counts = [int(name.split("(n=")[1].rstrip(")")) for name in page.by_cluster.groups]
    clusters = np.unique(window.current_result().labels)
    assert sum(counts) == ds.n_samples and len(counts) == clusters.size
    # Kaplan-Meier per cluster: the planted survival difference is found, the shuffled one not
    page.start_survival("weeks", "died")
    qtbot.waitUntil(lambda: page.survival_result is not None, timeout=120_000)
    assert page.survival_result.p < 0.01 and len(page.survival_plot.curves) >= 2
    assert "log-rank p" in page.survival_plot.title.text()
    page.survival_result = None
    page.start_survival("weeks_shuffled", "died")
    qtbot.waitUntil(lambda: page.survival_result is not None, timeout=120_000)
    assert page.survival_result.p > 0.01


@pytest.mark.usefixtures("threads")
def test_views_agreement_and_why_a_picked_sample_is_here(qtbot, loaded):
    loaded.resize(1280, 800)
    loaded.show()
    qtbot.waitExposed(loaded)
    loaded.method_panel.set_method("fmdc")
    loaded.method_panel.set_params({"n_clusters": 3})
    with qtbot.waitSignal(loaded.controller.run_finished, timeout=120_000):
        loaded.run()
    bench = loaded.tools.workbench
    views = bench.views
    views.start()
    qtbot.waitUntil(lambda: not views.busy and views.agreement is not None, timeout=120_000)
    va = views.agreement
    assert list(va.view_names) == ["alpha", "beta"] and views.model.rowCount() == 2
    assert (np.asarray(va.ari) > 0.9).all()  # well separated blobs: each view alone agrees
    assert np.isfinite(views.model.value(0, 3))  # fmdc learns view weights
    # pick a sample with the pointer in the embedding
    emb = loaded.plots["embedding"]
    qtbot.waitUntil(lambda: emb.xy is not None and not loaded.embedder.busy, timeout=120_000)
    why = bench.why
    bench.show_page(why)
    emb.vb.autoRange(padding=0.05)
    qtbot.wait(10)
    why.pick_button.setChecked(True)
    i = 17
    scene = emb.vb.mapViewToScene(QPointF(*emb.xy[i]))
    pos = emb.view.mapFromScene(scene)
    QTest.mouseClick(emb.view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(pos.x(), pos.y()))
    qtbot.waitUntil(lambda: not why.busy and why.explanation is not None, timeout=120_000)
    ex = why.explanation
    picked = int(np.argmin(((emb.xy - emb.xy[i]) ** 2).sum(axis=1)))
    assert ex.index == picked and loaded.selection.indices.tolist() == [picked]
    result = loaded.current_result()
    assert ex.cluster == int(result.labels[picked])
    assert why.votes_model.rowCount() == 2 and why.neighbours_model.rowCount() == 2
    assert f"is in cluster {ex.cluster}" in why.status.text()
