"""Heat map of a parameter sweep: one cell per pair of grid values, filled as runs finish.

Columns are the first parameter's values, rows the second's (a single row for a one-axis
sweep); cells not computed yet stay empty (NaN is drawn transparent). Each finished cell
prints its value. Clicking a cell emits ``cell_clicked(ix, iy)``.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QFont

from mvc_gui.plots.base import PlotBox

__all__ = ["SweepHeatmap"]

MAX_TEXT_CELLS = 400


class SweepHeatmap(PlotBox):
    cell_clicked = Signal(int, int)

    def __init__(self, parent=None) -> None:
        view = pg.GraphicsLayoutWidget()
        super().__init__("Sweep", view, parent)
        self.plot = view.addPlot(row=0, col=0)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.image = pg.ImageItem()
        self.image.setColorMap(pg.colormap.get("viridis"))
        self.plot.addItem(self.image)
        self.bar = pg.ColorBarItem(colorMap=pg.colormap.get("viridis"), interactive=False, width=12)
        self.bar.setImageItem(self.image)
        view.addItem(self.bar, row=0, col=1)
        self._font = QFont()
        self._font.setPointSizeF(8)
        self.texts: list[pg.TextItem] = []
        self.values = np.full((1, 1), np.nan)  # rows: y values, columns: x values
        self.shape = (0, 0)  # (nx, ny)
        view.scene().sigMouseClicked.connect(self._on_mouse_clicked)
        self.setToolTip("Click a finished cell to load that run into the main window")

    def set_axes(
        self, x_name: str, x_labels: list[str], y_name: str | None, y_labels: list[str]
    ) -> None:
        """Lay out an empty grid: len(x_labels) columns, len(y_labels) (or one) rows."""
        nx, ny = len(x_labels), max(len(y_labels), 1)
        self.shape = (nx, ny)
        self.plot.setLabel("bottom", x_name)
        self.plot.setLabel("left", y_name or "")
        bottom = [(i + 0.5, t) for i, t in enumerate(x_labels)]
        left = [(j + 0.5, t) for j, t in enumerate(y_labels)] if y_name else [(0.5, "")]
        self.plot.getAxis("bottom").setTicks([bottom])
        self.plot.getAxis("left").setTicks([left])
        for t in self.texts:
            self.plot.removeItem(t)
        self.texts = []
        if nx * ny <= MAX_TEXT_CELLS:
            for j in range(ny):
                for i in range(nx):
                    t = pg.TextItem("", color="#2b3440", anchor=(0.5, 0.5))
                    t.setFont(self._font)
                    t.setPos(i + 0.5, j + 0.5)
                    self.plot.addItem(t)
                    self.texts.append(t)
        self.set_values(np.full((nx, ny), np.nan))
        self.plot.setRange(xRange=(0, nx), yRange=(0, ny), padding=0.02)

    def set_values(self, grid: np.ndarray, fmt: str = "{:.3f}") -> None:
        """``grid[ix, iy]`` (NaN: not computed yet)."""
        nx, ny = self.shape
        values = np.asarray(grid, dtype=float).reshape(nx, ny).T  # image rows are y
        self.values = values
        finite = values[np.isfinite(values)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        if hi <= lo:
            lo, hi = lo - 0.5, hi + 0.5
        self.image.setImage(values, levels=(lo, hi), autoLevels=False)
        self.image.setRect(QRectF(0, 0, nx, ny))
        self.bar.setLevels((lo, hi))
        for k, t in enumerate(self.texts):
            v = values[k // nx, k % nx]
            t.setText(fmt.format(v) if np.isfinite(v) else "")
            light = np.isfinite(v) and (v - lo) / (hi - lo) < 0.55
            t.setColor("#ffffff" if light else "#2b3440")

    def cell_texts(self) -> list[str]:
        return [t.toPlainText() for t in self.texts]

    def cell_at(self, scene_pos: QPointF) -> tuple[int, int] | None:
        vb = self.plot.getViewBox()
        if not vb.sceneBoundingRect().contains(scene_pos):
            return None
        p = vb.mapSceneToView(scene_pos)
        ix, iy = int(np.floor(p.x())), int(np.floor(p.y()))
        nx, ny = self.shape
        return (ix, iy) if 0 <= ix < nx and 0 <= iy < ny else None

    def scene_pos_of(self, ix: int, iy: int) -> QPointF:
        """Where cell (ix, iy) is drawn (tests click there)."""
        return self.plot.getViewBox().mapViewToScene(QPointF(ix + 0.5, iy + 0.5))

    def _on_mouse_clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        cell = self.cell_at(event.scenePos())
        if cell is not None:
            self.cell_clicked.emit(*cell)
