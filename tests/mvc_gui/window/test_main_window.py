"""The real main window, offscreen: load files, run, stop, errors, exports, close."""

from __future__ import annotations

import csv
import json
import threading

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from tests.conftest import make_blobs_views


def _wait_loaded(qtbot, win, name):
    qtbot.waitUntil(
        lambda: win.session is not None and win.session.dataset.name == name, timeout=60_000
    )


def _write_files(tmp_path):
    views, labels = make_blobs_views(n=90, c=3, dims=(4, 5))
    mat = tmp_path / "tiny.mat"
    cell = np.empty((1, 2), dtype=object)
    cell[0, 0], cell[0, 1] = views[0], sp.csc_matrix(views[1])
    scipy.io.savemat(mat, {"X": cell, "Y": (labels + 1)[:, None].astype(float)})
    npz = tmp_path / "tiny.npz"
    np.savez(npz, X0=views[0], X1=views[1], y=labels)
    folder = tmp_path / "tiny_csv"
    folder.mkdir()
    for i, v in enumerate(views):
        np.savetxt(folder / f"view_{i + 1}.csv", v, delimiter=",")
    np.savetxt(folder / "labels.csv", labels, fmt="%d")
    single = tmp_path / "tiny.csv"
    header = [f"a:{j}" for j in range(4)] + [f"b:{j}" for j in range(5)] + ["label"]
    rows = np.hstack([views[0], views[1], labels[:, None]])
    with open(single, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows.tolist())
    return {"mat": mat, "npz": npz, "csv-folder": folder, "csv": single}


def test_window_opens_empty(window):
    assert window.windowTitle() == "MVC Studio"
    assert window.method_panel.method == "fake"
    assert not window.stop_action.isEnabled() and window.run_action.isEnabled()


@pytest.mark.parametrize("kind", ["mat", "npz", "csv-folder", "csv"])
def test_load_every_kind_of_file(qtbot, window, tmp_path, kind):
    path = _write_files(tmp_path)[kind]
    window.open_path(str(path))
    qtbot.waitUntil(lambda: window.session is not None, timeout=60_000)
    ds = window.session.dataset
    assert ds.n_samples == 90 and ds.n_views == 2 and ds.n_classes == 3
    assert window.dataset_panel.table.rowCount() == 2
    assert "3 classes" in window.dataset_panel.classes.text()
    assert window.method_panel.params()["n_clusters"] == 3
    assert str(path) in window.settings.value("recent_files")


def test_corrupt_file_shows_error_and_keeps_dataset(qtbot, loaded, tmp_path):
    before = loaded.session
    bad = tmp_path / "broken.mat"
    bad.write_bytes(b"MATLAB 5.0 MAT-file" + b"\x00garbage" * 20)
    loaded.open_path(str(bad))
    qtbot.waitUntil(lambda: loaded.messages.level == "error", timeout=60_000)
    assert "broken.mat" in loaded.messages.text
    assert "previous dataset stays" in loaded.messages.text
    assert loaded.session is before


def test_run_to_completion_updates_every_plot(qtbot, loaded, tmp_path):
    loaded.method_panel.set_params({"n_clusters": 3, "max_iter": 15})
    with qtbot.waitSignal(loaded.controller.run_finished, timeout=60_000):
        loaded.run()
    h = loaded.controller.history
    p = loaded.plots
    x, y = p["convergence"].curve.getData()
    assert list(x) == list(range(1, 16)) and y[-1] == pytest.approx(100 / 15)
    assert p["convergence"].metric_curves["acc"].getData()[1].size == 15
    np.testing.assert_allclose(p["weights"].target, h.final.state.view_weights)
    assert p["heatmap"].heat is h.heat and p["heatmap"].heat.row_cluster is not None
    np.testing.assert_array_equal(p["embedding"].labels, h.labels)
    counts = np.bincount(h.labels, minlength=3)
    assert p["confusion"].image.image is not None
    legend = loaded.results_panel.legend
    assert [legend.item(i).text().split()[-2] for i in range(legend.count())] == [
        f"{c:,}" for c in counts
    ]
    table = loaded.results_panel.table
    assert table.item(0, 0).text() == "ACC"
    assert "Finished" in loaded.stage_label.text()
    assert loaded.progress.value() == 1000
    # the layout arrives from its own worker and is cached per representation
    qtbot.waitUntil(lambda: not loaded.embedder.busy, timeout=120_000)
    assert p["embedding"].xy.shape == (150, 2)
    from mvc_gui.run.workers import layout_key

    assert layout_key(loaded.session, None, "tsne") in loaded.embedder.cache


def test_export_labels_run_and_selection(qtbot, loaded, tmp_path, monkeypatch):
    with qtbot.waitSignal(loaded.controller.run_finished, timeout=60_000):
        loaded.run()
    target = {"path": str(tmp_path / "labels.csv")}
    monkeypatch.setattr(loaded, "ask_save_path", lambda *a: target["path"])
    loaded.export_labels()
    rows = list(csv.reader(open(target["path"])))
    assert rows[0] == ["sample_id", "cluster", "truth"] and len(rows) == 151
    labels = loaded.controller.history.labels  # display numbers (steady colours)
    ds = loaded.session.dataset
    assert [r[0] for r in rows[1:]] == ds.ids.tolist()
    assert [int(r[1]) for r in rows[1:]] == loaded.controller.history.solver_labels.tolist()
    assert [r[2] for r in rows[1:]] == [ds.class_names[c] for c in ds.labels]
    target["path"] = str(tmp_path / "run.json")
    loaded.export_run()
    record = json.loads(open(target["path"]).read())
    assert record["method"] == "fake" and "acc" in record["metrics"]
    loaded.presenter.select_cluster(1)
    assert loaded.selection.indices.tolist() == np.flatnonzero(labels == 1).tolist()
    assert loaded.plots["heatmap"].highlight.isVisible()
    target["path"] = str(tmp_path / "sel.csv")
    loaded.export_selection()
    rows = list(csv.reader(open(target["path"])))
    assert len(rows) - 1 == int((labels == 1).sum())
    assert [r[0] for r in rows[1:]] == ds.ids[labels == 1].tolist()
    for name in loaded.plots:
        for ext in ("png", "svg"):
            target["path"] = str(tmp_path / f"{name}.{ext}")
            try:
                loaded.export_plot(name)
            except Exception as e:
                raise AssertionError((name, ext)) from e
            assert (tmp_path / f"{name}.{ext}").stat().st_size > 100, (name, ext)
    assert loaded.messages.level != "error"


