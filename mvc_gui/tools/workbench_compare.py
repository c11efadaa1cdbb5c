"""The workbench's Compare page: group A against the rest or group B, per view a sortable
table (effect sizes first, AUC/p/q when ready), a volcano plot and the clicked feature's values
by group, over the samples that have the view (``core.analysis.compare``)."""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
)

from core.analysis.compare import compare_steps, feature_values, write_compare_csv
from core.records.profiles_table import feature_names_of
from mvc_gui.plots.distribution_plot import DistributionPlot, summarise
from mvc_gui.plots.volcano_plot import VolcanoPlot
from mvc_gui.tools.host import ToolHost
from mvc_gui.tools.workbench_parts import (
    ALPHA,
    ColumnsModel,
    GroupBox,
    Page,
    StepsWorker,
    select_row,
    table_view,
)

__all__ = ["ComparePage"]

# -- Compare --------------------------------------------------------------------------------------
COMPARE_COLUMNS = ("feature", "name", "mean A", "mean B", "effect d", "AUC", "p", "q", "direction")


def _compare_steps(ds: Any, a: np.ndarray, b: np.ndarray | None):
    names = [feature_names_of(ds, v, x.shape[1]) for v, x in enumerate(ds.views)]
    return (
        yield from compare_steps(ds.views, a, b, observed=ds.observed, feature_names=names,
                                 view_names=list(ds.view_names))
    )  # fmt: skip


def _values(ds: Any, view: int, feature: int, a: np.ndarray, b: np.ndarray | None) -> list:
    """One feature's values in A and in B (observed samples only), summarised to draw."""
    if b is None:
        rest = np.ones(ds.n_samples, dtype=bool)
        rest[a] = False
        b = np.flatnonzero(rest)
    return summarise(feature_values(ds.views, view, feature, [a, b], observed=ds.observed))


