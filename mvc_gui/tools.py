"""Optional tools of the main window (sweeps, robustness, run history, teaching, reports).

Each tool lives in its own module with an ``install(win)`` function that adds its docks
and menu entries (``win.tools_menu``, or ``win.file_menu`` before ``win.quit_separator``).
The window calls :func:`install_tools` once, after its own widgets and actions exist.
"""

from __future__ import annotations

from mvc_gui import (
    report_export,
    robustness_window,
    run_list,
    session_io,
    sweep_window,
    teaching_panel,
)

__all__ = ["install_tools"]


def install_tools(win) -> None:
    """Install every tool into ``win`` (one line per tool, in menu order)."""
    report_export.install(win)
    run_list.install(win)
    session_io.install(win)
    teaching_panel.install(win)
    sweep_window.install(win)
    robustness_window.install(win)
