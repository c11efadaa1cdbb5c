"""Optional tools of the main window (sweeps, robustness, run history, teaching, reports).

Each tool lives in its own module with an ``install(host)`` function that adds its docks and
menu entries (``host.tools_menu``, or ``host.file_menu`` before ``host.quit_separator``) and
returns what it created. Tools see the window only through :class:`~mvc_gui.tools.host.ToolHost`
and never set attributes on it; :func:`install_tools` gathers what they return in a
:class:`Tools`, which the window keeps as ``win.tools``.

May import: ``core``, ``mvc_gui.model``, ``mvc_gui.run``, ``mvc_gui.plots``,
``mvc_gui.panels`` (never ``mvc_gui.window``).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QAction

from mvc_gui.tools import (
    amputation,
    assign,
    autosave,
    choose_k,
    profiles,
    report,
    robustness,
    runs,
    sessions,
    sweep,
    table_import,
    teaching,
    workbench,
)
from mvc_gui.tools.autosave import Autosave
from mvc_gui.tools.choose_k import ChooseK
from mvc_gui.tools.experiment_window import WindowLauncher
from mvc_gui.tools.host import ToolHost
from mvc_gui.tools.runs import RunListPanel
from mvc_gui.tools.sessions import SessionIO
from mvc_gui.tools.table_import import TableImport
from mvc_gui.tools.teaching import TeachingTool
from mvc_gui.tools.workbench import Workbench

__all__ = ["ToolHost", "Tools", "install_tools"]


@dataclass(frozen=True)
class Tools:
    """What the tools installed: one field per tool, in menu order."""

    table_import: TableImport
    report_action: QAction
    assign_action: QAction
    profiles_action: QAction
    runs: RunListPanel
    sessions: SessionIO
    teaching: TeachingTool
    sweep: WindowLauncher
    robustness: WindowLauncher
    choose_k: ChooseK
    autosave: Autosave
    amputation: WindowLauncher
    workbench: Workbench


def install_tools(host: ToolHost) -> Tools:
    """Install every tool into ``host`` and return what they created."""
    run_list = runs.install(host)
    table = table_import.install(host)
    report_action = report.install(host)
    session_io = sessions.install(host, run_list)
    return Tools(
        table_import=table,
        report_action=report_action,
        assign_action=assign.install(host),
        profiles_action=profiles.install(host),
        runs=run_list,
        sessions=session_io,
        teaching=teaching.install(host),
        sweep=sweep.install(host),
        robustness=robustness.install(host),
        choose_k=choose_k.install(host),
        autosave=autosave.install(host, run_list, session_io),
        amputation=amputation.install(host),
        workbench=workbench.install(host),
    )
