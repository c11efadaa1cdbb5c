"""View weights: one bar per view, animated towards the latest weights, with view names.

A method without view weights gets what it has instead (ALPC: each view's share of the
reconstruction error, under that title) or a sentence saying why the panel is empty
(``mvc_gui.model.panel_notes``).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QTimer
from PySide6.QtGui import QFont

from mvc_gui.model.panel_notes import WeightsDisplay
from mvc_gui.plots.base import PlotBox

__all__ = ["WeightsPlot"]

BAR_COLOR = "#5b7fa6"


class WeightsPlot(PlotBox):
    def __init__(self, parent=None) -> None:
        view = pg.PlotWidget()
        super().__init__("View weights", view, parent)
        self.plot = view.getPlotItem()
        self.plot.setLabel("left", "weight (sum 1)")
        self.plot.getAxis("left").enableAutoSIPrefix(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.showGrid(y=True, alpha=0.15)
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.6, brush=BAR_COLOR, pen=None)
        self.plot.addItem(self.bars)
        self._texts: list[pg.TextItem] = []
        self.names: list[str] = []
        self._small = QFont()
        self._small.setPointSizeF(7.5)
        self.plot.getAxis("bottom").setStyle(tickFont=self._small)
        self.current = np.zeros(0)
        self.target = np.zeros(0)
        self._timer = QTimer(self)
        self._timer.setInterval(30)
        self._timer.timeout.connect(self._on_timer_timeout)

    def set_views(self, names: list[str]) -> None:
        n = len(names)
        if list(names) == self.names and len(self._texts) == n:
            # same views (every new run): keep the axis and text items, zero the bars;
            # recreating them re-lays out the plot and repaints it several times in a row
            self._timer.stop()
            self.current = np.zeros(n)
            self.target = np.zeros(n)
            self.set_note("")
            self._draw()
            return
        self.names = list(names)
        self.current = np.zeros(n)
        self.target = np.zeros(n)
        self._update_ticks()
        self.setToolTip("Views: " + ", ".join(f"{i + 1} {nm}" for i, nm in enumerate(names)))
        for t in self._texts:
            self.plot.removeItem(t)
        self._texts = []
        for i in range(n):
            t = pg.TextItem("", color="#2b3440", anchor=(0.5, 1.0))
            t.setFont(self._small)
            t.setPos(i, 0)
            self.plot.addItem(t)
            self._texts.append(t)
        self.plot.setXRange(-0.6, n - 0.4, padding=0)
        self._draw()

    def _update_ticks(self) -> None:
        """View names under the bars when they fit, else view numbers (names in the
        tooltip): six names in a narrow panel ran into each other."""
        short = [nm if len(nm) <= 9 else nm[:8] + "\u2026" for nm in self.names]
        room = self.plot.getViewBox().width() or self.width()
        fits = sum(len(t) + 1 for t in short) * 6.5 <= room
        ticks = short if fits else [str(i + 1) for i in range(len(self.names))]
        self.plot.getAxis("bottom").setTicks([list(enumerate(ticks))])

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._update_ticks()

    def set_weights(self, weights: np.ndarray | None, animate: bool = True) -> None:
        if weights is None or len(weights) != len(self.names):
            return
        self.target = np.asarray(weights, dtype=float)
        if animate:
            self._timer.start()
        else:
            self.current = self.target.copy()
            self._draw()

    def show_display(self, display: WeightsDisplay, animate: bool = True) -> None:
        """Bars, title, axis label and note of a :class:`WeightsDisplay`."""
        if self.title.text() != display.title:
            self.title.setText(display.title)
        if self.plot.getAxis("left").labelText != display.axis:
            self.plot.setLabel("left", display.axis)
        self.set_note(display.note)
        if display.values is None:
            self._timer.stop()
            self.current = np.zeros(len(self.names))
            self.target = np.zeros(len(self.names))
            self._draw()
        else:
            self.set_weights(display.values, animate)

    def _on_timer_timeout(self) -> None:
        self.current += 0.35 * (self.target - self.current)
        if np.allclose(self.current, self.target, atol=1e-4):
            self.current = self.target.copy()
            self._timer.stop()
        self._draw()

    def _draw(self) -> None:
        n = len(self.names)
        self.bars.setOpts(x=np.arange(n), height=self.current, width=0.6)
        top = max(float(self.target.max(initial=0)), float(self.current.max(initial=0)))
        top = top if top > 0 else 1.0  # nothing to show: a plain 0..1 axis, not 1e-9
        self.plot.setYRange(0, top * 1.28, padding=0)  # room for the value labels
        for i, t in enumerate(self._texts):
            t.setText(f"{self.current[i]:.2f}" if self.target.any() else "")
            t.setPos(i, self.current[i] + top * 0.12)
