"""The Selection dock: what the selected samples are made of, and the named groups.

The top half follows the window's linked selection: its size, its count per cluster and per
value of a chosen metadata column (:func:`core.analysis.groups.composition`, computed in a
:class:`~mvc_gui.run.workers.TaskWorker` so a large selection never holds the window; a newer
selection made meanwhile is counted next, the ones in between are skipped).

The bottom half keeps named groups (:class:`core.analysis.groups.GroupSet`, the window's
``host.groups``): "Name group..." keeps the selection under a name; a group is selected again
by a double click (Shift adds it, Ctrl subtracts it), renamed, deleted, compared with the rest
or with a second group (``host.compare_requested``), exported as a list of sample ids and
imported from one. Every change emits ``host.groups_changed`` (the embedding colours by the
groups, sessions keep them).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QBoxLayout,
    QComboBox,
    QDockWidget,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.analysis.groups import Composition, composition, read_ids, write_ids
from core.data.dataset import DataError, column_kind
from mvc_gui.model.palette import cluster_colors, hex_color
from mvc_gui.plots.base import selection_mode
from mvc_gui.run.slots import weak_slot
from mvc_gui.run.workers import TaskWorker
from mvc_gui.tools.host import ToolHost

__all__ = ["SelectionPanel", "install"]

IDS_FILTER = "Sample ids, one per line (*.txt *.csv *.tsv);;All files (*)"
#: colours offered to new groups, in order (the first one no group uses)
GROUP_PALETTE = [hex_color(c) for c in cluster_colors(20)]


def _swatch(colour: str | tuple[int, int, int]) -> QIcon:
    pix = QPixmap(12, 12)
    pix.fill(QColor(colour if isinstance(colour, str) else QColor(*colour)))
    return QIcon(pix)


def _count_table(headers: list[str]) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
    table.setSortingEnabled(False)
    table.setMinimumHeight(48)
    head = table.horizontalHeader()
    head.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    for j in range(1, len(headers)):
        head.setSectionResizeMode(j, QHeaderView.ResizeMode.ResizeToContents)
    return table


def _fill(table: QTableWidget, rows: list[list[str]], icons: list[QIcon | None] = ()) -> None:
    table.setRowCount(len(rows))
    for i, row in enumerate(rows):
        for j, text in enumerate(row):
            item = QTableWidgetItem(text)
            if j:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            elif i < len(icons) and icons[i] is not None:
                item.setIcon(icons[i])
            table.setItem(i, j, item)


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else ""


def _count(
    ds, indices, labels, column: str | None, everyone: dict[str, int] | None
) -> tuple[Composition, dict[str, int]]:
    """Worker: the selection's composition (clusters, ``column``) and the whole data's counts
    of that column (the reference each share is read against; ``everyone``: already known)."""
    columns = {column: ds.metadata_column(column)} if column else {}
    kinds = {column: column_kind(columns[column])} if column else {}
    n = ds.n_samples
    comp = composition(indices, labels, columns, n=n, kinds=kinds)
    if column and everyone is None:
        everyone = composition(np.arange(n), None, columns, n=n, kinds=kinds).by_column[column]
    return comp, everyone or {}


class SelectionPanel(QWidget):
    """The dock's widget; see the module docstring."""

    counted = Signal()  # a composition is on display (tests, screenshots)

    def __init__(self, host: ToolHost, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self._worker: TaskWorker | None = None
        self._pending = False
        self.composition: Composition | None = None
        self.dock: QDockWidget | None = None  # set by install
        self._had_selection = False
        self._everyone: tuple[object, str, dict[str, int]] | None = None
        # three parts side by side under the plots, stacked in a side column (set_area)
        self.parts = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        self.parts.setContentsMargins(4, 4, 4, 4)
        left, middle, right = (QVBoxLayout() for _ in range(3))
        for part, stretch in ((left, 3), (middle, 3), (right, 3)):
            part.setContentsMargins(0, 0, 0, 0)
            self.parts.addLayout(part, stretch)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        left.addWidget(self.summary)
        self.clusters = _count_table(["cluster", "selected", "of cluster"])
        left.addWidget(self.clusters, 1)
        row = QHBoxLayout()
        row.addWidget(QLabel("By:"))
        self.column_box = QComboBox()
        self.column_box.setToolTip("The metadata column the selection is counted by")
        self.column_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.column_box.setMinimumContentsLength(8)
        self.column_box.currentIndexChanged.connect(lambda _i: self.refresh())
        row.addWidget(self.column_box, 1)
        self.column_row = QWidget()
        self.column_row.setLayout(row)
        row.setContentsMargins(0, 0, 0, 0)
        middle.addWidget(self.column_row)
        self.values = _count_table(["value", "selected", "of selection", "all"])
        middle.addWidget(self.values, 1)
        right.addWidget(QLabel("<b>Named groups</b>"))
        self.group_list = QListWidget()
        self.group_list.setMinimumHeight(40)
        self.group_list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.group_list.setToolTip(
            "Double-click a group to select its samples again (Shift adds, Ctrl subtracts); "
            "pick one group to compare it with the rest, two to compare them"
        )
        self.group_list.itemDoubleClicked.connect(lambda item: self.select_group(item.text()))
        self.group_list.itemSelectionChanged.connect(self._enable)
        right.addWidget(self.group_list, 1)
        buttons = QGridLayout()
        buttons.setSpacing(2)
        self.name_button = QPushButton("Name group...")
        self.name_button.setToolTip("Keep the selected samples as a named group")
        self.select_button = QPushButton("Select")
        self.rename_button = QPushButton("Rename...")
        self.delete_button = QPushButton("Delete")
        self.compare_button = QPushButton("Compare")
        self.compare_button.setToolTip(
            "One group picked: what sets it apart from the rest; two: group A vs group B"
        )
        self.export_button = QPushButton("Export ids...")
        self.export_button.setToolTip(
            "Write the picked group's sample ids (or the selection's), one per line"
        )
        self.import_button = QPushButton("Import ids...")
        self.import_button.setToolTip("A group from a file of sample ids, one per line")
        for i, b in enumerate((self.name_button, self.select_button, self.rename_button,
                               self.delete_button, self.compare_button, self.export_button,
                               self.import_button)):  # fmt: skip
            buttons.addWidget(b, i // 4, i % 4)
        right.addLayout(buttons)
        self.name_button.clicked.connect(lambda: self.name_group())
        self.select_button.clicked.connect(lambda: self._on_picked(self.select_group))
        self.rename_button.clicked.connect(lambda: self._on_picked(self.rename_group))
        self.delete_button.clicked.connect(lambda: self._on_picked(self.delete_group))
        self.compare_button.clicked.connect(self.compare)
        self.export_button.clicked.connect(lambda: self.export_ids())
        self.import_button.clicked.connect(lambda: self.import_ids())
        # a burst of changes (a drag of Shift-clicks, a run's frames) is counted once
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(30)
        self._timer.timeout.connect(self._count)
        self.show_groups()
        self.set_data()

    def set_area(self, area: Qt.DockWidgetArea) -> None:
        """Side by side under or above the plots, stacked in a side column (a direction
        chosen by the dock's place, not its size: a size-driven flip changed the minimum
        height, which grew the window, which flipped it back)."""
        tall = area in (Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea)
        self.parts.setDirection(
            QBoxLayout.Direction.TopToBottom if tall else QBoxLayout.Direction.LeftToRight
        )

    # -- the data and the run ----------------------------------------------------------------
    def set_data(self) -> None:
        """The metadata columns of the data loaded now (keeps the column chosen if offered)."""
        session = self.host.session
        columns = [] if session is None else list(session.dataset.metadata)
        before = self.column_box.currentText()
        self.column_box.blockSignals(True)
        self.column_box.clear()
        self.column_box.addItems(columns)
        if before in columns:
            self.column_box.setCurrentIndex(columns.index(before))
        self.column_box.blockSignals(False)
        self.column_row.setVisible(bool(columns))
        self.values.setVisible(bool(columns))
        self.refresh()

    def _labels(self) -> np.ndarray | None:
        h = self.host.presenter.history
        labels = None if h is None else h.labels
        session = self.host.session
        if labels is None or session is None or labels.size != session.dataset.n_samples:
            return None
        return np.asarray(labels)

    # -- the composition ---------------------------------------------------------------------
    def on_selection_changed(self) -> None:
        """Count the new selection; a selection starting from nothing brings the dock to
        the front (later changes leave the tabs as the user put them)."""
        selected = bool(self.host.selection)
        if selected and not self._had_selection and self.dock is not None:
            self.dock.show()
            self.dock.raise_()
        self._had_selection = selected
        self.refresh()

    def refresh(self) -> None:
        """Count the selection again (soon: a burst of changes is counted once)."""
        self._enable()
        self._timer.start()

    def _count(self) -> None:
        selection, session = self.host.selection, self.host.session
        if session is None or not selection:
            self._show(None, {})
            return
        if self._worker is not None and self._worker.is_alive():
            self._pending = True  # counted when the running count ends
            return
        self._pending = False
        column = self.column_box.currentText() or None
        ds = session.dataset
        held = self._everyone  # the whole data's counts of a column, made once
        known = held[2] if held is not None and held[0] is ds and held[1] == column else None
        args = (ds, selection.indices.copy(), self._labels(), column, known)
        self._worker = worker = TaskWorker(_count, *args, parent=self)
        worker.done.connect(weak_slot(self, lambda panel, res: panel._on_counted(res)))
        worker.failed.connect(weak_slot(self, lambda panel, m, _d: panel._on_failed(m)))
        worker.start()

    def _on_counted(self, res: tuple[Composition, dict[str, int]]) -> None:
        session, column = self.host.session, next(iter(res[0].by_column), None)
        if session is not None and column is not None:
            self._everyone = (session.dataset, column, res[1])
        if self._pending:
            self._pending = False
            self._count()  # the selection changed meanwhile: this count is out of date
            return
        if self.host.selection:
            self._show(*res)
        else:
            self._show(None, {})

    def _on_failed(self, message: str) -> None:
        self.summary.setText(f"Could not count the selection: {message}")
        if self._pending:
            self._count()

    def _show(self, comp: Composition | None, everyone: dict[str, int]) -> None:
        self.composition = comp
        if comp is None:
            session = self.host.session
            self.summary.setText(
                "No selection. Draw a lasso or a rectangle on the embedding (tool buttons "
                "above it), click a cluster, a legend entry, a confusion cell or a heat-map "
                "block; Shift adds, Ctrl subtracts."
                if session is not None
                else "Load data and run a method to select samples."
            )
            _fill(self.clusters, [])
            _fill(self.values, [])
            self.counted.emit()
            return
        what = self.host.selection.description
        self.summary.setText(
            f"<b>{comp.size:,}</b> of {comp.n:,} samples ({_share(comp.size, comp.n)})"
            + (f": {what}" if what else "")
        )
        labels = self._labels()
        sizes = np.bincount(labels) if labels is not None else np.zeros(0, dtype=np.int64)
        palette = cluster_colors(max(len(sizes), 1))
        rows, icons = [], []
        for c, k in sorted(comp.by_cluster.items(), key=lambda kv: (-kv[1], kv[0])):
            if k:
                whole = int(sizes[c]) if 0 <= c < len(sizes) else 0
                rows.append([f"cluster {c}", f"{k:,}", _share(k, whole)])
                icons.append(_swatch(palette[c]) if 0 <= c < len(palette) else None)
        _fill(self.clusters, rows, icons)
        self.clusters.setVisible(bool(comp.by_cluster))
        column = self.column_box.currentText()
        counts = comp.by_column.get(column, {})
        order = sorted(counts.items(), key=lambda kv: -kv[1])
        _fill(self.values, [[value, f"{k:,}", _share(k, comp.size), f"{everyone.get(value, 0):,}"]
                            for value, k in order])  # fmt: skip
        self.counted.emit()

    # -- groups ------------------------------------------------------------------------------
    def show_groups(self) -> None:
        """The list of groups as the window holds them (after any change)."""
        picked = {item.text() for item in self.group_list.selectedItems()}
        self.group_list.clear()
        for g in self.host.groups:
            item = QListWidgetItem(g.name)
            item.setIcon(_swatch(g.colour or GROUP_PALETTE[0]))
            item.setToolTip(f"{g.size:,} samples")
            self.group_list.addItem(item)
            item.setSelected(g.name in picked)
        self._enable()

    def _enable(self) -> None:
        picked = len(self.group_list.selectedItems())
        has_data = self.host.session is not None
        self.name_button.setEnabled(bool(self.host.selection))
        for b in (self.select_button, self.rename_button, self.delete_button):
            b.setEnabled(picked == 1)
        self.compare_button.setEnabled(picked in (1, 2))
        self.export_button.setEnabled(picked == 1 or bool(self.host.selection))
        self.import_button.setEnabled(has_data)

    def picked(self) -> list[str]:
        """The names of the groups picked in the list, in list order."""
        rows = sorted(self.group_list.row(i) for i in self.group_list.selectedItems())
        return [self.group_list.item(r).text() for r in rows]

    def _on_picked(self, action) -> None:
        names = self.picked()
        if len(names) == 1:
            action(names[0])

    def _changed(self) -> None:
        self.show_groups()
        self.host.groups_changed.emit()

    def _error(self, text: str) -> None:
        self.host.messages.show_message("error", text)

    def _next_colour(self) -> str:
        used = {g.colour for g in self.host.groups}
        return next((c for c in GROUP_PALETTE if c not in used), GROUP_PALETTE[0])

    def _default_name(self, stem: str = "group") -> str:
        k = len(self.host.groups) + 1
        while f"{stem} {k}" in self.host.groups:
            k += 1
        return f"{stem} {k}"

    def name_group(self, name: str | None = None) -> bool:
        """Keep the selection as a group named ``name`` (None: ask for it)."""
        selection = self.host.selection
        if not selection:
            self._error("Nothing selected to name: select samples first.")
            return False
        if name is None:
            name, ok = QInputDialog.getText(
                self, "Name group", f"Name for the {len(selection):,} selected samples:",
                text=self._default_name(),
            )  # fmt: skip
            if not ok:
                return False
        try:
            self.host.groups.add(name, selection.indices, self._next_colour())
        except ValueError as exc:
            self._error(f"Cannot name the group: {exc}.")
            return False
        self._changed()
        self.host.stage_label.setText(f"Group '{name.strip()}': {len(selection):,} samples.")
        return True

    def select_group(self, name: str, mode: str | None = None) -> None:
        """Select the samples of group ``name`` again (``mode`` None: the keys held)."""
        group = self.host.groups.get(name)
        mode = mode or selection_mode(QGuiApplication.keyboardModifiers())
        self.host.selection.set(group.indices, f"group {name}", mode=mode)

    def rename_group(self, name: str, new: str | None = None) -> bool:
        if new is None:
            new, ok = QInputDialog.getText(self, "Rename group", "New name:", text=name)
            if not ok:
                return False
        try:
            self.host.groups.rename(name, new)
        except ValueError as exc:
            self._error(f"Cannot rename the group: {exc}.")
            return False
        self._changed()
        return True

    def delete_group(self, name: str) -> None:
        self.host.groups.remove(name)
        self._changed()

    def compare(self) -> None:
        """One group picked: it against the rest; two: the first against the second."""
        names = self.picked()
        if len(names) not in (1, 2):
            self._error("Pick one group (against the rest) or two groups to compare.")
            return
        a, b = names[0], names[1] if len(names) == 2 else ""
        self.host.compare_requested.emit(a, b)
        self.host.stage_label.setText(f"Comparing {a} with {b or 'the rest'}.")

    def export_ids(self, path: str | None = None) -> Path | None:
        """The picked group's sample ids (none picked: the selection's), one per line."""
        session = self.host.session
        names = self.picked()
        if len(names) == 1:
            indices, stem = self.host.groups.get(names[0]).indices, names[0]
        elif self.host.selection:
            indices, stem = self.host.selection.indices, "selection"
        else:
            self._error("Pick a group or select samples to export their ids.")
            return None
        if session is None:
            return None
        if path is None:
            safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in stem)
            path = self.host.ask_save_path("Export sample ids", f"{safe}_ids.txt", IDS_FILTER)
            if not path:
                return None
        try:
            written = write_ids(path, indices, session.dataset.ids)
        except (OSError, DataError) as exc:
            self._error(f"Could not write {path}: {exc}")
            return None
        self.host.stage_label.setText(f"Wrote {len(indices):,} sample ids to {written}")
        return written

    def import_ids(self, path: str | None = None, name: str | None = None) -> bool:
        """A group of the samples a file lists (one id per line), named after the file."""
        session = self.host.session
        if session is None:
            self._error("Load data first: the ids are looked up in it.")
            return False
        if path is None:
            folder = self.host.settings.value("last_folder", str(Path.home()))
            path, _ = QFileDialog.getOpenFileName(self, "Import sample ids", folder, IDS_FILTER)
            if not path:
                return False
        try:
            indices = read_ids(path, session.dataset.ids)
        except DataError as exc:
            self._error(f"Cannot import the ids: {exc}")
            return False
        stem = name or Path(path).stem
        if stem in self.host.groups:
            stem = self._default_name(stem)
        self.host.groups.add(stem, indices, self._next_colour())
        self._changed()
        self.host.stage_label.setText(f"Group '{stem}': {indices.size:,} samples from {path}.")
        return True


def install(host: ToolHost) -> SelectionPanel:
    """The Selection dock, under the plots in a tab beside the Runs (and Analysis) docks,
    brought to the front when a selection starts; it follows the window's selection, data,
    runs and groups."""
    panel = SelectionPanel(host)
    dock = host.add_dock(
        "Selection", panel, Qt.DockWidgetArea.BottomDockWidgetArea, "selectionDock"
    )
    runs = host.findChild(QDockWidget, "runsDock")
    if runs is not None:
        host.tabifyDockWidget(runs, dock)
        runs.raise_()
    panel.dock = dock
    dock.dockLocationChanged.connect(weak_slot(panel, lambda p, area: p.set_area(area)))
    host.selection.changed.connect(weak_slot(panel, lambda p: p.on_selection_changed()))
    host.groups_changed.connect(weak_slot(panel, lambda p: p.show_groups()))
    host.data_loaded.connect(weak_slot(panel, lambda p: p.set_data()))
    host.presenter.run_shown.connect(weak_slot(panel, lambda p: p.refresh()))
    return panel
