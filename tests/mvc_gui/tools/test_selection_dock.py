"""The Selection dock on the real window: the selection's composition at once, named groups
(re-select, rename, delete, compare, colour by), sample id lists out and in, and groups kept
in a session file and reopened."""

from __future__ import annotations

import numpy as np
import pytest

from core.data.dataset import MultiViewDataset
from mvc_gui.model.data_session import DataSession
from mvc_gui.model.regions import points_in_polygon
from tests.conftest import make_blobs_views


@pytest.fixture(autouse=True)
def _threads(monkeypatch):
    monkeypatch.setenv("MVC_GUI_SOLVER", "thread")


def _dataset() -> MultiViewDataset:
    views, labels = make_blobs_views(n=120, c=3, dims=(4, 5))
    diet = np.array(["fat", "lean", "mixed"])[labels]
    diet[:6] = ""  # no value for six mice
    return MultiViewDataset(
        views=views, labels=labels, view_names=["genes", "lipids"], name="mice", source="test",
        sample_ids=np.array([f"m{i:03d}" for i in range(120)]),
        metadata={"diet": diet, "weight": np.linspace(10, 40, 120)},
    )  # fmt: skip


@pytest.fixture
def ran(qtbot, window):
    ds = _dataset()
    window.set_session(DataSession(ds), ds.summary())
    window.method_panel.set_params({"n_clusters": 3, "max_iter": 5})
    with qtbot.waitSignal(window.controller.run_finished, timeout=120_000):
        window.run()
    emb = window.plots["embedding"]
    qtbot.waitUntil(lambda: emb.xy is not None and not window.embedder.busy, timeout=120_000)
    return window


def _lasso_left_half(emb) -> np.ndarray:
    (x0, y0), (x1, y1) = emb.xy.min(axis=0), emb.xy.max(axis=0)
    xm = (x0 + x1) / 2
    return np.array([[x0 - 1, y0 - 1], [xm, y0 - 1], [xm, y1 + 1], [x0 - 1, y1 + 1]])


def test_composition_follows_the_selection(ran, qtbot):
    panel, sel = ran.selection_panel, ran.selection
    labels = ran.controller.history.labels
    emb = ran.plots["embedding"]
    poly = _lasso_left_half(emb)
    with qtbot.waitSignal(panel.counted, timeout=120_000):
        picked = emb.select_polygon(poly)
    np.testing.assert_array_equal(picked, np.flatnonzero(points_in_polygon(emb.xy, poly)))
    comp = panel.composition
    assert comp.size == picked.size == len(sel) and comp.n == 120
    assert f"{picked.size:,}" in panel.summary.text() and "lasso" in panel.summary.text()
    expected = {c: int((labels[picked] == c).sum()) for c in range(3)}
    shown = {
        int(panel.clusters.item(i, 0).text().split()[-1]): int(panel.clusters.item(i, 1).text())
        for i in range(panel.clusters.rowCount())
    }
    assert shown == {c: k for c, k in expected.items() if k}
    # by a metadata column: its values counted in the selection and in all the data
    panel.column_box.setCurrentIndex(panel.column_box.findText("diet"))
    qtbot.waitUntil(lambda: panel.values.rowCount() > 0 and panel.values.item(0, 0).text() in
                    {"fat", "lean", "mixed", "(missing)"}, timeout=120_000)  # fmt: skip
    diet = ran.session.dataset.metadata_column("diet")
    rows = {panel.values.item(i, 0).text(): (panel.values.item(i, 1).text(),
            panel.values.item(i, 3).text()) for i in range(panel.values.rowCount())}  # fmt: skip
    for value in ("fat", "lean", "mixed"):
        k = int((diet[picked] == value).sum())
        if k:
            assert rows[value] == (str(k), str(int((diet == value).sum())))
    # clearing: the dock says how to select
    with qtbot.waitSignal(panel.counted, timeout=120_000):
        sel.clear()
    assert "No selection" in panel.summary.text() and panel.clusters.rowCount() == 0


