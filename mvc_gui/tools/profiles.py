"""Tools > Cluster profiles...: what sets each cluster apart, for the run on display.

A window with, per view, a sortable table of the top features of every cluster (largest
|effect| first, higher or lower; AUC, q; over the samples that have the view; row-block views
too: ``core.records.profiles_table``) and a heat map of the standardised cluster means
(clusters x the top features of all clusters), plus CSV export. Computed in a
:class:`~mvc_gui.run.workers.TaskWorker`."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from core.records.profiles_table import (
    COLUMNS,
    cluster_profiles,
    feature_names_of,
    write_profiles_csv,
)
from mvc_gui.run.workers import TaskWorker
from mvc_gui.tools.host import ToolHost

__all__ = ["ProfilesDialog", "install", "open_profiles"]


def install(host: ToolHost) -> QAction:
    """Add Tools > Cluster profiles...; returns the action."""
    act = QAction("Cluster &profiles...", host)
    act.setStatusTip("Per view and cluster: the features that set it apart (table, heat map)")
    act.triggered.connect(lambda _=False: open_profiles(host))
    host.tools_menu.addAction(act)
    return act


def _compute(ds: Any, labels: np.ndarray) -> tuple[list, list, list[list[str]]]:
    names = [feature_names_of(ds, v, x.shape[1]) for v, x in enumerate(ds.views)]
    observed = getattr(ds, "observed", None)  # each view over the samples that have it
    rows, profiles = cluster_profiles(ds.views, labels, ds.view_names, names, observed=observed)
    return rows, profiles, names


def open_profiles(host: ToolHost) -> TaskWorker | None:
    result = host.current_result()
    session = host.session
    if result is None or session is None:
        return None
    ds = session.dataset
    if int(result.labels.size) != ds.n_samples:
        host.messages.show_message("error", "Cluster profiles: the run is not on the loaded data.")
        return None
    worker = TaskWorker(_compute, ds, np.asarray(result.labels), parent=host)

    def done(res: tuple) -> None:
        dialog = ProfilesDialog(host, ds.view_names, *res)
        dialog.show()
        host.stage_label.setText("Cluster profiles ready.")
        worker.dialog = dialog  # keep it alive with its worker

    worker.done.connect(done)
    worker.failed.connect(lambda m, d: host.messages.show_message("error", f"Profiles: {m}", d))
    worker.start()
    return worker


class ProfilesDialog(QDialog):
    def __init__(self, host: ToolHost, view_names, rows, profiles, names) -> None:
        super().__init__(host)
        self.setWindowTitle("Cluster profiles")
        self.resize(980, 620)
        self.host, self.rows, self.profiles, self.names = host, rows, profiles, names
        self.view_box = QComboBox()
        self.view_box.addItems(list(view_names))
        self.view_box.currentIndexChanged.connect(self.show_view)
        export = QPushButton("Export CSV...")
        export.clicked.connect(self.export_csv)
        bar = QHBoxLayout()
        bar.addWidget(self.view_box)
        bar.addStretch(1)
        bar.addWidget(export)
        self.table = QTableWidget(0, len(COLUMNS) - 1)
        self.table.setHorizontalHeaderLabels([c for c in COLUMNS if c != "view"])
        self.table.setSortingEnabled(True)
        self.heat = pg.PlotWidget()
        self.heat.getPlotItem().invertY(True)
        self.image = pg.ImageItem()
        self.image.setColorMap(pg.colormap.get("CET-D1"))
        self.heat.addItem(self.image)
        self.heat.setToolTip("Standardised cluster means: (cluster mean - mean) / sd")
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.table)
        split.addWidget(self.heat)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(split, 1)
        self.show_view(0)

    def show_view(self, v: int) -> None:
        name = self.view_box.itemText(v)
        rows = [r for r in self.rows if r.view == name]
        self.table.setSortingEnabled(False)
        self.table.setRowCount(len(rows))
        for i, r in enumerate(rows):
            values = [r.cluster, r.rank, r.feature + 1, r.name, r.direction, r.mean_in,
                      r.mean_out, r.effect_d, r.auc, r.p, r.q, r.n_in, r.n_out,
                      r.rank_samples]  # fmt: skip
            for j, val in enumerate(values):
                item = QTableWidgetItem()
                item.setData(Qt.ItemDataRole.DisplayRole, val if isinstance(val, str) else
                             (round(val, 4) if isinstance(val, float) else int(val)))  # fmt: skip
                self.table.setItem(i, j, item)
        self.table.setSortingEnabled(True)
        feats = list(dict.fromkeys(r.feature for r in rows))[:40]
        prof = self.profiles[v]
        img = prof.standardized_means[:, feats] if feats else np.zeros((1, 1))
        lim = max(float(np.abs(img).max()), 1e-9)
        self.image.setImage(img.T, levels=(-lim, lim))  # x: features, y: clusters
        axis = self.heat.getPlotItem().getAxis("bottom")
        axis.setTicks([[(i + 0.5, self.names[v][f]) for i, f in enumerate(feats)]])
        left = self.heat.getPlotItem().getAxis("left")
        left.setTicks([[(k + 0.5, str(k)) for k in range(img.shape[0])]])

    def export_csv(self) -> None:
        if path := self.host.ask_save_path(
            "Export cluster profiles", "profiles.csv", "CSV (*.csv)"
        ):
            try:
                write_profiles_csv(path, self.rows)
            except OSError as exc:
                self.host.messages.show_message("error", f"Could not write {path}: {exc}")
                return
            self.host.stage_label.setText(f"Wrote {path}")