class ComparePage(Page):
    """Group A against the rest or group B: per view a table, a volcano and a feature's values."""

    def __init__(self, host: ToolHost) -> None:
        super().__init__(host, "Compare")
        self.group_a = GroupBox(host, rest=False)
        self.group_b = GroupBox(host, rest=True)
        self.compare_button = QPushButton("Compare")
        self.compare_button.setToolTip(
            "Per view: the features that differ between A and B (effect d, AUC, p, q over the "
            "samples that have the view)"
        )
        self.compare_button.clicked.connect(lambda _=False: self.start())
        for w in (QLabel("A:"), self.group_a, QLabel("against"), self.group_b,
                  self.compare_button):  # fmt: skip
            self.bar.addWidget(w)
        self.finish_bar()
        row = QHBoxLayout()
        self.view_box = QComboBox()
        self.view_box.currentIndexChanged.connect(self.show_view)
        self.counts = QLabel("")
        self.export_button = QPushButton("Export CSV...")
        self.export_button.setEnabled(False)
        self.export_button.clicked.connect(self.export_csv)
        row.addWidget(QLabel("View:"))
        row.addWidget(self.view_box)
        row.addWidget(self.counts, 1)
        row.addWidget(self.export_button)
        self.layout_.addLayout(row)
        self.model = ColumnsModel(COMPARE_COLUMNS, self)
        self.model.tooltips = {
            4: "Cohen's d of A against B (pooled sd)",
            5: "P(a value of A > a value of B)",
            7: "Benjamini-Hochberg q over all features of all views",
            8: "higher or lower in A",
        }
        self.table = table_view(self.model)
        self.table.setColumnWidth(0, 58)
        self.table.setColumnWidth(1, 110)
        self.table.selectionModel().currentRowChanged.connect(self._on_row)
        self.volcano = VolcanoPlot()
        self.volcano.feature_clicked.connect(self._on_volcano)
        self.distribution = DistributionPlot("Values by group")
        right = QSplitter(Qt.Orientation.Horizontal)
        right.addWidget(self.volcano)
        right.addWidget(self.distribution)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.table)
        split.addWidget(right)
        split.setSizes([520, 640])
        self.layout_.addWidget(split, 1)
        self.tables: list = []
        self.perm = np.empty(0, dtype=np.int64)  # table index of each model row
        self.groups: tuple[str, np.ndarray, str, np.ndarray | None] | None = None
        self.dataset: Any = None

    # -- run ----------------------------------------------------------------------------------
    def start(self) -> StepsWorker | None:
        session = self.host.session
        if session is None:
            self.host.messages.show_message("error", "Load a dataset first (File > Open).")
            return None
        ds = session.dataset
        name_a, a = self.group_a.indices()
        name_b, b = self.group_b.indices()
        if a is None or a.size == 0:
            self.host.messages.show_message(
                "error", "Compare: group A is empty; select samples (drag on the embedding, "
                "click a cluster) or choose a named group.",
            )  # fmt: skip
            return None
        if b is not None and b.size == 0:
            self.host.messages.show_message("error", f"Compare: group B ({name_b}) is empty.")
            return None
        self.groups, self.dataset = (name_a, a, name_b, b), ds
        self.tables = []  # the table of other groups goes: nothing stale is on display
        self.model.set_columns([np.empty(0)] * len(COMPARE_COLUMNS))
        self.volcano.set_table(np.empty(0), np.empty(0), ALPHA)
        self.counts.setText("")
        self.export_button.setEnabled(False)
        self.distribution.clear("Click a row of the table to see its values by group.")
        return self.run(_compare_steps, ds, a, b, done=self._show_tables,
                        partial=self._show_tables)  # fmt: skip

    def _show_tables(self, tables: list) -> None:
        first = not self.tables
        self.tables = list(tables)
        if first or self.view_box.count() != len(self.tables):
            self.view_box.blockSignals(True)
            self.view_box.clear()
            self.view_box.addItems([t.view_name for t in self.tables])
            self.view_box.blockSignals(False)
        self.show_view(max(self.view_box.currentIndex(), 0))
        self.export_button.setEnabled(bool(self.tables))
        if not self.busy and self.tables:
            n_sig = sum(int(t.significant(ALPHA).sum()) for t in self.tables)
            self.status.setText(f"Compared: {n_sig} features with q < {ALPHA:g} in "
                                f"{len(self.tables)} views.")  # fmt: skip

    def feature_table(self, view: int | None = None) -> Any:
        """The comparison table of ``view`` (default: the one shown), or None."""
        v = self.view_box.currentIndex() if view is None else view
        return self.tables[v] if 0 <= v < len(self.tables) else None

    def show_view(self, v: int) -> None:
        t = self.feature_table(v)
        if t is None:
            return
        current = self._current_table_row()
        self.perm = np.asarray(t.ranked(), dtype=np.int64)
        p = self.perm
        self.model.set_columns([
            np.asarray(t.features)[p] + 1, np.asarray(t.names, dtype=object)[p].astype(str),
            t.mean_a[p], t.mean_b[p], t.effect_d[p], t.auc[p], t.p[p], t.q[p],
            np.asarray(t.direction)[p].astype(str),
        ])  # fmt: skip
        self.volcano.set_table(t.effect_d, t.q, ALPHA)
        name_a, _a, name_b, _b = self.groups or ("A", None, "B", None)
        self.counts.setText(
            f"A = {name_a}: {t.n_a:,} samples with this view; B = {name_b}: {t.n_b:,}"
        )
        if current is not None:
            self._select_table_row(current)

    def _current_table_row(self) -> int | None:
        index = self.table.currentIndex()
        if not index.isValid() or self.perm.size == 0:
            return None
        return int(self.perm[self.model.source_row(index.row())])

    def _select_table_row(self, j: int) -> None:
        hit = np.flatnonzero(self.perm == j)
        if hit.size:
            select_row(self.table, self.model.view_row(int(hit[0])))

    def _on_volcano(self, j: int) -> None:
        self._select_table_row(j)

    def _on_row(self, index: QModelIndex, _previous: QModelIndex) -> None:
        t = self.feature_table()
        if not index.isValid() or t is None or self.groups is None:
            return
        j = int(self.perm[self.model.source_row(index.row())])
        self.volcano.mark(j)
        name_a, a, name_b, b = self.groups
        v, feature = self.view_box.currentIndex(), int(t.features[j])
        title = f"{t.names[j]} ({t.view_name}), A = {name_a}, B = {name_b}"

        def show(values: list, j: int = j) -> None:
            if self._current_table_row() == j:
                names = [f"A (n={values[0].n:,})", f"B (n={values[1].n:,})"]
                self.distribution.set_values(title, names, values, ylabel=t.names[j])

        self.run_small_job(_values, self.dataset, v, feature, a, b, done=show)

    def export_csv(self) -> None:
        if self.tables:
            tables = list(self.tables)
            self.write_csv("Export the comparison", "compare.csv",
                           lambda path: write_compare_csv(path, tables))  # fmt: skip
