"""Actions, menus and the tool bar of the main window (one place for shortcuts and tips)."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

from mvc_gui.resources import icon

__all__ = ["create_actions", "demos"]

SYNTHETIC = (
    ("synthetic-3000", "Synthetic: 3,000 samples, 3 views, 8 classes"),
    ("synthetic-100000", "Synthetic: 100,000 samples, 3 views, 8 classes"),
)


def demos() -> list[tuple[str, str]]:
    """Embedded demos (from core.data.demo when available) and synthetic sets."""
    try:
        from core.data.demo import DEMOS as CORE_DEMOS
    except ImportError:
        CORE_DEMOS = {"handwritten": "UCI handwritten digits"}
    return [
        (k, v.split(":")[0] + ": " + v.partition(":")[2].strip()) for k, v in CORE_DEMOS.items()
    ] + list(SYNTHETIC)


def _action(win: QMainWindow, text: str, slot, tip: str, shortcut=None, icon_name: str = ""):
    act = QAction(text, win)
    act.setStatusTip(tip)
    act.setToolTip(tip)
    if shortcut is not None:
        act.setShortcut(QKeySequence(shortcut))
    if icon_name:
        act.setIcon(icon(icon_name))
    act.triggered.connect(slot)
    return act


def create_actions(win) -> None:
    """Create ``win.*_action`` attributes, the menus and the tool bar."""
    win.open_action = _action(
        win,
        "&Open...",
        win.open_dialog,
        "Open a .mat, .npz or CSV file",
        QKeySequence.StandardKey.Open,
        "open",
    )
    win.open_folder_action = _action(
        win, "Open CSV &folder...", win.open_folder_dialog, "Open a folder of view_<name>.csv files"
    )
    win.export_labels_action = _action(
        win,
        "Export &labels (CSV)...",
        win.export_labels,
        "Sample index, cluster, true label",
        "Ctrl+E",
        "export",
    )
    win.export_run_action = _action(
        win,
        "Export run &record (JSON)...",
        win.export_run,
        "Parameters, seed, versions, history and metrics",
    )
    win.export_selection_action = _action(
        win, "Export &selection (CSV)...", win.export_selection, "The selected samples"
    )
    win.figure_action = _action(
        win,
        "&Figure...",
        win.export_figure_page,
        "The embedding, the view weights and the association table on one page (PNG, SVG or "
        "PDF at a chosen size and DPI)",
    )
    win.quit_action = _action(
        win, "&Quit", win.close, "Quit MVC Studio", QKeySequence.StandardKey.Quit
    )
    win.run_action = _action(
        win, "&Run", win.run, "Run the method on the dataset (F5)", "F5", "run"
    )
    win.pause_action = _action(
        win, "&Pause", win.toggle_pause, "Pause / resume between iterations (F6)", "F6", "pause"
    )
    win.pause_action.setCheckable(True)
    win.step_action = _action(
        win, "S&tep", win.step, "Run one more iteration, then pause (F7)", "F7", "step"
    )
    win.stop_action = _action(win, "&Stop", win.stop, "Stop the run (Shift+F5)", "Shift+F5", "stop")
    mb = win.menuBar()
    file_menu = win.file_menu = mb.addMenu("&File")
    file_menu.addActions([win.open_action, win.open_folder_action])
    win.recent_menu = file_menu.addMenu("Open &recent")
    demo_menu = file_menu.addMenu(icon("demo"), "Open &demo")
    for name, text in demos():
        demo_menu.addAction(_action(win, text, lambda _=False, n=name: win.load_demo(n), text))
    file_menu.addSeparator()
    file_menu.addActions(
        [win.export_labels_action, win.export_run_action, win.export_selection_action]
    )
    win.plots_menu = QMenu("Export &plot", win)
    file_menu.addMenu(win.plots_menu)
    file_menu.addAction(win.figure_action)
    win.quit_separator = file_menu.addSeparator()
    file_menu.addAction(win.quit_action)
    run_menu = mb.addMenu("&Run")
    run_menu.addActions([win.run_action, win.pause_action, win.step_action, win.stop_action])
    win.view_menu = mb.addMenu("&View")
    win.tools_menu = mb.addMenu("&Tools")
    tb = win.addToolBar("Main")
    tb.setObjectName("mainToolBar")
    tb.addActions([win.open_action])
    tb.addSeparator()
    tb.addActions([win.run_action, win.pause_action, win.step_action, win.stop_action])
    tb.addSeparator()
    tb.addAction(win.export_labels_action)
