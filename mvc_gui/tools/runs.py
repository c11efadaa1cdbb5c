"""The run history dock ("Runs"): every finished or stopped run of the session, in a table.

Each row keeps the run's :class:`~mvc_gui.model.run_history.RunHistory` (labels, curves, heat
map), so a run can be shown again in every plot without rerunning (double-click or **Show**),
two runs can be compared (**Compare**, see :mod:`mvc_gui.tools.compare`), a run's parameters can
be put back into the method panel (**Use parameters**), and the table exported as CSV.

Memory stays bounded: at most :data:`MAX_RUNS` runs (the oldest are dropped, with a note), the
anchor graph of a kept run is released (its heat-map image stays), and the playback snapshots of
older runs are released once all kept runs hold more than :data:`SNAPSHOT_BUDGET` bytes of them.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.data.atomic import atomic_write
from core.experiments.compare import table_csv
from core.numerics.metrics import all_metrics
from mvc_gui.model.run_entries import RunEntry, data_key
from mvc_gui.model.run_history import RunHistory
from mvc_gui.tools.host import ToolHost

__all__ = ["MAX_RUNS", "RunEntry", "RunListPanel", "data_key", "install"]

MAX_RUNS = 200
SNAPSHOT_BUDGET = 256 << 20
COLUMNS = (
    ("run", "#", "Run number in this session"),
    ("method", "Method", "Clustering method"),
    ("parameters", "Parameters", "Parameters that differ from the method's defaults"),
    ("seed", "Seed", "random_state"),
    ("seconds", "Time", "Seconds for the whole run"),
    ("iterations", "Iter.", "Iterations done"),
    ("acc", "ACC", "Accuracy against the true labels (when known)"),
    ("nmi", "NMI", "Normalised mutual information against the true labels"),
    ("ari", "ARI", "Adjusted Rand index against the true labels"),
    ("status", "Status", "finished, or stopped by the user"),
)


def _cell(key: str, value: Any) -> str:
    if value is None:
        return ""
    if key == "seconds":
        return f"{value:.2f} s"
    if key in ("acc", "nmi", "ari"):
        return f"{value:.4f}"
    return str(value)


def _snapshot_bytes(history: RunHistory) -> int:
    snaps = getattr(history, "snapshots", None)
    return sum(int(getattr(getattr(snaps, s, None), "nbytes", 0)) for s in ("labels", "heats"))


def _slim(history: RunHistory) -> None:
    """Release the n x m anchor graph a kept run's final frame may hold (thread mode): the
    heat-map image made from it is all the plots need."""
    for frame in (history.final, history.last):
        if frame is not None and getattr(frame.state, "anchor_graph", None) is not None:
            frame.state = dataclasses.replace(frame.state, anchor_graph=None)


class RunListPanel(QWidget):
    """The table and its buttons; ``win`` is the main window (presenter, controller, ...)."""

    entries_changed = Signal()

    def __init__(self, win: ToolHost, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.win = win
        self.entries: list[RunEntry] = []
        self.max_runs = MAX_RUNS
        self.dialogs: list[QWidget] = []
        self._next = 1
        self.shown: RunEntry | None = None
        self._scored: dict[tuple, dict[str, float | None]] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels([c[1] for c in COLUMNS])
        for col, (_key, _title, tip) in enumerate(COLUMNS):
            self.table.horizontalHeaderItem(col).setToolTip(tip)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.cellDoubleClicked.connect(lambda row, _col: self.show_entry(self.entries[row]))
        self.table.itemSelectionChanged.connect(self._update_buttons)
        layout.addWidget(self.table, 1)
        row = QHBoxLayout()
        self.buttons = {}
        for key, text, tip, slot in (
            ("show", "Show", "Show the selected run in every plot (or double-click it)",
             self.show_selected),
            ("compare", "Compare", "Compare the two selected runs", self.compare_selected),
            ("consensus", "Consensus", "One partition the selected runs agree on (locally "
             "weighted ensemble clustering, Huang et al. 2018), with their agreement",
             self.consensus_selected),
            ("use", "Use parameters", "Put the selected run's method and parameters in the "
             "method panel", self.use_selected),
            ("remove", "Remove", "Remove the selected runs from the list", self.remove_selected),
            ("clear", "Clear", "Remove every run from the list", self.clear),
            ("export", "Export table...", "Write the table as CSV", self.export_csv),
        ):  # fmt: skip
            button = QPushButton(text)
            button.setToolTip(tip)
            button.clicked.connect(slot)
            row.addWidget(button)
            self.buttons[key] = button
        # the note beside the buttons, not under them: the dock keeps little height at 1280x800
        self.note = QLabel("Finished and stopped runs appear here.")
        self.note.setObjectName("helpText")
        self.note.setWordWrap(True)
        row.addWidget(self.note, 1)
        layout.addLayout(row)
        win.controller.run_finished.connect(self.add_history)
        win.controller.run_stopped.connect(self.add_history)
        win.data_loaded.connect(self._refresh)
        self._update_buttons()

    # -- filling -------------------------------------------------------------------------------
    def add_history(self, history: RunHistory) -> RunEntry | None:
        """Append a finished or stopped run (one stopped before any labels is skipped)."""
        if history.result is None:
            self.note.setText(f"The {history.method} run stopped before it had labels: not kept.")
            return None
        seconds = history.result.timings.get("total")
        if seconds is None and history.last is not None:
            seconds = float(history.last.state.elapsed)
        _slim(history)
        entry = RunEntry(self._next, history, seconds)
        self._append([entry])
        return entry

    def set_entries(self, entries: list[RunEntry]) -> None:
        """Replace the list (a reopened session); numbering continues after the largest."""
        self.entries = []
        self.shown = None
        self._next = 1
        self._append(entries)
        self.note.setText(f"{len(entries)} runs restored from the session.")

    def _append(self, entries: list[RunEntry]) -> None:
        self.entries.extend(entries)
        self._next = max([self._next, *(e.number + 1 for e in entries)])
        dropped = self.entries[: max(0, len(self.entries) - self.max_runs)]
        if dropped:
            self.entries = self.entries[len(dropped) :]
            numbers = ", ".join(f"#{e.number}" for e in dropped)
            self.note.setText(
                f"Dropped the oldest run(s) {numbers}: the list keeps the last {self.max_runs}."
            )
        self._release_snapshots()
        self._refresh()

    def _release_snapshots(self) -> None:
        total = 0
        for entry in reversed(self.entries):
            total += _snapshot_bytes(entry.history)
            snaps = getattr(entry.history, "snapshots", None)
            if total > SNAPSHOT_BUDGET and snaps is not None and len(snaps):
                entry.history.snapshots = type(snaps)()  # playback of this old run is lost

    def _refresh(self) -> None:
        current = self.current_data()
        self.table.setRowCount(len(self.entries))
        for r, entry in enumerate(self.entries):
            values = entry.row()
            other = current is not None and entry.data != current
            if current is not None and not other:
                values.update(self._scores(entry))
            for c, (key, _title, _tip) in enumerate(COLUMNS):
                item = QTableWidgetItem(_cell(key, values[key]))
                if key in ("run", "seed", "seconds", "iterations", "acc", "nmi", "ari"):
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                if other:
                    item.setForeground(QColor("#9aa3ad"))
                    item.setToolTip(f"Made on other data: {values['dataset']}")
                elif key == "parameters":
                    item.setToolTip(values["params_json"])
                if entry is self.shown:
                    font = QFont(item.font())
                    font.setBold(True)
                    item.setFont(font)
                self.table.setItem(r, c, item)
        self._update_buttons()
        self.entries_changed.emit()

    def _scores(self, entry: RunEntry) -> dict[str, float | None]:
        """ACC/NMI/ARI against the reference labels chosen now in the Data dock (another
        metadata column than at run time, or none), computed once per run and choice."""
        ds = self.win.session.dataset
        key = (entry.number, self.win.session.token, ds.meta.get("label_variable"))
        if key not in self._scored:
            labels = entry.result.labels
            if ds.labels is None or labels is None or labels.shape != ds.labels.shape:
                got = {"acc": None, "nmi": None, "ari": None}
            elif entry.result.true_labels is ds.labels and entry.result.metrics:
                got = {k: entry.result.metrics.get(k) for k in ("acc", "nmi", "ari")}
            else:
                m = all_metrics(ds.labels, labels)
                got = {k: m[k] for k in ("acc", "nmi", "ari")}
            self._scored[key] = got
        return self._scored[key]

    def current_data(self) -> tuple[str, int] | None:
        session = self.win.session
        if session is None:
            return None
        return data_key(session.dataset.source, session.dataset.n_samples)

    # -- selection and actions -----------------------------------------------------------------
    def selected_entries(self) -> list[RunEntry]:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [self.entries[r] for r in rows if r < len(self.entries)]

    def select_numbers(self, numbers: list[int]) -> None:
        """Select the runs with these numbers (used by tests and after restoring)."""
        self.table.clearSelection()
        mode = self.table.selectionMode()
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.MultiSelection)
        for r, entry in enumerate(self.entries):
            if entry.number in numbers:
                self.table.selectRow(r)
        self.table.setSelectionMode(mode)

    def _update_buttons(self) -> None:
        n = len(self.selected_entries())
        self.buttons["show"].setEnabled(n == 1)
        self.buttons["use"].setEnabled(n == 1)
        self.buttons["compare"].setEnabled(n == 2)
        self.buttons["consensus"].setEnabled(n >= 2)
        self.buttons["remove"].setEnabled(n > 0)
        self.buttons["clear"].setEnabled(bool(self.entries))
        self.buttons["export"].setEnabled(bool(self.entries))

    def _error(self, text: str) -> None:
        self.win.messages.show_message("error", text)

    def _check_data(self, entry: RunEntry) -> bool:
        if entry.data != self.current_data():
            name = entry.result.dataset.get("name", "other data")
            self._error(
                f"{entry.title.capitalize()} was made on '{name}' ({entry.data[1]:,} samples), "
                "not on the data loaded now: open that data to show or compare it."
            )
            return False
        return True

    def show_selected(self) -> None:
        chosen = self.selected_entries()
        if len(chosen) == 1:
            self.show_entry(chosen[0])

    def show_entry(self, entry: RunEntry) -> bool:
        if self.win.controller.running:
            self._error("A run is in progress: stop it or wait for it before showing another run.")
            return False
        if not self._check_data(entry):
            return False
        self.win.presenter.show_history(entry.history, caption=entry.title)
        self.shown = entry
        self._refresh()
        return True

    def compare_selected(self) -> Any:
        chosen = self.selected_entries()
        if len(chosen) != 2:
            self._error("Select exactly two runs to compare (Ctrl+click).")
            return None
        return self.compare(*chosen)

    def consensus_selected(self) -> Any:
        from mvc_gui.tools.consensus import start_consensus

        chosen = self.selected_entries()
        if len(chosen) < 2 or len({e.data for e in chosen}) != 1:
            self._error("Select two or more runs of the same data for a consensus (Ctrl+click).")
            return None
        return start_consensus(self, chosen)

    def compare(self, first: RunEntry, second: RunEntry) -> Any:
        from mvc_gui.tools.compare import CompareDialog

        if first.data != second.data:
            self._error(f"{first.title} and {second.title} were made on different data.")
            return None
        dialog = CompareDialog(first, second, parent=self.win)
        dialog.finished.connect(lambda _r, d=dialog: self._forget_dialog(d))
        self.dialogs.append(dialog)
        dialog.show()
        return dialog

    def _forget_dialog(self, dialog: QWidget) -> None:
        if dialog in self.dialogs:
            self.dialogs.remove(dialog)
        dialog.deleteLater()

    def use_selected(self) -> None:
        chosen = self.selected_entries()
        if len(chosen) != 1:
            return
        entry = chosen[0]
        panel = self.win.method_panel
        panel.set_method(entry.history.method)
        if panel.method != entry.history.method:
            self._error(f"The method '{entry.history.method}' is not available here.")
            return
        panel.set_params(entry.result.params)

    def remove_selected(self) -> None:
        gone = {id(e) for e in self.selected_entries()}
        self.entries = [e for e in self.entries if id(e) not in gone]
        if self.shown is not None and id(self.shown) in gone:
            self.shown = None
        self._refresh()

    def clear(self) -> None:
        self.entries = []
        self.shown = None
        self.note.setText("Finished and stopped runs appear here.")
        self._refresh()

    def export_csv(self) -> None:
        if not self.entries:
            self._error("No runs to export yet.")
            return
        path = self.win.ask_save_path("Export runs table", "runs.csv", "CSV (*.csv)")
        if not path:
            return
        try:
            atomic_write(path, table_csv([e.row() for e in self.entries]))
        except OSError as exc:
            self._error(f"Could not write {path}: {exc}")
            return
        self.win.stage_label.setText(f"Wrote {path}")


def install(win: ToolHost) -> RunListPanel:
    """Add the "Runs" dock (right side) and Tools > Compare selected runs."""
    panel = RunListPanel(win)
    dock = win.add_dock("Runs", panel, Qt.DockWidgetArea.BottomDockWidgetArea, "runsDock")
    win.resizeDocks([dock], [130], Qt.Orientation.Vertical)  # the plots keep most height
    compare = QAction("Compare selected runs", win)
    compare.setStatusTip("Agreement, confusion and curves of the two runs selected in 'Runs'")
    compare.triggered.connect(panel.compare_selected)
    win.tools_menu.addAction(compare)
    embedding = win.plots["embedding"]

    def offer_runs() -> None:  # the embedding's "disagreement with a run" choices
        current = panel.current_data()
        runs = [(e.title, e.result.labels) for e in panel.entries if e.data == current]
        embedding.set_runs(runs)

    panel.entries_changed.connect(offer_runs)
    return panel
