"""Tools > Cluster profiles... (issue 14, item 1): a sortable table and a heat map of the
run on display, exported as CSV."""

from __future__ import annotations

import csv

from mvc_gui.tools.profiles import open_profiles


def test_profiles_window_table_heatmap_and_export(qtbot, loaded, tmp_path, monkeypatch):
    loaded.method_panel.set_params({"n_clusters": 3, "max_iter": 5})
    with qtbot.waitSignal(loaded.controller.run_finished, timeout=120_000):
        loaded.run()
    worker = open_profiles(loaded)
    qtbot.waitUntil(lambda: hasattr(worker, "dialog"), timeout=120_000)
    dialog = worker.dialog
    assert dialog.table.rowCount() > 0 and dialog.image.image is not None
    assert dialog.image.image.shape[1] == 3  # features x clusters
    dialog.table.sortItems(7, order=dialog.table.horizontalHeader().sortIndicatorOrder())
    dialog.view_box.setCurrentIndex(1)
    assert dialog.table.item(0, 3).text()  # a feature name
    out = tmp_path / "p.csv"
    monkeypatch.setattr(loaded, "ask_save_path", lambda *a: str(out))
    dialog.export_csv()
    rows = list(csv.DictReader(open(out)))
    assert {r["view"] for r in rows} == {"alpha", "beta"} and all(
        float(r["q"]) < 0.05 for r in rows
    )
    dialog.close()
