"""Optional tools of the main window (sweeps, robustness, run history, teaching, reports).

Each tool lives in its own module with an ``install(win)`` function that adds its docks
and menu entries (``win.tools_menu``, or ``win.file_menu`` before ``win.quit_separator``).
The window calls :func:`install_tools` once, after its own widgets and actions exist.

May import: ``core``, ``mvc_gui.model``, ``mvc_gui.run``, ``mvc_gui.plots``,
``mvc_gui.panels`` (never ``mvc_gui.window``).
"""

from __future__ import annotations

from mvc_gui.tools import choose_k, report, robustness, runs, sessions, sweep, teaching

__all__ = ["install_tools"]


def install_tools(win) -> None:
    """Install every tool into ``win`` (one line per tool, in menu order)."""
    report.install(win)
    runs.install(win)
    sessions.install(win)
    teaching.install(win)
    sweep.install(win)
    robustness.install(win)
    choose_k.install(win)
