"""File > Add view from file... / Load metadata... in the real window: views aligned by id,
counts in the Data dock, reference labels from a metadata column, exported ids = input ids."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from table_fixtures import write_h5mu, write_omics_tables

from mvc_gui.model.data_session import load_demo
from mvc_gui.panels.table_preview import PREVIEW_ROWS, TablePreviewDialog


def _load(qtbot, win, call):
    with qtbot.waitSignal(win.data_loaded, timeout=120_000):
        call()
    return win.session.dataset


def test_views_and_metadata_from_tables_then_run_and_export_ids(qtbot, window, tmp_path):
    info = write_omics_tables(tmp_path)
    tool = window.tools.table_import
    _load(qtbot, window, lambda: tool.add_view(str(tmp_path / "rna.csv"), name="rna"))
    ds = _load(qtbot, window, lambda: tool.add_view(str(tmp_path / "protein.tsv"), name="protein"))
    assert ds.view_names == ["rna", "protein"] and ds.n_samples == 120
    text = window.dataset_panel.ids_info.text()
    assert "120 in all (rna: 114, protein: 114); 108 in every view" in text
    assert "Missing views: rna: 6, protein: 6" in text
    # the fake method needs complete views: refused with a message, nothing runs
    assert window.run() is None and "needs every view" in window.messages.text
    ds = _load(qtbot, window, lambda: tool.add_view(str(tmp_path / "protein.tsv"),
                                                   name="protein", shared_only=True))  # fmt: skip
    assert ds.view_names == ["rna", "protein", "protein 2"]
    assert ds.n_samples == 108 and ds.complete
    meta = str(tmp_path / "clinical.tsv")
    ds = _load(qtbot, window, lambda: tool.set_meta(meta, None, "subtype"))
    combo = window.dataset_panel.reference
    assert [combo.itemText(i) for i in range(combo.count())] == ["none", "subtype", "site"]
    assert combo.currentText() == "subtype" and ds.class_names == ["Basal", "Her2", "LumA"]
    with qtbot.waitSignal(window.controller.run_finished, timeout=120_000):
        window.run()
    out = tmp_path / "labels.csv"
    window.ask_save_path = lambda *a: str(out)
    window.export_labels()
    rows = list(csv.reader(out.open()))
    assert rows[0] == ["sample_id", "cluster", "truth"]
    only_one = {info["ids"][i] for i in info["only_rna"] | info["only_prot"]}
    assert [r[0] for r in rows[1:]] == ds.ids.tolist()
    assert set(ds.ids.tolist()) == set(info["ids"].tolist()) - only_one
    truth = dict(zip(info["ids"].tolist(), info["labels"].tolist(), strict=True))
    assert all(truth[r[0]] == r[2] for r in rows[1:])
    # another categorical column as the reference labels: metrics follow it
    ds = _load(qtbot, window, lambda: window.tools.table_import.choose_reference("site"))
    assert ds.class_names == ["site 0", "site 1", "site 2", "site 3"]
    assert window.dataset_panel.reference.currentText() == "site"


def test_mudata_modalities_as_views_through_the_preview(qtbot, window, tmp_path, monkeypatch):
    m = write_h5mu(tmp_path / "m.h5mu")
    dlg = TablePreviewDialog(str(tmp_path / "m.h5mu"), "view", window)
    keys = [dlg.key.itemText(i) for i in range(dlg.key.count())]
    assert keys[:2] == ["rna/X", "prot/X"] or set(keys) >= {"rna/X", "prot/X"}
    assert dlg.table.rowCount() == PREVIEW_ROWS and dlg.table.item(0, 0).text() == "bc000"
    tool = window.tools.table_import
    for key in ("rna/X", "prot/X"):
        _load(qtbot, window, lambda k=key: tool.add_view(str(tmp_path / "m.h5mu"),
                                                         name=k.split("/")[0], key=k))  # fmt: skip
    ds = _load(qtbot, window, lambda: tool.set_meta(str(tmp_path / "m.h5mu"), None, "celltype"))
    assert ds.ids.tolist() == m["ids"].tolist() and ds.complete
    assert [ds.class_names[c] for c in ds.labels] == m["labels"].tolist()


def test_table_preview_shows_the_id_column_and_first_rows(qtbot, tmp_path):
    write_omics_tables(tmp_path)
    dlg = TablePreviewDialog(str(tmp_path / "rna.csv"), "view")
    qtbot.addWidget(dlg)
    ids = [dlg.id_column.itemText(i) for i in range(dlg.id_column.count())]
    assert ids[:2] == ["(automatic)", "sample"] and dlg.table.rowCount() == PREVIEW_ROWS
    assert dlg.table.horizontalHeaderItem(1).text() == "gene0"
    dlg.id_column.setCurrentIndex(1)
    assert dlg.choices()["id_column"] == "sample" and dlg.choices()["missing"] == "mean"


@pytest.mark.parametrize("text", ["id,a\nx,1\nx,2\n"])
def test_a_bad_view_file_keeps_the_current_data_and_says_why(qtbot, loaded, tmp_path, text):
    (tmp_path / "dup.csv").write_text(text)
    before = loaded.session
    worker = loaded.tools.table_import.add_view(str(tmp_path / "dup.csv"), name="dup")
    qtbot.waitUntil(lambda: not worker.is_alive(), timeout=60_000)
    qtbot.waitUntil(lambda: "duplicate sample id 'x'" in loaded.messages.text, timeout=120_000)
    assert loaded.session is before and np.all(loaded.session.dataset.ids == before.dataset.ids)


def test_a_session_of_table_views_reopens_the_same_files_and_runs(qtbot, window, tmp_path):
    write_omics_tables(tmp_path)
    tool = window.tools.table_import
    _load(qtbot, window, lambda: tool.add_view(str(tmp_path / "rna.csv"), name="rna"))
    meta = str(tmp_path / "clinical.tsv")
    ds = _load(qtbot, window, lambda: tool.set_meta(meta, None, "subtype"))
    with qtbot.waitSignal(window.controller.run_finished, timeout=120_000):
        window.run()
    path = str(tmp_path / "s.mvcs.json")
    with qtbot.waitSignal(window.tools.sessions.saved, timeout=120_000):
        window.tools.sessions.save(path)
    window.set_session(*load_demo())
    with qtbot.waitSignal(window.tools.sessions.restored, timeout=120_000) as blocker:
        window.tools.sessions.open(path)
    assert blocker.args == [[]]  # no warnings: same ids, same views
    again = window.session.dataset
    assert again.ids.tolist() == ds.ids.tolist() and again.class_names == ds.class_names
    assert len(window.tools.runs.entries) == 1


def test_incomplete_table_views_run_with_a_method_that_handles_them(qtbot, window, tmp_path):
    """Samples missing from a view reach the solver as its observed mask (not as zeros)."""
    info = write_omics_tables(tmp_path)
    tool = window.tools.table_import
    _load(qtbot, window, lambda: tool.add_view(str(tmp_path / "rna.csv"), name="rna"))
    _load(qtbot, window, lambda: tool.add_view(str(tmp_path / "protein.tsv"), name="protein"))
    meta = str(tmp_path / "clinical.tsv")
    ds = _load(qtbot, window, lambda: tool.set_meta(meta, None, "subtype"))
    assert not ds.complete
    window.method_panel.set_method("fmdc")
    window.method_panel.set_params({"n_clusters": 3})
    failures = []
    window.controller.run_failed.connect(lambda m, d: failures.append((m, d)))
    with qtbot.waitSignals([window.controller.run_finished], timeout=60_000,
                           raising=False) as blocker:  # fmt: skip
        assert window.run() is not None, window.messages.text
    assert blocker.signal_triggered, (failures, window.messages.text)
    result = window.controller.history.result
    assert result.ids == info["ids"][[int(s.split("-")[1]) for s in ds.ids]].tolist()
    assert result.metrics["acc"] > 0.95
