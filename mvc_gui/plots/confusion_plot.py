"""Confusion matrix of true classes (or any categorical metadata column) against clusters,
clusters ordered by best match; before a run it says in words what it will show."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPen
from PySide6.QtWidgets import QComboBox

from mvc_gui.model.aggregations import confusion
from mvc_gui.model.colouring import categorical
from mvc_gui.plots.base import PlotBox, selection_mode
from mvc_gui.plots.heatmap_plot import strip_image

__all__ = ["ConfusionPlot"]

MAX_TEXT_CELLS = 400


def thinned(names: list[str], extent: float, cell_px: float) -> list[tuple[float, str]]:
    """Ticks at the cells' centres, a name on every s-th: s the fewest cells that hold one
    name of ``extent`` pixels (each cell ``cell_px`` wide), the others left unnamed."""
    step = max(1, int(np.ceil(extent / cell_px))) if cell_px > 0 else 1
    return [(i + 0.5, nm if i % step == 0 else "") for i, nm in enumerate(names)]


def _short(count: int) -> str:
    return f"{count / 1000:.1f}k" if count >= 10_000 else str(count)


class CountsItem(pg.GraphicsObject):
    """All cell counts of the matrix in one item: one paint call draws every number.

    100 separate TextItems cost ~60 ms to create and lay out on the event loop, and every
    one of them is repainted (and re-mapped to device coordinates) in each paint cycle.
    Here the texts are plain strings, drawn in device pixels (so they keep their size
    under the view's scaling) and centred on their cells.
    """

    def __init__(self, font: QFont) -> None:
        super().__init__()
        self._font = font
        self._metrics = QFontMetricsF(font)
        self._cells: list[tuple[float, float, str, bool]] = []  # x, y, text, light
        self._bounds = QRectF()
        self._pens = (QPen(QColor("#2b3440")), QPen(QColor("#ffffff")))

    def set_cells(self, counts: np.ndarray, norm: np.ndarray) -> None:
        rows, cols = counts.shape
        cells = []
        if rows * cols <= MAX_TEXT_CELLS:
            for i, j in zip(*(a.tolist() for a in np.nonzero(counts)), strict=True):
                light = bool(norm[i, j] > 0.55)
                cells.append((j + 0.5, i + 0.5, _short(int(counts[i, j])), light))
        if cells == self._cells:
            return
        self.prepareGeometryChange()
        self._cells = cells
        self._bounds = QRectF(0, 0, cols, rows) if cells else QRectF()
        self.update()

    def clear(self) -> None:
        self.set_cells(np.zeros((0, 0)), np.zeros((0, 0)))

    def texts(self) -> list[str]:
        return [c[2] for c in self._cells]

    def fitting(self, cell_px: float) -> list[tuple[float, float, str, bool]]:
        """Every cell, if each number fits inside a cell ``cell_px`` device pixels wide, else
        none: a wider one would run into its neighbours' numbers (many clusters at large n),
        and showing only those that fit would show the small counts alone, read as the
        matrix. The colours still show the shares."""
        width = self._metrics.horizontalAdvance
        return self._cells if all(width(c[2]) <= cell_px - 2 for c in self._cells) else []

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter, option, widget=None) -> None:
        if not self._cells:
            return
        t = painter.transform()
        painter.resetTransform()
        painter.setFont(self._font)
        fm = self._metrics
        h = fm.ascent() - fm.descent()
        cells = self.fitting(abs(t.map(QPointF(1, 0)).x() - t.map(QPointF(0, 0)).x()))
        for light in (False, True):
            painter.setPen(self._pens[light])
            for x, y, text, lt in cells:
                if lt is light:
                    p = t.map(QPointF(x, y))
                    painter.drawText(
                        QPointF(p.x() - fm.horizontalAdvance(text) / 2, p.y() + h / 2), text
                    )
        painter.setTransform(t)


class ConfusionPlot(PlotBox):
    """Counts of each row category (reference labels, or any categorical metadata column) in
    each cluster, rows normalised, clusters ordered by the best match."""

    cluster_clicked = Signal(int)  # the colour strip above a column: the whole cluster
    cell_clicked = Signal(int, int, str)  # row category, cluster, selection mode

    def __init__(self, parent=None) -> None:
        view = pg.PlotWidget()
        super().__init__("Confusion (true class x cluster)", view, parent)
        self.plot = view.getPlotItem()
        self.plot.invertY(True)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.setLabel("bottom", "cluster")
        self.plot.setLabel("left", "true class")
        self.image = pg.ImageItem()
        self.image.setColorMap(pg.colormap.get("CET-L12"))  # light blues
        self.plot.addItem(self.image)
        self.strip = pg.ImageItem()
        self.plot.addItem(self.strip)
        self.highlight = pg.QtWidgets.QGraphicsRectItem()
        self.highlight.setPen(pg.mkPen("#d62728", width=2))
        self.highlight.hide()
        self.plot.addItem(self.highlight)
        self._font = QFont()
        self._font.setPointSizeF(7.5)
        self.counts = CountsItem(self._font)
        self.plot.addItem(self.counts)
        self.empty = pg.TextItem("", color="#6b7686", anchor=(0.5, 0.5))
        self.plot.addItem(self.empty, ignoreBounds=True)
        self.rows_box = QComboBox()
        self.rows_box.setToolTip(
            "What the rows are: the reference labels, or any categorical metadata column"
        )
        self.rows_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.rows_box.setMinimumContentsLength(8)
        self.rows_box.currentIndexChanged.connect(self._on_rows_changed)
        self.add_control(self.rows_box)
        # shown when the data offers a choice of rows (set_data): an empty combo beside the
        # long title made the panel 380 px wide at start, and the window, once grown to fit
        # it, never came back to the size asked for
        self.rows_box.setVisible(False)
        self.order = np.zeros(0, dtype=np.int64)
        self.table = np.zeros((0, 0), dtype=np.int64)  # the counts on display, columns in order
        view.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.class_names: list[str] = []
        #: row source name -> (codes, category names); "" is the reference labels
        self.row_sources: dict[str, tuple[np.ndarray, list[str]]] = {}
        self._key: tuple | None = None  # (row source, labels, k) on display
        self._last: tuple[np.ndarray, int] | None = None  # the clusters on display, and k
        view.scene().sigMouseClicked.connect(self._on_mouse_clicked)
        self._tick_names: tuple[list[str], list[str]] = ([], [])
        self.plot.getViewBox().sigResized.connect(self._update_ticks)
        self.setToolTip(
            "Click a cell to select the samples of that row in that cluster, the colour strip "
            "above a column to select the whole cluster (Shift adds, Ctrl subtracts)"
        )

    # -- what the rows are --------------------------------------------------------------------
    def set_data(self, ds) -> None:
        """The row sources the data offers: its reference labels and categorical columns."""
        sources: dict[str, tuple[np.ndarray, list[str]]] = {}
        if ds.labels is not None:
            sources[""] = (ds.labels, list(ds.class_names))
        for key, kind in ds.metadata_columns().items():
            if kind == "categorical":
                col = categorical(ds.metadata_column(key), key)
                codes, names = col.codes, list(col.names)
                if col.n_missing:  # samples without a value get a row of their own
                    codes = np.where(codes < 0, len(names), codes)
                    names.append("(no value)")
                sources[key] = (codes, names)
        before = self.rows_box.currentData()
        self.row_sources = sources
        self.rows_box.blockSignals(True)
        self.rows_box.clear()
        for key in sources:
            self.rows_box.addItem("rows: reference labels" if key == "" else f"rows: {key}", key)
        self.rows_box.setCurrentIndex(max(0, self.rows_box.findData(before)))
        self.rows_box.setVisible(len(sources) > 1)
        self.rows_box.blockSignals(False)
        self._show_rows_source()

    @property
    def has_rows(self) -> bool:
        return bool(self.row_sources)

    @property
    def rows_name(self) -> str:
        key = self.rows_box.currentData()
        return "true class" if not key else str(key)

    def _show_rows_source(self) -> None:
        key = self.rows_box.currentData()
        self.class_names = self.row_sources[key][1] if key in self.row_sources else []
        # with a choice of rows the combo names them: a short title keeps the panel narrow
        short = self.rows_box.count() > 1
        self.title.setText("Confusion" if short else f"Confusion ({self.rows_name} x cluster)")
        self.plot.setLabel("left", self.rows_name)

    def _on_rows_changed(self) -> None:
        self._show_rows_source()
        self._key = None
        if self._last is not None:
            self.set_labels(None, *self._last)
        else:
            self.reset(self.class_names)

    # -- drawing ------------------------------------------------------------------------------
    def reset(self, class_names: list[str]) -> None:
        if not self.row_sources:
            self.class_names = list(class_names)
        self._key = None
        self._last = None
        self.image.clear()
        self.strip.clear()
        self.highlight.hide()
        self.counts.clear()
        self.table = np.zeros((0, 0), dtype=np.int64)
        # in words, not an empty axis scaled by pyqtgraph's defaults
        self._tick_names = ([], [])
        self.plot.getAxis("bottom").setTicks([[]])
        self.plot.getAxis("left").setTicks([[]])
        self.plot.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
        self.empty.setText(f"Filled after a run:\n{self.rows_name} x cluster counts")
        self.empty.setPos(0.5, 0.5)
        self.empty.show()

    def set_labels(
        self,
        true_labels: np.ndarray | None,
        labels: np.ndarray,
        n_clusters: int,
        table: np.ndarray | None = None,
    ) -> None:
        """Show ``labels`` against the chosen rows (``true_labels``: the reference labels,
        used when the rows are the reference labels and the data offers no other source).
        ``table``: the reference labels x clusters counts, made by the run's worker."""
        self._last = (labels, n_clusters)
        key = self.rows_box.currentData()
        if key in self.row_sources:
            rows_of = self.row_sources[key][0]
        elif true_labels is not None:
            rows_of = true_labels
        else:
            return
        if rows_of.shape[0] != labels.shape[0]:
            return
        # the same labels object again (a redraw): nothing to do; the key holds the array,
        # so its id cannot be reused by another one while it is compared
        ident = (key, labels, n_clusters)
        if self._key is not None and self._key[0] == key and self._key[1] is labels:
            if self._key[2] == n_clusters:
                return
        self._key = ident
        self.empty.hide()
        if rows_of is not true_labels:
            table = None  # counted against the reference labels, but other rows are shown
        counts, order = confusion(rows_of, labels, len(self.class_names), n_clusters, table)
        self.order = order
        counts = counts[:, order]
        self.table = counts
        norm = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
        rows, cols = counts.shape
        self.image.setImage(norm.astype(np.float32), levels=(0, 1), autoLevels=False)
        self.image.setRect(QRectF(0, 0, cols, rows))
        self.strip.setImage(strip_image(order, cols, False), autoLevels=False, levels=(0, 255))
        self.strip.setRect(QRectF(0, -0.35, cols, 0.25))
        self._tick_names = ([str(c) for c in order], list(self.class_names[:rows]))
        self._update_ticks()
        self.plot.setRange(xRange=(0, cols), yRange=(-0.4, rows), padding=0.02)
        self.counts.set_cells(counts, norm)

    def _update_ticks(self, *_args) -> None:
        """Every column's cluster and every row's name where they fit; with many of them in a
        small panel (27 classes), every s-th, so that none runs into the next."""
        cols, rows = self._tick_names
        box = self.plot.getViewBox()
        fm = QFontMetricsF(self.plot.getAxis("bottom").style.get("tickFont") or QFont())
        x_px = box.width() / max(len(cols), 1)
        y_px = box.height() / max(len(rows) + 0.4, 1)
        widest = max((fm.horizontalAdvance(c) for c in cols), default=0.0)
        self.plot.getAxis("bottom").setTicks([thinned(cols, widest + 4, x_px)])
        self.plot.getAxis("left").setTicks([thinned(rows, fm.height(), y_px)])

    def set_highlight(self, cluster: int | None) -> None:
        hits = np.flatnonzero(self.order == cluster) if cluster is not None else []
        if len(hits) == 0 or self._key is None:
            self.highlight.hide()
            return
        rows = len(self.class_names)
        self.highlight.setRect(QRectF(float(hits[0]), 0, 1, rows))
        self.highlight.show()

    def rows_codes(self) -> np.ndarray | None:
        """The row category of every sample (the rows on display), or None."""
        key = self.rows_box.currentData()
        return self.row_sources[key][0] if key in self.row_sources else None

    def cell_members(self, row: int, cluster: int) -> np.ndarray:
        """The samples of row category ``row`` in ``cluster`` (the labels on display)."""
        rows = self.rows_codes()
        if rows is None or self._last is None or rows.shape[0] != self._last[0].shape[0]:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero((rows == row) & (self._last[0] == cluster))

    def cell_text(self, row: int, col: int) -> str:
        """What a cell holds, in words (its tooltip: the numbers are not drawn when one of
        them does not fit its cell)."""
        n = int(self.table[row, col])
        total = int(self.table[row].sum())
        share = f" ({100 * n / total:.0f} % of them)" if total else ""
        return (
            f"{self.rows_name} {self.class_names[row]}: {total} samples\n"
            f"in cluster {int(self.order[col])}: {n}{share}"
        )

    def _on_mouse_moved(self, pos: QPointF) -> None:
        if self.table.size:
            self.cell_tip(self.plot, pos, self.table.shape, self.cell_text)

    def _on_mouse_clicked(self, event) -> None:
        if self._key is None:
            return
        p = self.plot.getViewBox().mapSceneToView(event.scenePos())
        j, i = int(np.floor(p.x())), int(np.floor(p.y()))
        if not (0 <= j < self.order.size and -0.4 <= p.y() <= len(self.class_names)):
            return
        if p.y() < 0 or self.rows_codes() is None:  # the strip: the whole cluster
            self.cluster_clicked.emit(int(self.order[j]))
        else:
            mode = selection_mode(event.modifiers())
            self.cell_clicked.emit(i, int(self.order[j]), mode)
