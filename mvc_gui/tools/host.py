"""What a tool may use of the main window: the typed host interface.

Tools receive the window as a :class:`ToolHost` and use only what is listed here; they never
set attributes on it. Each tool's ``install(host)`` returns what it creates, and
:func:`mvc_gui.tools.install_tools` collects those in a :class:`~mvc_gui.tools.Tools`, kept by
the window as ``win.tools``. A new need of a tool is added here first, so the window's
interface stays one readable list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Callable

    import numpy as np
    from PySide6.QtCore import QSettings, SignalInstance
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QDockWidget, QLabel, QMenu, QWidget

    from core.analysis.groups import GroupSet
    from core.data.io import DataSpec
    from core.records.runs import RunResult
    from mvc_gui.model.data_session import DataSession
    from mvc_gui.model.playback import PlaybackFrame
    from mvc_gui.model.run_history import RunHistory
    from mvc_gui.panels.dataset_panel import DatasetPanel
    from mvc_gui.panels.message_bar import MessageBar
    from mvc_gui.panels.method_panel import MethodPanel
    from mvc_gui.run.controller import RunController
    from mvc_gui.run.embedding_controller import EmbeddingController

__all__ = ["Presenter", "SelectionLike", "ToolHost"]


class SelectionLike(Protocol):
    """The window's linked selection (``mvc_gui.window.selection.Selection``): the samples
    highlighted in every plot. ``changed`` is emitted after every change."""

    indices: np.ndarray  # sorted unique int64 sample indices
    description: str  # how it was made, in words ("lasso + cluster 2")
    changed: SignalInstance

    def __bool__(self) -> bool: ...

    def __len__(self) -> int: ...

    def set(
        self, indices: np.ndarray, description: str, cluster: int | None = None,
        mode: str = "replace",
    ) -> None:  # fmt: skip
        """Replace the selection by ``indices`` ("replace"), add them ("add") or take them
        out ("subtract")."""

    def clear(self) -> None: ...


class Presenter(Protocol):
    """What tools use of the window's presenter (it puts a run into every plot)."""

    history: RunHistory | None  # the run on display
    run_shown: SignalInstance  # a run's final labels are on display

    def show_history(self, history: RunHistory, caption: str = "") -> None: ...

    def show_live(self, history: RunHistory | None) -> None: ...

    def show_snapshot(self, history: RunHistory, index: int) -> PlaybackFrame: ...


class ToolHost(Protocol):
    """The main window as the tools see it (``mvc_gui.window.main_window.MainWindow``)."""

    # the data and the run
    session: DataSession | None
    controller: RunController
    presenter: Presenter
    embedder: EmbeddingController
    settings: QSettings
    data_loaded: SignalInstance
    closing: SignalInstance  # emitted once on a clean exit

    # the selection and the named groups (the Selection dock; the analysis tools read them)
    selection: SelectionLike
    groups: GroupSet  # one object for the window's life, emptied when other data loads
    groups_changed: SignalInstance  # emit it after changing ``groups``
    compare_requested: SignalInstance  # (group A, group B or "" for the rest) to compare

    # widgets a tool reads or reports to
    method_panel: MethodPanel
    dataset_panel: DatasetPanel
    messages: MessageBar
    stage_label: QLabel
    plots: dict[str, QWidget]

    # where a tool adds its entries
    file_menu: QMenu
    recent_menu: QMenu  # File > Open recent (data-loading entries go before it)
    tools_menu: QMenu
    quit_separator: QAction

    def add_dock(
        self, title: str, widget: QWidget, area: Any, name: str, *, floatable: bool = False
    ) -> QDockWidget: ...

    def ask_save_path(self, title: str, name: str, filters: str) -> str: ...

    def register_figure_part(self, name: str, widget: QWidget | None) -> None:
        """Offer ``widget`` to File > Figure... ("association": the table placed beside the
        embedding and the weights; a table view is drawn from its model, as text); None
        withdraws it."""

    def figure_parts(self) -> dict[str, QWidget]: ...

    def current_result(self) -> RunResult | None:
        """The run on display, or None (after telling the user there is nothing yet)."""

    def file_stem(self) -> str:
        """``<dataset>_<method>``: the stem of default export file names."""

    def run(self, *, paused: bool = False) -> int | None: ...

    def step(self) -> None: ...

    def set_session(self, session: DataSession, summary: dict, path: str | None = None) -> None: ...

    def load_file(
        self,
        path: str | DataSpec,
        done: Callable[[tuple[DataSession, dict]], None],
        failed: Callable[[str], None] | None = None,
    ) -> Any:
        """Read ``path`` (or the files a DataSpec names) in a child process (time and memory
        limits, progress, Cancel): ``done((session, summary))``, or the message bar says why
        and ``failed(message)``."""

    # QMainWindow's own, used to place docks
    def resizeDocks(self, docks: list, sizes: list[int], orientation: Any) -> None: ...

    def tabifyDockWidget(self, first: QDockWidget, second: QDockWidget) -> None: ...

    def findChild(self, kind: type, name: str = "") -> Any: ...
