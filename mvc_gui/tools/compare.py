"""Compare two runs: agreement (ARI, NMI), their contingency table, objective curves
overlaid, and their parameters side by side with the differences highlighted.

The numbers come from :mod:`core.experiments.compare`; this dialog only draws them. It is not modal,
so several comparisons can stay open next to the main window.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.experiments.compare import (
    Contingency,
    agreement,
    contingency,
    format_value,
    ordered_params,
    param_table,
)
from mvc_gui.model.run_entries import RunEntry
from mvc_gui.plots.base import PlotBox, export_item
from mvc_gui.plots.confusion_plot import CountsItem

__all__ = ["AgreementPlot", "CompareDialog", "CurvesPlot"]

COLORS = ("#0072B2", "#D55E00")  # Okabe-Ito blue and vermilion: colour-blind safe
DIFF_BRUSH = QColor("#fff1c2")


class AgreementPlot(PlotBox):
    """Contingency of run A's clusters (rows) against run B's (columns, matched order)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        view = pg.PlotWidget()
        super().__init__("Clusters of A x clusters of B", view, parent)
        self.plot = view.getPlotItem()
        self.plot.invertY(True)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.image = pg.ImageItem()
        self.image.setColorMap(pg.colormap.get("CET-L12"))
        self.plot.addItem(self.image)
        font = QFont()
        font.setPointSizeF(7.5)
        self.counts = CountsItem(font)
        self.plot.addItem(self.counts)
        self.table: Contingency | None = None
        self.setToolTip(
            "Samples in cluster i of A and cluster j of B; B's clusters are matched to A's "
            "(Hungarian), so agreement lies on the diagonal. Colour: share of A's row."
        )

    def set_table(self, table: Contingency, name_a: str, name_b: str) -> None:
        self.table = table
        counts = table.counts
        norm = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
        rows, cols = counts.shape
        self.image.setImage(norm.astype(np.float32), levels=(0, 1), autoLevels=False)
        self.image.setRect(QRectF(0, 0, cols, rows))
        self.plot.setLabel("left", f"{name_a}: cluster")
        self.plot.setLabel("bottom", f"{name_b}: cluster")
        rl, cl = table.row_labels.tolist(), table.col_labels.tolist()
        self.plot.getAxis("left").setTicks([[(i + 0.5, str(v)) for i, v in enumerate(rl)]])
        self.plot.getAxis("bottom").setTicks([[(j + 0.5, str(v)) for j, v in enumerate(cl)]])
        self.plot.setRange(xRange=(0, cols), yRange=(0, rows), padding=0.02)
        self.counts.set_cells(counts, norm)


class CurvesPlot(PlotBox):
    """Objective per iteration of both runs, in two colours with a legend."""

    def __init__(self, parent: QWidget | None = None) -> None:
        view = pg.PlotWidget()
        super().__init__("Objective curves", view, parent)
        self.plot = view.getPlotItem()
        self.plot.setLabel("bottom", "iteration")
        self.plot.setLabel("left", "objective")
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        self.legend = self.plot.addLegend(offset=(-5, 5), labelTextSize="8pt")
        self.curves: list[pg.PlotDataItem] = []

    def set_runs(self, runs: list[tuple[str, list[int], list[float]]]) -> None:
        for (name, x, y), color in zip(runs, COLORS, strict=False):
            curve = self.plot.plot(
                np.asarray(x, dtype=float),
                np.asarray(y, dtype=float),
                pen=pg.mkPen(color, width=2),
                symbol="o",
                symbolSize=4,
                symbolBrush=color,
                symbolPen=None,
                name=name,
            )
            self.curves.append(curve)


