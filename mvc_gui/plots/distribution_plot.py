"""Values by group: a box (quartiles, median, whiskers at 1.5 IQR) and the points themselves
(jittered, at most ``MAX_POINTS`` per group drawn) for each group, side by side. Used for one
feature by group A/B (the comparison) and one numeric metadata column by cluster (the
association table)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg

from mvc_gui.plots.base import PlotBox

__all__ = [
    "MAX_POINTS",
    "ContingencyPlot",
    "DistributionPlot",
    "GroupSummary",
    "box_stats",
    "summarise",
]

MAX_POINTS = 2000  # drawn per group (every value counts in the box)
PALETTE = ("#D55E00", "#0072B2", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442")


def box_stats(values: np.ndarray) -> tuple[float, float, float, float, float] | None:
    """(low whisker, q1, median, q3, high whisker) of the finite values, or None if none."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return None
    q1, med, q3 = np.percentile(v, [25, 50, 75])
    iqr = q3 - q1
    lo = float(v[v >= q1 - 1.5 * iqr].min())
    hi = float(v[v <= q3 + 1.5 * iqr].max())
    return lo, float(q1), float(med), float(q3), hi


@dataclass(frozen=True)
class GroupSummary:
    """What the plot draws of one group: its size, box statistics (None: no finite value),
    the points drawn (at most ``MAX_POINTS``) and their horizontal jitter."""

    n: int
    stats: tuple[float, float, float, float, float] | None
    shown: np.ndarray
    jitter: np.ndarray


def summarise(values: Sequence[np.ndarray]) -> list[GroupSummary]:
    """The summaries of each group's finite values (the same jitter each time: a stable
    picture)."""
    rng = np.random.default_rng(0)
    out = []
    for vals in values:
        v = np.asarray(vals, dtype=float)
        v = v[np.isfinite(v)]
        shown = v if v.size <= MAX_POINTS else rng.choice(v, MAX_POINTS, replace=False)
        out.append(GroupSummary(int(v.size), box_stats(v), shown,
                                rng.uniform(-0.28, 0.28, shown.size)))  # fmt: skip
    return out


class DistributionPlot(PlotBox):
    """Box and strip per group."""

    def __init__(self, title: str = "Distribution by group", parent=None) -> None:
        view = pg.PlotWidget()
        super().__init__(title, view, parent)
        self.default_title = title
        self.plot = view.getPlotItem()
        self.plot.showGrid(y=True, alpha=0.15)
        self.groups: list[str] = []
        self.set_note("Click a row of the table to see its values by group.", instead=True)

    def clear(self, note: str = "") -> None:
        self.plot.clear()
        self.groups = []
        self.title.setText(self.default_title)
        self.set_note(note, instead=bool(note))

    def set_values(
        self, title: str, names: Sequence[str], groups: Sequence[GroupSummary], ylabel: str = ""
    ) -> None:
        """One box and strip per group (``names[i]``: its label with its count), from what
        :func:`summarise` computed (in a worker: quartiles of 100,000 values are not the
        window's work)."""
        self.plot.clear()
        self.groups = list(names)
        self.title.setText(title)
        self.set_note("")
        for i, g in enumerate(groups):
            colour = PALETTE[i % len(PALETTE)]
            light = pg.mkBrush(pg.mkColor(colour).lighter(130))
            self.plot.addItem(
                pg.ScatterPlotItem(x=i + g.jitter, y=g.shown, size=4, pen=None, brush=light)
            )
            if g.stats is None:
                continue
            lo, q1, med, q3, hi = g.stats
            pen = pg.mkPen(colour, width=2)
            box = pg.QtWidgets.QGraphicsRectItem(i - 0.35, q1, 0.7, q3 - q1)
            box.setPen(pen)
            self.plot.addItem(box)
            for xs, ys in (((i - 0.35, i + 0.35), (med, med)), ((i, i), (q3, hi)),
                           ((i, i), (lo, q1))):  # fmt: skip
                self.plot.addItem(pg.PlotDataItem(xs, ys, pen=pen))
        axis = self.plot.getAxis("bottom")
        axis.setTicks([[(i, n) for i, n in enumerate(self.groups)]])
        self.plot.setLabel("left", ylabel)
        self.plot.setXRange(-0.6, len(self.groups) - 0.4, padding=0)
        self.plot.enableAutoRange(axis="y")


class ContingencyPlot(PlotBox):
    """Counts of a categorical column's values (columns) in each cluster (rows), shaded by the
    share of the cluster, with the counts written in the cells."""

    def __init__(self, parent=None) -> None:
        view = pg.PlotWidget()
        super().__init__("Contingency", view, parent)
        self.plot = view.getPlotItem()
        self.plot.invertY(True)
        self.image = pg.ImageItem()
        self.image.setColorMap(pg.colormap.get("CET-L12"))
        self.plot.addItem(self.image)
        self.texts: list[pg.TextItem] = []
        self.counts = np.zeros((0, 0), dtype=np.int64)

    def set_counts(
        self, title: str, clusters: Sequence[int], categories: Sequence[str], counts: np.ndarray
    ) -> None:
        self.counts = np.asarray(counts, dtype=np.int64)
        for t in self.texts:
            self.plot.removeItem(t)
        self.texts = []
        share = self.counts / np.maximum(self.counts.sum(axis=1, keepdims=True), 1)
        self.image.setImage(share, levels=(0.0, 1.0))  # row-major: x categories, y clusters
        if self.counts.size <= 400:  # the numbers stay readable
            for (r, c), v in np.ndenumerate(self.counts):
                colour = "#ffffff" if share[r, c] > 0.55 else "#2b3440"
                t = pg.TextItem(str(int(v)), color=colour, anchor=(0.5, 0.5))
                t.setPos(c + 0.5, r + 0.5)
                self.plot.addItem(t)
                self.texts.append(t)
        self.plot.getAxis("bottom").setTicks([[(i + 0.5, s) for i, s in enumerate(categories)]])
        self.plot.getAxis("left").setTicks(
            [[(i + 0.5, f"cluster {k}") for i, k in enumerate(clusters)]]
        )
        self.title.setText(title)
        self.plot.autoRange()
