"""Parts of the analysis workbench: a worker that steps an analysis generator in a thread, and a
table model over NumPy columns (thousands of rows shown and sorted without building one item
per cell, so the window does not stall on a 5,000-feature view)."""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from PySide6.QtCore import (
    QAbstractTableModel,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    Qt,
    Signal,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from mvc_gui.run.workers import _ThreadWorker
from mvc_gui.tools.host import ToolHost

__all__ = [
    "ALPHA",
    "REST",
    "SELECTION",
    "ColumnsModel",
    "GroupBox",
    "Page",
    "StepsWorker",
    "format_cell",
    "named_groups",
    "select_row",
    "selected_indices",
    "table_view",
]


class StepsWorker(_ThreadWorker):
    """Runs ``fn(*args)`` in a thread; when it returns a generator of ``AnalysisProgress``
    (``core.analysis``), steps it, posting the newest progress and partial result
    (``progressed``: call :meth:`take`; coalesced, so a fast generator never floods the event
    loop). Cancel (:meth:`stop`) lands between two steps. Ends with ``done(result)``,
    ``failed(message, details)`` or ``cancelled``."""

    progressed = Signal()
    done = Signal(object)
    failed = Signal(str, str)
    cancelled = Signal()

    def __init__(self, fn: Callable[..., Any], *args: Any, parent: QObject | None = None):
        super().__init__(parent)
        self._fn, self._args = fn, args
        self._latest: Any = None  # newest progress not yet taken
        self._partial: Any = None  # newest partial result not yet taken
        self._posted = threading.Event()  # a ``progressed`` is on its way

    def take(self) -> tuple[Any, Any]:
        """(newest progress or None, newest partial result or None) since the last take."""
        with self._lock:
            out = (self._latest, self._partial)
            self._latest = self._partial = None
            self._posted.clear()
        return out

    def _post(self, progress: Any) -> None:
        with self._lock:
            self._latest = progress
            partial = getattr(progress, "partial", None)
            if partial is not None:
                self._partial = partial
            first = not self._posted.is_set()
            self._posted.set()
        if first:
            self._emit(self.progressed)

    def _main(self) -> None:
        (fn, args), self._fn, self._args = (self._fn, self._args), None, ()
        try:
            steps = fn(*args)
            if not hasattr(steps, "send"):  # a plain function: its value is the result
                result = steps
            else:
                while True:
                    if self._stop.is_set():
                        steps.close()
                        self._emit(self.cancelled)
                        return
                    try:
                        progress = next(steps)
                    except StopIteration as stop:
                        result = stop.value
                        break
                    self._post(progress)
        except Exception as exc:
            self._emit(self.failed, str(exc), traceback.format_exc())
            return
        if self._stop.is_set():
            self._emit(self.cancelled)
        else:
            self._emit(self.done, result)


def format_cell(value: Any) -> str:
    """What a table cell shows: integers as they are, p/q-like small floats in 3 significant
    digits, other floats in 4; NaN (not computed yet, or undefined) as an empty cell."""
    if isinstance(value, (str, np.str_)):
        return str(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    v = float(value)
    if not np.isfinite(v):
        return "" if np.isnan(v) else str(v)
    if v != 0 and abs(v) < 1e-3:
        return f"{v:.3g}"
    return f"{v:.4g}"


class ColumnsModel(QAbstractTableModel):
    """Rows over equal-length columns (NumPy arrays or lists); sorting orders the rows with
    ``argsort`` (NaN last); ``source_row(view_row)`` maps back to the columns' order."""

    def __init__(self, headers: Sequence[str], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.headers = list(headers)
        self.columns: list[np.ndarray] = [np.empty(0) for _ in self.headers]
        self.order = np.empty(0, dtype=np.int64)
        self.tooltips: dict[int, str] = {}
        self._sort: tuple[int, Qt.SortOrder] | None = None

    def set_columns(self, columns: Sequence[Any], keep_sort: bool = True) -> None:
        """Replace the data; the rows keep the current sort (``keep_sort``) or their order."""
        self.beginResetModel()
        self.columns = [np.asarray(c) for c in columns]
        n = self.columns[0].shape[0] if self.columns else 0
        self.order = np.arange(n, dtype=np.int64)
        if keep_sort and self._sort is not None:
            self.order = self._sorted(*self._sort)
        self.endResetModel()

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else int(self.order.size)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.headers)

    def source_row(self, row: int) -> int:
        return int(self.order[row])

    def view_row(self, source: int) -> int | None:
        hit = np.flatnonzero(self.order == source)
        return int(hit[0]) if hit.size else None

    def value(self, row: int, column: int) -> Any:
        return self.columns[column][self.order[row]]

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return format_cell(self.value(index.row(), index.column()))
        if role == Qt.ItemDataRole.TextAlignmentRole:
            v = self.value(index.row(), index.column())
            if not isinstance(v, (str, np.str_)):
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        if orientation == Qt.Orientation.Horizontal:
            if role == Qt.ItemDataRole.DisplayRole:
                return self.headers[section]
            if role == Qt.ItemDataRole.ToolTipRole:
                return self.tooltips.get(section)
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if not 0 <= column < len(self.columns):  # no sort column: the rows' own order
            self._sort = None
            self.layoutAboutToBeChanged.emit()
            self.order = np.arange(self.order.size, dtype=np.int64)
            self.layoutChanged.emit()
            return
        self._sort = (column, order)
        self.layoutAboutToBeChanged.emit()
        self.order = self._sorted(column, order)
        self.layoutChanged.emit()

    def _sorted(self, column: int, order: Qt.SortOrder) -> np.ndarray:
        col = self.columns[column]
        descending = order == Qt.SortOrder.DescendingOrder
        if col.dtype.kind in "fiub":
            v = col.astype(float)
            nan = np.isnan(v)
            key = np.where(nan, 0.0, -v if descending else v)
            return np.lexsort((key, nan)).astype(np.int64)  # NaN last either way
        idx = np.argsort(col.astype(str), kind="stable")
        return (idx[::-1] if descending else idx).astype(np.int64)


ALPHA = 0.05  # the q threshold of "significant"
SELECTION, REST = "the selection", "the rest"


def selected_indices(host: ToolHost) -> np.ndarray:
    """The window's current selection (sample indices)."""
    sel = getattr(host, "selection", None)
    got = getattr(sel, "indices", None)
    return np.empty(0, dtype=np.int64) if got is None else np.asarray(got, dtype=np.int64)


def named_groups(host: ToolHost) -> list[tuple[str, np.ndarray]]:
    """The window's named groups (name, indices), in their order."""
    groups = getattr(host, "groups", None)
    if groups is None:
        return []
    return [(str(g.name), np.asarray(g.indices, dtype=np.int64)) for g in groups]


def table_view(model: ColumnsModel) -> QTableView:
    view = QTableView()
    view.setModel(model)
    # no sort column at first: the rows come in the analysis's order (strongest first)
    view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.DescendingOrder)
    view.setSortingEnabled(True)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(22)
    view.horizontalHeader().setDefaultSectionSize(68)  # numbers; text columns are widened
    view.horizontalHeader().setMinimumSectionSize(40)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    view.horizontalHeader().setStretchLastSection(True)
    view.setAlternatingRowColors(True)
    return view


def select_row(view: QTableView, row: int | None) -> None:
    if row is None:
        return
    index = view.model().index(row, 0)
    view.selectionModel().setCurrentIndex(
        index, QItemSelectionModel.SelectionFlag.ClearAndSelect
        | QItemSelectionModel.SelectionFlag.Rows,
    )  # fmt: skip
    view.scrollTo(index)


class GroupBox(QComboBox):
    """A choice of group, refreshed from the window each time it opens (the selection, the
    named groups, and for group B "the rest")."""

    def __init__(self, host: ToolHost, rest: bool) -> None:
        super().__init__()
        self.host, self.rest = host, rest
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.refresh()
        for signal in (getattr(host, "groups_changed", None),
                       getattr(getattr(host, "selection", None), "changed", None)):  # fmt: skip
            if signal is not None:
                signal.connect(self.refresh)

    def refresh(self) -> None:
        current = self.currentData()
        self.blockSignals(True)
        self.clear()
        if self.rest:
            self.addItem(REST, REST)
        self.addItem(f"{SELECTION} ({selected_indices(self.host).size:,})", SELECTION)
        for name, idx in named_groups(self.host):
            self.addItem(f"{name} ({idx.size:,})", name)
        found = self.findData(current)
        self.setCurrentIndex(max(found, 0))
        self.blockSignals(False)

    def showPopup(self) -> None:
        self.refresh()
        super().showPopup()

    def choose(self, key: str) -> None:
        """Select ``key`` (``SELECTION``, ``REST`` or a group's name)."""
        self.refresh()
        found = self.findData(key)
        if found < 0:
            raise KeyError(key)
        self.setCurrentIndex(found)

    def indices(self) -> tuple[str, np.ndarray | None]:
        """(name, indices); None for "the rest"."""
        key = self.currentData()
        if key == REST:
            return REST, None
        if key == SELECTION:
            return SELECTION, selected_indices(self.host)
        for name, idx in named_groups(self.host):
            if name == key:
                return name, idx
        return str(key), np.empty(0, dtype=np.int64)


class Page(QWidget):
    """A page: a bar of controls with Cancel, progress and status, and one worker at a time."""

    def __init__(self, host: ToolHost, what: str) -> None:
        super().__init__()
        self.host, self.what = host, what
        self.worker: StepsWorker | None = None
        self.small_jobs: list[StepsWorker] = []  # small jobs (a feature's values, a CSV file)
        self.bar = QHBoxLayout()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setMaximumWidth(160)
        self.progress.setTextVisible(False)
        self.status = QLabel("")
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.layout_ = QVBoxLayout(self)
        self.layout_.setContentsMargins(4, 4, 4, 4)
        self.layout_.addLayout(self.bar)

    def start_and_export_bar(self, label: str, tooltip: str) -> None:
        """The bar of a page that computes one table: its start button, Cancel, progress,
        status and "Export CSV..." (enabled once there is something to export)."""
        self.start_button = QPushButton(label)
        self.start_button.setToolTip(tooltip)
        self.start_button.clicked.connect(lambda _=False: self.start())
        self.export_button = QPushButton("Export CSV...")
        self.export_button.setEnabled(False)
        self.export_button.clicked.connect(self.export_csv)
        self.bar.addWidget(self.start_button)
        self.finish_bar()
        self.bar.addWidget(self.export_button)

    def start(self) -> StepsWorker | None:
        raise NotImplementedError

    def export_csv(self) -> None:
        raise NotImplementedError

    def finish_bar(self) -> None:
        """Cancel, the progress bar and the status after the page's own buttons."""
        self.bar.addWidget(self.cancel_button)
        self.bar.addWidget(self.progress)
        self.bar.addWidget(self.status, 1)

    @property
    def busy(self) -> bool:
        return self.worker is not None

    def run(
        self,
        fn: Callable[..., Any],
        *args: Any,
        done: Callable[[Any], None],
        partial: Callable[[Any], None] | None = None,
    ) -> StepsWorker:
        """Start ``fn(*args)`` in a worker (a running one is cancelled first)."""
        self.cancel()
        worker = StepsWorker(fn, *args, parent=self)

        def progressed() -> None:
            if worker is not self.worker:
                return
            prog, part = worker.take()
            if prog is not None:
                self.progress.setValue(int(1000 * float(prog.fraction)))
                self.status.setText(f"{self.what}: {prog.message}")
            if part is not None and partial is not None:
                partial(part)

        def finished(result: Any) -> None:
            if worker is not self.worker:
                return
            progressed()  # a partial result posted last is shown before the result
            self._idle()
            self.progress.setValue(1000)
            done(result)

        def failed(message: str, details: str) -> None:
            if worker is self.worker:
                self._idle()
                self.status.setText(f"{self.what} failed: {message}")
                self.host.messages.show_message("error", f"{self.what}: {message}", details)

        worker.progressed.connect(progressed)
        worker.done.connect(finished)
        worker.failed.connect(failed)
        self.worker = worker
        self.cancel_button.setEnabled(True)
        self.progress.setValue(0)
        self.status.setText(f"{self.what}...")
        worker.start()
        return worker

    def run_small_job(
        self, fn: Callable[..., Any], *args: Any, done: Callable[[Any], None]
    ) -> None:
        """A small job in a thread (its result to ``done``, errors to the message bar)."""
        job = StepsWorker(fn, *args, parent=self)
        job.done.connect(done)
        job.failed.connect(
            lambda m, d: self.host.messages.show_message("error", f"{self.what}: {m}", d)
        )
        self.small_jobs = [h for h in self.small_jobs if h.is_alive()] + [job]
        job.start()

    def cancel(self) -> None:
        if self.worker is not None:
            self.worker.stop()
            self.status.setText(f"{self.what}: cancelled.")
            self._idle()

    def _idle(self) -> None:
        self.worker = None
        self.cancel_button.setEnabled(False)

    def result_and_data(self) -> tuple[Any, Any] | None:
        """(the run on display, the loaded dataset) when they belong together, else None
        (the message bar says why)."""
        result = self.host.current_result()
        session = self.host.session
        if result is None or session is None:
            return None
        ds = session.dataset
        if int(np.asarray(result.labels).size) != ds.n_samples:
            self.host.messages.show_message(
                "error", f"{self.what}: the run is not on the loaded data."
            )
            return None
        return result, ds

    def write_csv(self, title: str, name: str, writer: Callable[[str], Any]) -> None:
        path = self.host.ask_save_path(title, name, "CSV (*.csv)")
        if path:
            self.run_small_job(
                writer, path, done=lambda p: self.host.stage_label.setText(f"Wrote {p}")
            )
