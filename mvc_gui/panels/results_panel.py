"""Results panel: metrics table, cluster legend with counts (click to select), selection."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPixmap
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mvc_gui.model.palette import cluster_colors

__all__ = ["ResultsPanel"]

METRIC_NAMES = (
    ("acc", "ACC"), ("nmi", "NMI"), ("nmi_max", "NMI (max)"), ("ari", "ARI"),
    ("purity", "Purity"), ("f_score", "F-score"),
)  # fmt: skip


def swatch(rgb: tuple[int, int, int]) -> QIcon:
    pix = QPixmap(12, 12)
    pix.fill(QColor(*rgb))
    return QIcon(pix)


class ResultsPanel(QWidget):
    cluster_clicked = Signal(int)
    export_selection_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        self.status = QLabel("No run yet.")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(("Metric", "Value"))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        layout.addWidget(self.table, 2)
        layout.addWidget(QLabel("<b>Clusters</b> (click to select)"))
        self.legend = QListWidget()
        self.legend.itemClicked.connect(
            lambda item: self.cluster_clicked.emit(item.data(Qt.ItemDataRole.UserRole))
        )
        layout.addWidget(self.legend, 3)
        self.selection_label = QLabel("No selection.")
        self.selection_label.setWordWrap(True)
        layout.addWidget(self.selection_label)
        self.export_button = QPushButton("Export selection...")
        self.export_button.setEnabled(False)
        self.export_button.clicked.connect(self.export_selection_requested)
        layout.addWidget(self.export_button)
        self._counts: tuple[int, ...] = ()

    def show_metrics(self, rows: list[tuple[str, str]]) -> None:
        self.table.setRowCount(len(rows))
        for r, (name, value) in enumerate(rows):
            self.table.setItem(r, 0, QTableWidgetItem(name))
            item = QTableWidgetItem(value)
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.table.setItem(r, 1, item)

    def show_legend(
        self, labels: np.ndarray | None, n_clusters: int, sizes: np.ndarray | None = None
    ) -> None:
        """One row per cluster with its size (``sizes``: the labels' bincount, if known)."""
        if labels is None:
            counts: tuple[int, ...] = ()
        elif sizes is not None:
            counts = tuple(sizes.tolist()) + (0,) * max(0, n_clusters - len(sizes))
        else:
            counts = tuple(np.bincount(labels, minlength=n_clusters).tolist())
        if counts == self._counts:
            return
        self._counts = counts
        self.legend.clear()
        for c, (count, rgb) in enumerate(zip(counts, cluster_colors(len(counts)), strict=True)):
            item = QListWidgetItem(swatch(rgb), f"cluster {c}  \u2014  {count:,} samples")
            item.setData(Qt.ItemDataRole.UserRole, c)
            self.legend.addItem(item)

    def show_selection(self, count: int, description: str) -> None:
        self.export_button.setEnabled(count > 0)
        self.selection_label.setText(
            f"Selected: {count:,} samples ({description})." if count else "No selection."
        )


def metric_rows(metrics: dict, extra: list[tuple[str, str]]) -> list[tuple[str, str]]:
    rows = [(label, f"{metrics[key]:.4f}") for key, label in METRIC_NAMES if key in metrics]
    return rows + extra