class CompareDialog(QDialog):
    def __init__(self, first: RunEntry, second: RunEntry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.first, self.second = first, second
        a, b = first.result, second.result
        self.setWindowTitle(f"Compare {first.title} and {second.title}")
        self.agreement = agreement(a.labels, b.labels)
        self.contingency = contingency(a.labels, b.labels)
        layout = QVBoxLayout(self)
        ag = self.agreement
        self.summary = QLabel(
            f"<b>A</b> = {first.title}, <b>B</b> = {second.title}: agreement "
            f"<b>ARI {ag['ari']:.4f}</b>, <b>NMI {ag['nmi']:.4f}</b>; "
            f"{ag['matched']:.1%} of the samples are in matched clusters."
        )
        self.summary.setWordWrap(True)
        self.summary.setToolTip(
            "ARI and NMI between the two labellings (1 = the same partition, about 0 for "
            "unrelated ones); they ignore the cluster numbers."
        )
        layout.addWidget(self.summary)
        split = QSplitter(Qt.Orientation.Horizontal)
        self.matrix = AgreementPlot()
        self.matrix.set_table(self.contingency, "A", "B")
        self.curves = CurvesPlot()
        self.curves.set_runs(
            [
                (f"A: {first.title}", first.history.iterations, first.history.objective),
                (f"B: {second.title}", second.history.iterations, second.history.objective),
            ]
        )
        if a.method != b.method:
            self.curves.title.setText("Objective curves (different methods: other scales)")
        split.addWidget(self.matrix)
        split.addWidget(self.curves)
        vertical = QSplitter(Qt.Orientation.Vertical)
        vertical.addWidget(split)
        self.params = self._params_table()
        differ = ", ".join(self.differences) if self.differences else "nothing"
        self.summary.setText(f"{self.summary.text()}<br>The runs differ in: {differ}.")
        vertical.addWidget(self.params)
        vertical.setSizes([380, 260])
        layout.addWidget(vertical, 1)
        for box, name in ((self.matrix, "agreement"), (self.curves, "objectives")):
            box.export_button.clicked.connect(lambda _=False, b=box, n=name: self._export(b, n))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(980, 720)

    def _export(self, box: PlotBox, name: str) -> None:
        """Save a plot of the comparison through the window's save dialog (PNG or SVG)."""
        win = self.parent()
        stem = f"compare_{self.first.number}_{self.second.number}_{name}"
        path = win.ask_save_path("Export plot", f"{stem}.png", "PNG (*.png);;SVG (*.svg)")
        if not path:
            return
        try:
            export_item(path, box.scene_item())
        except OSError as exc:
            win.messages.show_message("error", f"Could not write {path}: {exc}")
            return
        win.stage_label.setText(f"Wrote {path}")

    def _params_table(self) -> QTableWidget:
        ra, rb = self.first.row(), self.second.row()
        a, b = self.first.result, self.second.result
        rows = [
            ("method", a.method, b.method, a.method != b.method),
            ("status", ra["status"], rb["status"], ra["status"] != rb["status"]),
            ("iterations", str(a.n_iter), str(b.n_iter), a.n_iter != b.n_iter),
            ("time (s)", format_value(ra["seconds"]), format_value(rb["seconds"]), False),
        ]
        for key in ("acc", "nmi", "ari"):
            if ra[key] is not None or rb[key] is not None:
                rows.append((key.upper(), format_value(ra[key]), format_value(rb[key]), False))
        rows += param_table(ordered_params(a.method, a.params), ordered_params(b.method, b.params))
        table = QTableWidget(len(rows), 3)
        table.setHorizontalHeaderLabels(["", f"A: {self.first.title}", f"B: {self.second.title}"])
        table.verticalHeader().setVisible(False)
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.differences = [name for name, _va, _vb, differs in rows if differs]
        for r, (name, va, vb, differs) in enumerate(rows):
            for c, text in enumerate((name, va, vb)):
                item = QTableWidgetItem(text)
                if differs:
                    font = QFont(item.font())
                    font.setBold(True)
                    item.setFont(font)
                    item.setBackground(DIFF_BRUSH)
                    item.setToolTip("The two runs differ here")
                table.setItem(r, c, item)
        return table
