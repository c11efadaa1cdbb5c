"""The workbench's Association page: every metadata column against the clusters, sorted by
strength, with the contingency table or the values per cluster on click, and Kaplan-Meier curves
per cluster for a time and an event column (``core.analysis.association``)."""

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
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.analysis.association import (
    associate_steps,
    contingency,
    survival,
    values_by_cluster,
    write_association_csv,
)
from mvc_gui.plots.distribution_plot import ContingencyPlot, DistributionPlot, summarise
from mvc_gui.plots.survival_plot import SurvivalPlot
from mvc_gui.tools.host import ToolHost
from mvc_gui.tools.workbench_parts import (
    ColumnsModel,
    Page,
    StepsWorker,
    table_view,
)

__all__ = ["AssociationPage"]

# -- Association ---------------------------------------------------------------------------------
ASSOCIATION_COLUMNS = ("column", "kind", "test", "effect", "effect size", "p", "p method", "n")


def _by_cluster(labels: np.ndarray, values: np.ndarray) -> tuple[list[int], list]:
    """A numeric column's values per cluster, summarised to draw (clusters in order)."""
    got = values_by_cluster(labels, values)
    keys = sorted(got)
    return keys, summarise([got[k] for k in keys])


class AssociationPage(Page):
    """Every metadata column against the clusters, sorted by strength; details on click;
    Kaplan-Meier curves for a time and an event column."""

    def __init__(self, host: ToolHost) -> None:
        super().__init__(host, "Association")
        self.start_and_export_bar(
            "Associate",
            "Every metadata column against the clusters: chi-square and Cramér's V "
            "(categorical), Kruskal-Wallis and epsilon² (numeric); permutation p where counts "
            "are small",
        )
        self.model = ColumnsModel(ASSOCIATION_COLUMNS, self)
        self.table = table_view(self.model)
        for column, width in ((0, 110), (1, 84), (2, 96), (3, 84), (5, 70), (6, 84)):
            self.table.setColumnWidth(column, width)
        self.table.selectionModel().currentRowChanged.connect(self._on_row)
        # what File > Figure... draws: four columns that fit a third of a page
        self.figure_model = ColumnsModel(("column", "test", "effect", "p"), self)
        self.figure_table = table_view(self.figure_model)
        self.figure_table.hide()
        self.contingency_plot = ContingencyPlot()
        self.by_cluster = DistributionPlot("Values by cluster")
        self.detail = QStackedWidget()
        self.detail.addWidget(self.by_cluster)
        self.detail.addWidget(self.contingency_plot)
        # survival: a time and an event column
        surv = QWidget()
        surv_layout = QVBoxLayout(surv)
        surv_layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.time_box, self.event_box = QComboBox(), QComboBox()
        self.km_button = QPushButton("Kaplan-Meier")
        self.km_button.clicked.connect(lambda _=False: self.start_survival())
        for w in (QLabel("time:"), self.time_box, QLabel("event:"), self.event_box,
                  self.km_button):  # fmt: skip
            row.addWidget(w)
        row.addStretch(1)
        surv_layout.addLayout(row)
        self.survival_plot = SurvivalPlot()
        surv_layout.addWidget(self.survival_plot, 1)
        self.right = QTabWidget()
        self.right.addTab(self.detail, "By cluster")
        self.right.addTab(surv, "Survival")
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.table)
        split.addWidget(self.right)
        split.setSizes([560, 600])
        self.layout_.addWidget(split, 1)
        self.rows: list = []
        self.labels: np.ndarray | None = None
        self.columns: dict[str, np.ndarray] = {}
        self.survival_result: Any = None
        host.data_loaded.connect(self._on_data)
        shown = getattr(host.presenter, "run_shown", None)
        if shown is not None:  # another run on display: its clusters against the metadata
            shown.connect(lambda: self.start() if self.rows and not self.busy else None)

    def _on_data(self) -> None:
        """Other data: the table (of the data before) is emptied, the column choices follow."""
        if self.rows:
            self._show_rows([])
            self.status.setText("")
        self._fill_column_boxes()

    def _fill_column_boxes(self) -> None:
        session = self.host.session
        names = list(getattr(session.dataset, "metadata", {}) or {}) if session else []
        for box in (self.time_box, self.event_box):
            current = box.currentText()
            box.clear()
            box.addItems(names)
            if current in names:
                box.setCurrentText(current)

    def start(self) -> StepsWorker | None:
        got = self.result_and_data()
        if got is None:
            return None
        result, ds = got
        columns = dict(getattr(ds, "metadata", {}) or {})
        if not columns:
            self.host.messages.show_message(
                "error", "Association: the data has no metadata columns (File > Load metadata)."
            )
            return None
        self.labels, self.columns = np.asarray(result.labels), columns
        return self.run(associate_steps, self.labels, columns, done=self._show_rows)

    def _show_rows(self, rows: list) -> None:
        self.rows = list(rows)
        self.model.set_columns(
            [[r.column for r in rows], [r.kind for r in rows], [r.test for r in rows],
             [r.effect_name for r in rows], np.array([r.effect for r in rows], dtype=float),
             np.array([r.p for r in rows], dtype=float), [r.p_method for r in rows],
             np.array([r.n for r in rows], dtype=np.int64)],
            keep_sort=False,
        )  # fmt: skip
        self.export_button.setEnabled(bool(rows))
        self.figure_model.set_columns(
            [[r.column for r in rows], [r.test for r in rows],
             [f"{r.effect_name} {r.effect:.2f}" for r in rows],
             np.array([r.p for r in rows], dtype=float)],
            keep_sort=False,
        )  # fmt: skip
        register = getattr(self.host, "register_figure_part", None)
        if register is not None:  # File > Figure... places this table beside the embedding
            register("association", self.figure_table if rows else None)
        top = ", ".join(r.column for r in rows[:3])
        self.status.setText(f"{len(rows)} columns, strongest first: {top}.")

    def _on_row(self, index: QModelIndex, _previous: QModelIndex) -> None:
        if not index.isValid() or self.labels is None:
            return
        row = self.rows[self.model.source_row(index.row())]
        values = self.columns[row.column]
        labels = self.labels
        title = f"{row.column}: {row.effect_name} = {row.effect:.3g}, p = {row.p:.3g}"
        if row.kind == "categorical":

            def show_counts(got: tuple) -> None:
                clusters, categories, counts = got
                self.contingency_plot.set_counts(title, list(clusters), categories, counts)
                self.detail.setCurrentWidget(self.contingency_plot)

            self.run_small_job(contingency, labels, values, done=show_counts)
        else:

            def show_values(got: tuple) -> None:
                keys, groups = got
                names = [f"{k} (n={g.n:,})" for k, g in zip(keys, groups, strict=True)]
                self.by_cluster.set_values(title, names, groups, row.column)
                self.detail.setCurrentWidget(self.by_cluster)

            self.run_small_job(_by_cluster, labels, values, done=show_values)
        self.right.setCurrentIndex(0)

    def start_survival(self, time: str | None = None, event: str | None = None) -> None:
        got = self.result_and_data()
        if got is None:
            return
        result, ds = got
        columns = getattr(ds, "metadata", {}) or {}
        time, event = time or self.time_box.currentText(), event or self.event_box.currentText()
        if time not in columns or event not in columns:
            self.host.messages.show_message("error", "Survival: choose a time and an event column.")
            return
        self.time_box.setCurrentText(time)
        self.event_box.setCurrentText(event)
        labels = np.asarray(result.labels)

        def show(res: Any) -> None:
            self.survival_result = res
            self.survival_plot.set_curves(res.curves, res.p, time)
            self.status.setText(f"Survival ({time}, {event}): log-rank p = {res.p:.3g}, "
                                f"n = {res.n:,}.")  # fmt: skip

        self.right.setCurrentIndex(1)
        self.run_small_job(survival, labels, columns[time], columns[event], done=show)

    def export_csv(self) -> None:
        if self.rows:
            rows = list(self.rows)
            self.write_csv("Export the association table", "association.csv",
                           lambda path: write_association_csv(path, rows))  # fmt: skip