def test_stop_mid_run_and_stale_parameters(qtbot, loaded):
    loaded.method_panel.set_params({"max_iter": 1000, "delay": 0.05})
    loaded.run()
    qtbot.waitUntil(lambda: len(loaded.controller.history.iterations) >= 2, timeout=120_000)
    loaded.method_panel.set_params({"lam": 10.0})
    assert loaded.stale and loaded.messages.level == "info"
    with qtbot.waitSignal(loaded.controller.run_stopped, timeout=120_000):
        loaded.stop_action.trigger()
    assert loaded.run_action.isEnabled() and not loaded.stop_action.isEnabled()
    assert "stopped" in loaded.results_panel.status.text()
    n_before = len(loaded.plots["convergence"].curve.getData()[0])
    qtbot.wait(200)
    assert len(loaded.plots["convergence"].curve.getData()[0]) == n_before


def test_a_stopped_run_shows_every_iteration_it_made(qtbot, loaded):
    """Frames inside the redraw throttle are drawn when the user stops, not dropped."""
    loaded.controller.iteration_done.disconnect(loaded.presenter.on_iteration_done)
    loaded.method_panel.set_params({"max_iter": 1000, "delay": 0.02})
    loaded.run()
    qtbot.waitUntil(lambda: len(loaded.controller.history.iterations) >= 3, timeout=120_000)
    with qtbot.waitSignal(loaded.controller.run_stopped, timeout=120_000):
        loaded.stop_action.trigger()
    x, _y = loaded.plots["convergence"].curve.getData()
    assert list(x) == loaded.controller.history.iterations
    assert loaded.plots["heatmap"].heat is loaded.controller.history.heat


def test_run_error_shows_message_with_details(qtbot, loaded):
    loaded.method_panel.set_params({"fail_at": 2})
    with qtbot.waitSignal(loaded.controller.run_failed, timeout=120_000):
        loaded.run()
    assert loaded.messages.level == "error" and "fake failure" in loaded.messages.text
    assert "Traceback" in loaded.messages.details
    assert loaded.messages.details_button.isVisibleTo(loaded.messages)
    x, _y = loaded.plots["convergence"].curve.getData()  # the state it reached stays shown
    assert list(x) == loaded.controller.history.iterations


def test_excluding_views_changes_representation(qtbot, loaded):
    key = loaded.session.key
    loaded.session.included[1] = False
    loaded.dataset_panel.selection_changed.emit()
    assert loaded.session.key != key
    assert loaded.plots["weights"].names == ["alpha"]
    with qtbot.waitSignal(loaded.controller.run_finished, timeout=60_000):
        loaded.run()
    assert loaded.controller.history.result.view_names == ["alpha"]


def test_settings_persist_method_params(qtbot, qsettings, window):
    window.method_panel.set_params({"lam": 0.5, "mode": "b"})
    window.write_settings()
    from mvc_gui.window.main_window import MainWindow

    again = MainWindow(qsettings)
    qtbot.addWidget(again)
    again.method_panel.set_method("fake")
    assert again.method_panel.params()["mode"] == "b"
    assert again.method_panel.params()["lam"] == pytest.approx(0.5)
    assert int(qsettings.value("settings_version")) >= 1


def test_close_during_run_is_clean(qtbot, loaded):
    loaded.method_panel.set_params({"max_iter": 1000, "delay": 0.05})
    loaded.run()
    qtbot.waitUntil(lambda: bool(loaded.controller.history.iterations), timeout=120_000)
    loaded.close()
    qtbot.wait(50)
    assert not [t for t in threading.enumerate() if t.name.endswith("SolverWorker")]
    from mvc_gui.run.solver_process import SolverServer

    assert not SolverServer.shared().alive


def test_linked_selection_from_embedding_and_confusion(qtbot, loaded):
    from PySide6.QtCore import QRectF

    with qtbot.waitSignal(loaded.controller.run_finished, timeout=60_000):
        loaded.run()
    qtbot.waitUntil(lambda: loaded.plots["embedding"].xy is not None, timeout=120_000)
    emb = loaded.plots["embedding"]
    xy = emb.xy
    x0, x1 = np.percentile(xy[:, 0], [0, 50])
    emb.vb.rect_selected.emit(QRectF(x0, xy[:, 1].min(), x1 - x0, np.ptp(xy[:, 1])))
    picked = loaded.selection.indices
    assert picked.size and np.all(xy[picked, 0] <= x1 + 1e-9)
    assert emb.selected is not None and emb.selected.sum() == picked.size
    assert "150" not in loaded.results_panel.selection_label.text()
    conf = loaded.plots["confusion"]
    conf.cluster_clicked.emit(int(conf.order[0]))
    assert loaded.selection.cluster == int(conf.order[0])
    assert conf.highlight.isVisible()
    loaded.presenter.select_cluster(loaded.selection.cluster)  # clicking again clears
    assert not loaded.selection and not conf.highlight.isVisible()
