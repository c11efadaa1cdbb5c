"""The app follows the data (issue 24, item 7).

1. The method form's n_clusters follows each new dataset (its classes, or "auto"); a number
   typed for the same dataset stays; remembered parameters never bring another's back.
2. Warnings about the data never hide the Data dock's views table.
3. Every per-view axis names the views (never 1..n), however the weights arrive.
4. A panel a method declares it has nothing for (``panel_notes`` on its class) says why in
   words, in place of the plot: never an empty axis; mvc_gui names no method.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QFontMetricsF, QImage, QPainter

from core.data.dataset import MultiViewDataset
from core.methods import REGISTRY
from mvc_gui.model.data_session import DataSession
from tests.conftest import make_blobs_views
from tests.mvc_gui.fake_solver import FakeSolver

LONG_NAMES = ["fourier", "profile", "karhunen", "pixels", "zernike", "morphology"]


def _names(shown: str, name: str) -> bool:
    """Whether an axis text names the view ``name`` (whole, or shortened with an ellipsis
    at its end or middle, keeping at least two letters)."""
    head, cut, tail = shown.strip().partition("\u2026")
    if not cut:
        return shown.strip() == name
    return len(head + tail) >= 2 and name.startswith(head) and name.endswith(tail)


def _dataset(name: str, c: int | None, n_views: int = 2, n: int = 120, **kw) -> MultiViewDataset:
    views, labels = make_blobs_views(n=n, c=c or 3, dims=tuple(range(3, 3 + n_views)))
    return MultiViewDataset(
        views=views,
        labels=labels if c else None,
        view_names=kw.pop("view_names", [f"v{i}" for i in range(n_views)]),
        name=name,
        source=f"test:{name}",
        **kw,
    )


def _load(window, ds: MultiViewDataset) -> None:
    window.set_session(DataSession(ds), ds.summary())


def _other_method() -> str:
    """A registered method besides the fake one whose form has n_clusters."""
    return next(
        name
        for name, cls in REGISTRY.items()
        if name != "fake" and "n_clusters" in cls.param_spec.names()
    )


# -- 1. n_clusters ---------------------------------------------------------------------------
def test_n_clusters_follows_each_new_dataset(qtbot, threads, window):
    panel, other = window.method_panel, _other_method()
    a = _dataset("A", c=3)
    _load(window, a)
    assert panel.params()["n_clusters"] == 3
    panel.form().editors["n_clusters"]._box.setValue(5)  # as typed
    panel.set_params({"max_iter": 3, "delay": 0.0})
    with qtbot.waitSignal(window.controller.run_finished, timeout=60_000):
        window.run()  # remembers the parameters (n_clusters = 5 among them)
    assert panel.params()["n_clusters"] == 5
    # the choice is the dataset's: every form shows it, switching methods keeps it
    panel.set_method(other)
    assert panel.params()["n_clusters"] == 5
    panel.set_method("fake")
    assert panel.params()["n_clusters"] == 5
    # the same dataset again (the file opened again): the typed number stays
    _load(window, a)
    assert panel.params()["n_clusters"] == 5

    # a new dataset without labels: "auto", in every form, also after switching methods
    # (the remembered 5 of the other dataset never comes back)
    _load(window, _dataset("B", c=None))
    editor = panel.form().editors["n_clusters"]
    assert panel.params()["n_clusters"] == "auto" and editor._auto.isChecked()
    panel.set_method(other)
    assert panel.params()["n_clusters"] == "auto"
    panel.set_method("fake")
    assert panel.params()["n_clusters"] == "auto"

    # a new labelled dataset: its number of classes
    c4 = _dataset("C", c=4)
    _load(window, c4)
    assert panel.params()["n_clusters"] == 4
    # other reference labels on the same data, nothing typed: their class count
    _load(window, replace(c4, labels=np.arange(c4.n_samples) % 2, class_names=[]))
    assert panel.params()["n_clusters"] == 2
    # typed, then the same data with other labels: the typed number stays
    panel.form().editors["n_clusters"]._box.setValue(7)
    _load(window, c4)
    assert panel.params()["n_clusters"] == 7
    # Reset to defaults: back to the data's classes, in every form
    panel.reset_defaults()
    assert panel.params()["n_clusters"] == 4
    panel.set_method(other)
    assert panel.params()["n_clusters"] == 4


def test_a_new_window_shows_the_new_datas_n_clusters(qtbot, qsettings, window):
    """Parameters remembered from an earlier session do not pin n_clusters on new data."""
    from mvc_gui.window.main_window import MainWindow

    _load(window, _dataset("A", c=3))
    window.method_panel.set_params({"n_clusters": 6})
    window.write_settings()
    again = MainWindow(qsettings)
    qtbot.addWidget(again)
    again.method_panel.set_method("fake")
    _load(again, _dataset("B", c=None))
    again.method_panel.set_method(_other_method())
    again.method_panel.set_method("fake")
    assert again.method_panel.params()["n_clusters"] == "auto"
    again.controller.shutdown(2.0)
    again.embedder.shutdown(5.0)


# -- 2. warnings and the views table ---------------------------------------------------------
def _visible_rows(table) -> int:
    height = table.viewport().height()
    return sum(
        table.rowViewportPosition(r) >= 0
        and table.rowViewportPosition(r) + table.rowHeight(r) <= height
        for r in range(table.rowCount())
    )


@pytest.mark.parametrize("n_views", [6, 2])
def test_warnings_never_hide_the_views_table(qtbot, window, n_views):
    rng = np.random.default_rng(0)
    n = 120
    observed = rng.random((n, n_views)) > 0.2
    observed[:, 0] = True
    warnings = [
        "incomplete views: 80 of 120 samples miss at least one view (from 'MissingStatus'; "
        "samples per view " + ", ".join(f"view {v + 1}: 96" for v in range(n_views)) + "); "
        "methods that handle incomplete views ignore the missing rows, the others refuse",
        "ignored 'folds': auxiliary variables (names like masks, indices, splits or seeds), "
        "not views",
        "held as float32: half the memory of float64",
    ]
    ds = _dataset("gappy", c=3, n_views=n_views, n=n, observed=observed, warnings=warnings)
    window.resize(1280, 800)
    window.show()
    _load(window, ds)
    panel = window.dataset_panel
    table = panel.table
    qtbot.waitUntil(lambda: _visible_rows(table) >= min(n_views, 4), timeout=120_000)
    # the warnings are all there, in a box of bounded height that scrolls
    assert panel.notes.isVisible() and "&#9888;" in panel.warnings.text()
    assert all(w[:40] in panel.warnings.text() for w in warnings)
    assert panel.notes.height() <= panel.notes.maximumHeight()
    assert "3 warnings" in panel.notes_button.text()
    # the Data dock squeezed as far as it goes: the table still shows its rows
    window.resizeDocks(
        [window.findChild(type(window.dataset_panel.parent()), "dataDock")], [10], _vertical()
    )
    qtbot.wait(50)
    assert _visible_rows(table) >= min(n_views, 4)
    # the notes fold away and come back
    panel.notes_button.click()
    assert not panel.notes.isVisible() and panel.notes_button.isVisible()
    panel.notes_button.click()
    assert panel.notes.isVisible()
    # data without warnings or ids: no notes box at all
    _load(window, _dataset("plain", c=3, n_views=n_views))
    assert not panel.notes_button.isVisible() and not panel.notes.isVisible()


def test_the_panel_alone_keeps_its_rows_however_small(qtbot):
    from mvc_gui.panels.dataset_panel import DatasetPanel

    panel = DatasetPanel()
    qtbot.addWidget(panel)
    warnings = [f"warning number {i}: " + "a long sentence about the data " * 6 for i in range(5)]
    ds = _dataset("gappy", c=3, n_views=6, warnings=warnings)
    panel.set_session(DataSession(ds), ds.summary())
    panel.resize(300, 120)  # smaller than it can be: the layout keeps its minimum
    panel.show()
    qtbot.waitUntil(lambda: panel.table.viewport().height() > 0, timeout=120_000)
    assert _visible_rows(panel.table) >= 4
    assert panel.notes.height() <= panel.notes.maximumHeight()


def _vertical():
    from PySide6.QtCore import Qt

    return Qt.Orientation.Vertical


# -- 3. view names on the weights axis -------------------------------------------------------
def test_tick_labels_fit_stagger_or_shorten(qtbot):
    from PySide6.QtGui import QFont

    from mvc_gui.plots.weights_plot import tick_labels

    font = QFont()
    font.setPointSizeF(7.5)
    fm = QFontMetricsF(font)
    names = ["fou", "fac", "kar", "pix", "zer", "mor"]
    assert tick_labels(names, 60, fm) == names  # one row
    staggered = tick_labels(names, 18, fm)
    assert staggered[0::2] == names[0::2] and staggered[1::2] == ["\n" + n for n in names[1::2]]
    short = tick_labels(LONG_NAMES, 12, fm)
    assert all(_names(shown, name) for shown, name in zip(short, LONG_NAMES, strict=True))
    # names alike at their start are shortened in the middle: still told apart
    alike = [f"view {i + 1}" for i in range(6)]
    shown = tick_labels(alike, 9, fm)
    assert all(_names(s, n) for s, n in zip(shown, alike, strict=True)), shown
    assert len({s.strip() for s in shown}) == 6, shown
    # a dozen views in a narrow panel (ProteinFold's 12): "view 1" and "view 11" would both
    # shorten to "v…1"; every view stays told apart, by its number where names cannot
    twelve = [f"view {i + 1}" for i in range(12)]
    for slot in (6, 9, 14):
        shown = [s.strip() for s in tick_labels(twelve, slot, fm)]
        assert len(set(shown)) == 12, (slot, shown)
        numbers = [str(i + 1) for i in range(12)]
        assert shown == numbers or all(map(_names, shown, twelve)), (slot, shown)
    assert [s.strip() for s in tick_labels(twelve, 6, fm)] == [str(i + 1) for i in range(12)]


def _drawn_ticks(plot) -> list[str]:
    """The tick texts the bottom axis actually draws (pyqtgraph drops those that stick out)."""
    image = QImage(400, 400, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        specs = plot.plot.getAxis("bottom").generateDrawSpecs(painter)
    finally:
        painter.end()
    return [text.strip() for _rect, _flags, text in specs[2]]


@pytest.mark.parametrize("width", [170, 260, 700])
def test_weights_axis_names_every_view_at_any_width(qtbot, width):
    from mvc_gui.plots.weights_plot import WeightsPlot

    plot = WeightsPlot()
    qtbot.addWidget(plot)
    plot.resize(width, 260)
    plot.show()
    plot.set_views(LONG_NAMES)
    plot.set_weights(np.linspace(0.1, 0.3, 6), animate=False)
    qtbot.waitUntil(lambda: len(_drawn_ticks(plot)) == 6, timeout=120_000)
    for shown, name in zip(_drawn_ticks(plot), LONG_NAMES, strict=True):
        assert _names(shown, name), (shown, name)
    if width >= 700:
        assert _drawn_ticks(plot) == LONG_NAMES  # room: the whole names, one row


def test_weights_name_the_views_live_after_a_views_change_and_replayed(qtbot, threads, window):
    names = ["fou", "fac", "kar"]
    _load(window, _dataset("three", c=3, n_views=3, view_names=names))
    weights = window.plots["weights"]
    window.method_panel.set_params({"max_iter": 3, "delay": 0.0, "n_clusters": 3})
    with qtbot.waitSignal(window.controller.run_finished, timeout=60_000):
        window.run()
    history = window.controller.history
    assert weights.names == names and [t.strip() for t in weights.tick_texts] == names
    np.testing.assert_allclose(weights.target, history.result.view_weights)
    # a view excluded after the run: the bars on display keep the names of their views
    window.session.included[2] = False
    window.dataset_panel.selection_changed.emit()
    assert weights.names == names and weights.target.any()
    # the run shown again (run list, reopened session): its own view names
    window.presenter.show_history(history)
    assert weights.names == names and weights.target.any()
    # weights of another number of views than the names known: named, never dropped
    from mvc_gui.model.panel_notes import WeightsDisplay

    weights.show_display(WeightsDisplay(np.array([0.5, 0.25, 0.125, 0.125]), "View weights", ""))
    assert weights.names == [f"view {i + 1}" for i in range(4)] and weights.target.any()
    # the next run takes the included views
    with qtbot.waitSignal(window.controller.run_finished, timeout=60_000):
        window.run()
    assert weights.names == names[:2]


# -- 4. panels a method has nothing for ------------------------------------------------------
NOTES = {
    "weights": "This test method weighs no views.",
    "anchor_graph": "This test method keeps no anchors.",
    "convergence": "This test method does not iterate.",
}


class QuietFakeSolver(FakeSolver):
    """The fake solver declaring it has nothing for three panels (it still reports weights
    and a graph: the declaration wins)."""

    name = "fake-quiet"
    title = "Quiet fake: a fake that declares its empty panels"
    panel_notes = NOTES


@pytest.fixture
def quiet(monkeypatch):
    monkeypatch.setitem(REGISTRY, QuietFakeSolver.name, QuietFakeSolver)
    return QuietFakeSolver


def _run(qtbot, window, method: str):
    window.method_panel.refresh_methods()
    window.method_panel.set_method(method)
    window.method_panel.set_params({"max_iter": 3, "delay": 0.0, "n_clusters": 3})
    with qtbot.waitSignal(window.controller.run_finished, timeout=60_000):
        window.run()
    return window.controller.history


def test_declared_panel_notes_replace_the_plots(qtbot, threads, quiet, window):
    _load(window, _dataset("blobs", c=3))
    p = window.plots
    started = []
    window.controller.run_started.connect(
        lambda _h: started.append((p["convergence"].plot_shown, p["heatmap"].plot_shown))
    )
    quiet_run = _run(qtbot, window, quiet.name)
    assert started[-1] == (False, False)  # the notes from the start, not only at the end
    for key, box in (("weights", p["weights"]), ("anchor_graph", p["heatmap"])):
        assert box.note.text() == NOTES[key] and not box.note.isHidden(), key
        assert not box.plot_shown, f"{key}: an empty axis beside the note"
    assert p["heatmap"].heat is None  # the graph it reports is not shown as anchors
    conv = p["convergence"]
    assert conv.note.text() == NOTES["convergence"] and not conv.plot_shown
    assert not conv.log_box.isVisible()

    # a method with every panel: plots back, no notes
    _run(qtbot, window, "fake")
    for box in (p["weights"], p["heatmap"], conv):
        assert box.plot_shown and box.note.isHidden()
    assert p["heatmap"].heat is not None and p["weights"].target.any()

    # the quiet run shown again, and played back: the notes again
    window.presenter.show_history(quiet_run)
    for box in (p["weights"], p["heatmap"], conv):
        assert not box.plot_shown and not box.note.isHidden()
    if quiet_run.snapshots:
        window.presenter.show_snapshot(quiet_run, 0)
        assert p["heatmap"].note.text() == NOTES["anchor_graph"] and not p["heatmap"].plot_shown


def test_notes_come_from_the_class_not_a_list_of_names(quiet):
    from mvc_gui.model.panel_notes import graph_note, panel_notes, weights_display

    assert panel_notes(quiet.name) == NOTES
    assert panel_notes("fake") == {} and panel_notes("not registered") == {}
    shown = weights_display(quiet.name, quiet.title, np.array([0.5, 0.5]), None, 2)
    assert shown.values is None and shown.note == NOTES["weights"]
    assert graph_note(quiet.name, quiet.title) == NOTES["anchor_graph"]
    assert graph_note("fake", "Fake solver") == "Fake solver builds no anchor graph to show."
    for name, cls in REGISTRY.items():  # every real method's declared sentences are used
        for key, text in cls.panel_notes.items():
            assert panel_notes(name)[key] == text


def _method_words() -> re.Pattern:
    words = set(REGISTRY) | {cls.__name__ for cls in REGISTRY.values()}
    words -= {"fake", "fake_rotating", "fake-quiet"}  # test doubles
    words -= {FakeSolver.__name__, QuietFakeSolver.__name__}
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])({alternatives})(?![\w-])", re.IGNORECASE)


def test_mvc_gui_code_names_no_method():
    """Methods say what they have on their class; the window's code names none (strings
    and names; docstrings may cite a paper)."""
    pattern = _method_words()
    root = Path(__file__).resolve().parents[3] / "mvc_gui"
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = "" if id(node) in docstrings else node.value
            elif isinstance(node, ast.Name):
                text = node.id
            elif isinstance(node, ast.Attribute):
                text = node.attr
            elif isinstance(node, ast.alias):
                text = node.name
            else:
                continue
            if m := pattern.search(text):
                found.append(f"{path.relative_to(root.parent)}:{node.lineno}: {m.group(0)!r}")
    assert not found, "\n".join(found)


def test_a_hundred_classes_leave_the_views_table_in_view(qtbot, window):
    """100Leaves: the list of 100 classes with their sizes filled the Data dock and the
    reference-labels row covered the views table; a dozen are named, all in the tooltip."""
    from mvc_gui.panels.dataset_panel import SHOWN_CLASSES

    views, _ = make_blobs_views(n=400, c=4, dims=(3, 4, 5))
    labels = np.repeat(np.arange(100), 4)
    ds = MultiViewDataset(views=views, labels=labels, name="leaves", source="test:leaves")
    window.resize(1280, 800)
    window.show()
    _load(window, ds)
    panel = window.dataset_panel
    qtbot.waitUntil(lambda: _visible_rows(panel.table) >= 3, timeout=120_000)
    text = panel.classes.text()
    assert "100 classes</b>, 4 samples each:" in text and "(88 more)" in text
    assert text.count("(4)") == SHOWN_CLASSES
    assert panel.classes.toolTip().count("(4)") == 100  # every class, with its size

    # once laid out, the reference-labels row sits below the table, not over its rows
    def below_table() -> bool:
        table_bottom = panel.table.mapTo(panel, panel.table.rect().bottomLeft()).y()
        return panel.reference.mapTo(panel, panel.reference.rect().topLeft()).y() >= table_bottom

    qtbot.waitUntil(below_table, timeout=120_000)
