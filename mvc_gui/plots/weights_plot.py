"""View weights: one bar per view, animated towards the latest weights, with view names.

A method without view weights gets what it has instead (each view's share of the
reconstruction error, under that title) or a sentence saying why the panel is empty
(``mvc_gui.model.panel_notes``).

The x axis always names the views (issue 24, item 7): in one row when the names fit under
their bars, else in two staggered rows, else shortened with an ellipsis (the full names in
the tooltip); never the numbers 1..n.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFont, QFontMetricsF

from mvc_gui.model.panel_notes import WeightsDisplay
from mvc_gui.plots.base import PlotBox

__all__ = ["WeightsPlot", "tick_labels"]

BAR_COLOR = "#5b7fa6"


def tick_labels(names: list[str], slot: float, metrics: QFontMetricsF) -> list[str]:
    """The names under bars ``slot`` pixels apart: one row if each fits its slot, else two
    staggered rows (odd bars' names on the second line, so each has two slots), shortened
    with an ellipsis where even two slots are too narrow: at the end, or in the middle when
    that left names alike ("view 1", "view 2": "v…1", "v…2"); at least two letters stay.
    Where shortened names are no longer told apart, the views' numbers (1, 2, ...)."""
    gap = metrics.horizontalAdvance("  ")
    if all(metrics.horizontalAdvance(nm) + gap <= slot for nm in names):
        return list(names)
    room = max(2 * slot - gap, 0.0)
    short: list[str] = []
    for mode in (Qt.TextElideMode.ElideRight, Qt.TextElideMode.ElideMiddle):
        short = [_elide(nm, metrics, mode, room) for nm in names]
        if len(set(short)) == len(set(names)):  # still tells the views apart
            break
    if len(set(short)) < len(set(names)):
        # a dozen views in a narrow panel: "view 1" and "view 11" both shorten to "v…1"; the
        # views' numbers tell them apart, and the plot's tooltip names them
        short = [str(i + 1) for i in range(len(names))]
        if all(metrics.horizontalAdvance(s) + gap <= slot for s in short):
            return short
    return [s if i % 2 == 0 else "\n" + s for i, s in enumerate(short)]


def _elide(name: str, metrics: QFontMetricsF, mode: Qt.TextElideMode, room: float) -> str:
    text = metrics.elidedText(name, mode, room)
    if len(text.replace("\u2026", "")) >= 2:
        return text
    if len(name) <= 2:
        return name
    return (
        name[0] + "\u2026" + name[-1]
        if mode == Qt.TextElideMode.ElideMiddle
        else name[:2] + "\u2026"
    )


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
        self.tick_texts: list[str] = []  # the names under the bars, as drawn
        self._slot_px = 1.0  # pixels between two bars
        self._margins: tuple[float, float] | None = None  # x range beyond the first, last bar
        # the names and value labels follow the plot area's width (not the panel's: the
        # area is laid out after the panel's resize)
        self.plot.getViewBox().sigResized.connect(self._on_area_resized)
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
            self._tip()
            self.set_note("")
            self._draw()
            return
        self.names = list(names)
        self.current = np.zeros(n)
        self.target = np.zeros(n)
        self._tip()
        for t in self._texts:
            self.plot.removeItem(t)
        self._texts = []
        for i in range(n):
            t = pg.TextItem("", color="#2b3440", anchor=(0.5, 1.0))
            t.setFont(self._small)
            t.setPos(i, 0)
            self.plot.addItem(t)
            self._texts.append(t)
        self._margins = None
        self._update_ticks()
        self._draw()

    def _slot(self) -> float:
        """Pixels between two bars (as last laid out)."""
        return self._slot_px

    def _update_ticks(self) -> None:
        """View names under the bars (:func:`tick_labels`): six names in a narrow panel ran
        into each other, and numbers in their place said nothing. The x range leaves room for
        half the first and last names beyond their bars (the axis drops a name that sticks
        out of it)."""
        n = len(self.names)
        room = self.plot.getViewBox().width() or self.width()
        fm = QFontMetricsF(self._small)
        lo = hi = 0.6
        labels: list[str] = []
        for _ in range(2):  # the margins change the slot a little: settle in two passes
            self._slot_px = room / max(n - 1 + lo + hi, 1.0)
            labels = tick_labels(self.names, self._slot_px, fm)
            if labels:
                half = [fm.horizontalAdvance(labels[i].strip()) / 2 + 3 for i in (0, -1)]
                lo, hi = (max(0.6, h / self._slot_px) for h in half)
        if labels != self.tick_texts:
            two_rows = any(t.startswith("\n") for t in labels)
            if two_rows != any(t.startswith("\n") for t in self.tick_texts):
                # room for the second row of names (the axis is sized for one line)
                axis = self.plot.getAxis("bottom")
                axis.setHeight(int(2 * fm.lineSpacing() + 12) if two_rows else None)
            self.tick_texts = labels
            self.plot.getAxis("bottom").setTicks([list(enumerate(labels))])
        if (lo, hi) != self._margins:
            self._margins = (lo, hi)
            self.plot.setXRange(-lo, n - 1 + hi, padding=0)

    def _on_area_resized(self, *_args) -> None:
        self._update_ticks()
        self._draw()

    def set_weights(self, weights: np.ndarray | None, animate: bool = True) -> None:
        if weights is None or len(weights) != len(self.names):
            return
        self.target = np.asarray(weights, dtype=float)
        self._tip()
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
        values = display.values
        self.set_note(display.note, instead=values is None)  # no bars: no empty axis
        if values is not None and len(values) != len(self.names):  # names unknown here
            self.set_views([f"view {i + 1}" for i in range(len(values))])
        if values is None:
            self._timer.stop()
            self.current = np.zeros(len(self.names))
            self.target = np.zeros(len(self.names))
            self._tip()
            self._draw()
        else:
            self.set_weights(values, animate)

    def _tip(self) -> None:
        """The views' full names, with their values once there are some."""
        if self.target.any():
            rows = [f"{nm}: {v:.3f}" for nm, v in zip(self.names, self.target, strict=False)]
        else:
            rows = list(self.names)
        self.setToolTip("<br>".join(["<b>Views</b>", *rows]))

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
        # "0.19" wider than a bar's slot: ".19"; even that too wide: no values over the bars
        # (the y axis and the tooltip give them), they ran into each other
        fm = QFontMetricsF(self._small)
        narrow = fm.horizontalAdvance("0.00 ") > self._slot()
        hidden = fm.horizontalAdvance(".00 ") > self._slot()
        for i, t in enumerate(self._texts):
            text = f"{self.current[i]:.2f}" if self.target.any() and not hidden else ""
            t.setText(text.removeprefix("0") if narrow else text)
            t.setPos(i, self.current[i] + top * 0.12)