def test_named_groups_reselect_rename_delete_compare_and_colour(ran, qtbot):
    panel, sel = ran.selection_panel, ran.selection
    emb = ran.plots["embedding"]
    labels = ran.controller.history.labels
    changed = []
    ran.groups_changed.connect(lambda: changed.append(1))
    first = emb.select_polygon(_lasso_left_half(emb))
    assert panel.name_group("left half")
    ran.presenter.select_cluster(2, "replace")
    assert panel.name_group("cluster two")
    assert not panel.name_group("left half")  # a taken name: refused, said why
    assert ran.messages.level == "error" and "exists already" in ran.messages.text
    assert ran.groups.names() == ["left half", "cluster two"] and len(changed) == 2
    assert [panel.group_list.item(i).text() for i in range(2)] == ["left half", "cluster two"]
    # re-select, add and subtract a group
    panel.select_group("left half", "replace")
    np.testing.assert_array_equal(sel.indices, first)
    panel.select_group("cluster two", "add")
    np.testing.assert_array_equal(sel.indices, np.union1d(first, np.flatnonzero(labels == 2)))
    panel.select_group("left half", "subtract")
    np.testing.assert_array_equal(sel.indices, np.setdiff1d(np.flatnonzero(labels == 2), first))
    # colour by the groups: later groups drawn over earlier ones, the rest grey
    emb.chooser.select(("groups",))
    c = emb.colouring
    assert c.title == "groups" and c.names == ["left half", "cluster two"]
    expected = np.full(120, -1)
    expected[first] = 0
    expected[labels == 2] = 1
    np.testing.assert_array_equal(c.codes, expected)
    assert "left half" in emb.legend.text()
    # rename and compare (one group: against the rest; two: A vs B)
    assert panel.rename_group("left half", "west")
    assert ran.groups.names() == ["west", "cluster two"]
    asked = []
    ran.compare_requested.connect(lambda a, b: asked.append((a, b)))
    panel.group_list.item(0).setSelected(True)
    panel.compare()
    panel.group_list.item(1).setSelected(True)
    panel.compare()
    assert asked == [("west", ""), ("west", "cluster two")]
    panel.delete_group("west")
    assert ran.groups.names() == ["cluster two"]
    assert emb.colouring.names == ["cluster two"]


def test_ids_out_and_in(ran, tmp_path):
    panel, sel = ran.selection_panel, ran.selection
    ran.presenter.select_cluster(1, "replace")
    labels = ran.controller.history.labels
    path = panel.export_ids(str(tmp_path / "one.txt"))
    ids = ran.session.dataset.ids
    assert path.read_text().split() == ids[labels == 1].tolist()
    # a list written elsewhere (blank lines, comments) becomes a group named after the file
    (tmp_path / "responders.txt").write_text("# from the clinic\nm003\n\nm010\nm007\n")
    assert panel.import_ids(str(tmp_path / "responders.txt"))
    group = ran.groups.get("responders")
    assert group.indices.tolist() == [3, 7, 10]
    # an id the data does not have: nothing added, the message names it
    (tmp_path / "bad.txt").write_text("m001\nmouse_x\n")
    assert not panel.import_ids(str(tmp_path / "bad.txt"))
    assert "mouse_x" in ran.messages.text and ran.groups.names() == ["responders"]
    panel.group_list.item(0).setSelected(True)
    sel.clear()
    assert panel.export_ids(str(tmp_path / "resp_out.txt")).read_text() == "m003\nm007\nm010\n"


def test_groups_are_saved_in_the_session_and_reopened(qtbot, window, second_window, tmp_path):
    views, labels = make_blobs_views(n=90, c=3, dims=(4, 5))
    data = tmp_path / "tiny.npz"
    np.savez(data, X0=views[0], X1=views[1], y=labels)
    with qtbot.waitSignal(window.data_loaded, timeout=120_000):
        window.open_path(str(data))
    window.selection.set(np.arange(10, 40), "rows 10-39")
    assert window.selection_panel.name_group("early")
    window.groups.add("late", np.arange(80, 90), "#123456")
    window.groups_changed.emit()
    path = tmp_path / "s.mvcs.json"
    window.ask_save_path = lambda *a: str(path)
    with qtbot.waitSignal(window.tools.sessions.saved, timeout=120_000):
        window.tools.sessions.save_dialog()
    with qtbot.waitSignal(second_window.tools.sessions.restored, timeout=120_000) as done:
        second_window.tools.sessions.open(str(path))
    assert done.args == [[]]
    groups = second_window.groups
    assert groups.names() == ["early", "late"]
    np.testing.assert_array_equal(groups.get("early").indices, np.arange(10, 40))
    assert groups.get("late").colour == "#123456"
    assert second_window.selection_panel.group_list.count() == 2
    # other data: the groups (indices of the old data) are dropped
    with qtbot.waitSignal(second_window.data_loaded, timeout=120_000):
        second_window.load_demo("handwritten")
    assert len(second_window.groups) == 0 and second_window.selection_panel.group_list.count() == 0


@pytest.fixture
def second_window(qtbot, qsettings):
    from mvc_gui.window.main_window import MainWindow

    win = MainWindow(qsettings)
    qtbot.addWidget(win)
    win.method_panel.refresh_methods()
    yield win
    win.controller.shutdown(2.0)
    win.embedder.shutdown(5.0)
