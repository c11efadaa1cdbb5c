"""Embedding: the t-SNE layout coloured by cluster (or true label), hover, selection tools.

Points are drawn by :class:`FastScatter` from one small style code per point
(:func:`~mvc_gui.plots.embedding_parts.point_styles`), so a new frame only moves the points and
a re-colouring is a few O(n) numpy passes, also at a million points. The tool buttons choose
what a drag does: pan (the pointer; Shift+drag still draws a rectangle), a rectangle or a
free-hand lasso; the samples inside (:mod:`mvc_gui.model.regions`) replace the selection, or
with Shift are added to it, with Ctrl taken out of it. Clicking a point picks its cluster,
clicking a legend entry its category. The selection is drawn on top, the rest dimmed.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, QSize, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QHBoxLayout,
    QToolButton,
    QToolTip,
    QWidget,
)

from core.data.dataset import MultiViewDataset
from core.records.profiles_table import feature_names_of
from mvc_gui.model.colouring import (
    Colouring,
    categorical,
    continuous,
    disagreement,
    feature_column,
    from_labels,
    groups,
)
from mvc_gui.model.palette import NOISE_COLOR
from mvc_gui.model.regions import points_in_polygon
from mvc_gui.plots.base import REPLACE, PlotBox
from mvc_gui.plots.colour_chooser import CLUSTERS, DISAGREE, FEATURE, META, TRUTH, ColourChooser
from mvc_gui.plots.colour_legend import ColourLegend
from mvc_gui.plots.embedding_parts import (
    LASSO,
    POINTER,
    RECTANGLE,
    HoverIndex,
    SelectViewBox,
    layout_chooser,
    point_styles,
    ramp,
)
from mvc_gui.plots.fast_scatter import FastScatter
from mvc_gui.plots.figure import Legend
from mvc_gui.resources import icon
from mvc_gui.run.slots import weak_slot
from mvc_gui.run.workers import TaskWorker

__all__ = ["GROUPS", "EmbeddingPlot", "ramp"]

GROUPS = "groups"  # the colour source of the named groups (offered by this plot)
#: from this many points a drawn region's samples are found in a thread (~200 ms at 1M)
REGION_IN_THREAD = 200_000
#: (tool, tip) of the tool buttons
TOOL_TIPS = (
    (POINTER, "Pointer: drag to pan, wheel to zoom, click a point to select its cluster "
     "(Shift+drag: a rectangle)"),
    (RECTANGLE, "Rectangle: drag to select the samples inside; Shift adds, Ctrl subtracts"),
    (LASSO, "Lasso: draw around samples to select them; Shift adds, Ctrl subtracts"),
)  # fmt: skip


def _inside(xy: np.ndarray, polygon: np.ndarray, shown: np.ndarray | None) -> np.ndarray:
    """The indices of the drawn points inside ``polygon`` (any thread)."""
    inside = points_in_polygon(xy, polygon)
    if shown is not None and shown.shape == inside.shape:
        inside &= shown  # samples left out of a view's own layout cannot be picked
    return np.flatnonzero(inside)


class EmbeddingPlot(PlotBox):
    rect_selected = Signal(object)  # indices inside a rectangle given as a QRectF (vb)
    region_selected = Signal(object, str, str)  # indices, mode, what was picked (in words)
    point_clicked = Signal(int, str)  # the sample clicked (-1: none near), mode
    layout_source_changed = Signal()  # the layout of another view (or of all) is wanted
    layout_method_changed = Signal(str)  # "tsne" or "umap"

    def __init__(self, parent=None) -> None:
        self.vb = SelectViewBox()
        view = pg.PlotWidget(viewBox=self.vb)
        super().__init__("Embedding (t-SNE)", view, parent)
        self.plot = view.getPlotItem()
        self.plot.hideAxis("left")
        self.plot.hideAxis("bottom")
        self.plot.setAspectLocked(True)
        self.chooser = ColourChooser()
        self.colour_by = self.chooser.colour_by
        self.chooser.changed.connect(self._recolour)
        self.tool_group = QButtonGroup(self)
        self.tool_buttons: dict[str, QToolButton] = {}
        for tool, tip in TOOL_TIPS:
            button = QToolButton()
            button.setIcon(icon(tool))
            button.setIconSize(QSize(16, 16))
            button.setCheckable(True)
            button.setAutoRaise(True)
            button.setToolTip(tip)
            button.setObjectName(f"{tool}Tool")
            button.setChecked(tool == POINTER)
            self.tool_group.addButton(button)
            button.toggled.connect(lambda on, t=tool: on and self.set_tool(t))
            self.tool_buttons[tool] = button
        self.layout_box = QComboBox()
        self.layout_box.setToolTip(
            "Layout: from all included views, or from one view alone (how does "
            "that view see the data?); each layout is kept, so switching back is instant"
        )
        self.layout_box.addItem("all views", None)
        self.layout_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.layout_box.setMinimumContentsLength(8)
        self.layout_box.currentIndexChanged.connect(self._on_layout_source)
        self.add_control(self.layout_box)
        self.layout_method = layout_chooser()
        self.layout_method.currentIndexChanged.connect(self._on_layout_method)
        # second row: the selection tools, colour by ... and the layout method (the title row
        # must fit 1280 px)
        row = QWidget()
        row_layout = QHBoxLayout(row)
        row_layout.setContentsMargins(0, 0, 0, 0)
        row_layout.setSpacing(2)
        for button in self.tool_buttons.values():  # the selection tools, left of the colours
            row_layout.addWidget(button)
        row_layout.addWidget(self.chooser, 1)
        row_layout.addWidget(self.layout_method)
        self.layout().insertWidget(1, row)
        self.legend = ColourLegend()
        self.layout().addWidget(self.legend)
        self.message = pg.TextItem("", color="#6b7686", anchor=(0.5, 0.5))
        self.plot.addItem(self.message, ignoreBounds=True)
        self.vb.rect_selected.connect(self._on_rect_selected)
        self.vb.region_drawn.connect(self._on_region_drawn)
        self.vb.clicked.connect(self._on_clicked)
        self.legend.entry_clicked.connect(self._on_legend_clicked)
        view.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.xy: np.ndarray | None = None
        self.labels: np.ndarray | None = None
        self.true_labels: np.ndarray | None = None
        self.class_names: list[str] = []
        self.dataset: MultiViewDataset | None = None
        #: (title, labels) of the runs the disagreement can be computed with (Runs dock)
        self.runs: list[tuple[str, np.ndarray]] = []
        #: what the points are coloured by now (None: clusters or nothing)
        self.colouring: Colouring | None = None
        self._data_colourings: dict[tuple, tuple[Colouring | None, str]] = {}
        #: the samples' ids shown on hover (set by the presenter; None: 1..n)
        self.sample_ids: np.ndarray | None = None
        self.selected: np.ndarray | None = None
        self._label_counts: np.ndarray | None = None  # bincount of ``labels``, if known
        self.scatter = FastScatter()
        self.plot.addItem(self.scatter)
        #: per point 1 + its index in ``_styles`` (0: not drawn), see ``point_styles``
        self._codes = np.zeros(0, dtype=np.uint16)
        self._styles: list[tuple[tuple[int, int, int, int], float]] = []
        self._tree: HoverIndex | None = None
        #: the named groups as a colouring source: group per sample (-1: none), names, colours
        self.group_labels: np.ndarray | None = None
        self.group_names: list[str] = []
        self.group_colours: list[str | None] = []
        #: drawn regions waiting for their samples: (xy, polygon, shown, mode, shape)
        self._regions: list[tuple] = []

    def set_tool(self, tool: str) -> None:
        """What a left drag does: "pointer" (pan), "rectangle" or "lasso"."""
        self.vb.set_tool(tool)
        button = self.tool_buttons[tool]
        if not button.isChecked():
            button.setChecked(True)

    @property
    def tool(self) -> str:
        return self.vb.tool

    def _on_layout_method(self, _index: int) -> None:
        self.title.setText(f"Embedding ({self.layout_method.currentText()})")
        self.layout_method_changed.emit(self.layout_method.currentData())

    # -- data -------------------------------------------------------------------------------
    def reset(self, true_labels: np.ndarray | None, class_names: list[str], note: str) -> None:
        self.xy, self.labels, self._tree, self.selected = None, None, None, None
        self.true_labels = true_labels
        self._data_colourings = {}
        self.class_names = class_names
        self._set_styles(np.zeros(0, dtype=np.uint16), [])
        self.legend.show_colouring(None)
        self.show_message(note)

    def set_data(self, ds: MultiViewDataset) -> None:
        """The data's colour sources (metadata, features) and views (layout sources); keeps
        the colour and layout choices when the new data offers them (e.g. other labels)."""
        self.dataset = ds
        self._data_colourings = {}
        names = [feature_names_of(ds, v, d) for v, d in enumerate(ds.dims)]
        self.chooser.set_data(
            self.true_labels is not None, ds.metadata_columns(), list(ds.view_names), names
        )
        self._offer_groups()
        box = self.layout_box
        keep = box.currentIndex() if box.count() == ds.n_views + 1 else 0
        if [box.itemText(i) for i in range(1, box.count())] != [
            f"{name} alone" for name in ds.view_names
        ]:
            keep = 0
        box.blockSignals(True)
        box.clear()
        box.addItem("all views", None)
        for v, name in enumerate(ds.view_names):
            box.addItem(f"{name} alone", v)
        box.setCurrentIndex(keep)
        box.setVisible(ds.n_views > 1)
        box.blockSignals(False)

    def _offer_groups(self) -> None:
        """ "colour: groups" among the sources, before the feature value and disagreement."""
        combo = self.chooser.colour_by
        if combo.findData(GROUPS) >= 0:
            return
        at = next((i for i in range(combo.count()) if combo.itemData(i) in ("feature",
                   "disagree")), combo.count())  # fmt: skip
        combo.blockSignals(True)
        combo.insertItem(at, "colour: groups", GROUPS)
        combo.blockSignals(False)

    def set_groups(
        self, labels: np.ndarray | None, names: list[str], colours: list[str | None]
    ) -> None:
        """The named groups (group per sample, -1: none): a colour source."""
        self.group_labels = labels
        self.group_names, self.group_colours = list(names), list(colours)
        if self.chooser.source == GROUPS:
            self._recolour()

    def set_runs(self, runs: list[tuple[str, np.ndarray]]) -> None:
        """Runs (title, labels) of this data another run can be compared with."""
        self.runs = list(runs)
        self.chooser.set_runs([title for title, _ in self.runs])

    @property
    def layout_view(self) -> int | None:
        """The view the layout is computed from (None: all included views)."""
        return self.layout_box.currentData()

    def description(self) -> str:
        """What the plot shows, in words: "<method> layout of <views>, coloured by <source>"."""
        c = self.colouring
        how = "clusters" if c is None else c.title
        if c is not None and c.emphasis is not None:
            how = f"the disagreement with {c.title}"
        what = self.layout_box.currentText()
        return f"{self.layout_method.currentText()} layout of {what}, coloured by {how}"

    def _on_layout_source(self) -> None:
        self.xy, self._tree = None, None
        self._set_styles(np.zeros(0, dtype=np.uint16), [])
        what = self.layout_box.currentText()
        self.show_message(f"Computing the layout of {what}...")
        self.layout_source_changed.emit()

    def show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))
        if text:
            r = self.vb.viewRect()
            self.message.setPos(r.center())

    def set_layout(self, xy: np.ndarray, final: bool = False) -> None:
        first = self.xy is None
        xy = np.asarray(xy)
        # a layout frame of the child comes as float32: kept so (a float64 copy of a million
        # points took the GUI thread ~30 ms a frame); the rasteriser reads either
        self.xy = xy if xy.dtype in (np.float32, np.float64) else xy.astype(float)
        self._tree = None
        if first:
            self._recolour()
            self.show_message("")
        else:
            self._move()
        if first or final:
            self.vb.enableAutoRange()

    def set_labels(self, labels: np.ndarray | None, counts: np.ndarray | None = None) -> None:
        """Colour by these cluster labels (``counts``: their bincount, if known)."""
        if labels is self.labels or (
            labels is not None and self.labels is not None and np.array_equal(labels, self.labels)
        ):
            return
        self.labels = labels
        self._label_counts = counts
        if self.chooser.source in (CLUSTERS, DISAGREE):
            self._recolour()

    def set_selection(self, mask: np.ndarray | None) -> None:
        self.selected = mask
        self._recolour()

    # -- drawing ----------------------------------------------------------------------------
    def _colouring(self) -> tuple[Colouring | None, str]:
        """What to colour by now, or None and why not (the clusters need no legend). What
        depends on the data only is kept: a selection or a new run frame does not redo it."""
        choice = self.chooser.choice()
        if choice[0] in (TRUTH, META, FEATURE):
            if choice not in self._data_colourings:
                self._data_colourings = {choice: self._data_colouring(choice)}
            return self._data_colourings[choice]
        if choice[0] == GROUPS:
            labels = self.group_labels
            n = 0 if self.xy is None else self.xy.shape[0]
            if labels is None or not self.group_names or (n and labels.shape[0] != n):
                return None, "Name a group in the Selection dock to colour by the groups."
            return groups(labels, self.group_names, self.group_colours), ""
        if choice[0] == DISAGREE:
            if not self.runs:
                return None, "Finished runs of this data appear in the Runs dock to compare with."
            if self.labels is None:
                return None, "Run or show a run first: it is compared with the chosen run."
            title, other = self.runs[max(choice[1], 0)]
            try:
                return disagreement(self.labels, other, title), ""
            except ValueError as exc:
                return None, str(exc)
        return None, ""

    def _data_colouring(self, choice: tuple) -> tuple[Colouring | None, str]:
        kind, ds = choice[0], self.dataset
        if kind == TRUTH and self.true_labels is not None:
            return from_labels(self.true_labels, self.class_names, "reference labels"), ""
        if kind == META and ds is not None and choice[1] in ds.metadata:
            key = choice[1]
            values = ds.metadata_column(key)
            if ds.metadata_columns()[key] == "numeric":
                return continuous(values, key, ramp()), ""
            return categorical(values, key), ""
        if kind == FEATURE and ds is not None and 0 <= choice[1] < ds.n_views:
            v, j = choice[1], choice[2]
            title = f"{ds.view_names[v]}: {self.chooser.feature_name(v, j)}"
            return continuous(feature_column(ds.views[v], j), title, ramp()), ""
        return None, ""

    def _recolour(self) -> None:
        colouring, why = self._colouring()
        self.colouring = colouring
        self.legend.show_colouring(colouring)
        shown = self._shown()
        if shown is not None and not why:
            view = self.dataset.view_names[self.layout_view]
            why = f"{int((~shown).sum()):,} samples without the view {view} are not shown."
        self.set_note(why)
        if self.xy is None:
            return
        n = self.xy.shape[0]
        if colouring is None and self.chooser.source == CLUSTERS and self.labels is not None:
            colouring = from_labels(self.labels, [], "cluster", self._label_counts)
        size = 6 if n < 3000 else 4 if n < 30000 else 3
        self._set_styles(*point_styles(colouring, n, size, self.selected, shown))

    def _shown(self) -> np.ndarray | None:
        """In a single view's layout of incomplete data, the samples that view has (the others
        would sit in one clump at the view's mean); None: all samples are shown."""
        v, ds = self.layout_view, self.dataset
        if v is None or ds is None or ds.observed is None or ds.observed[:, v].all():
            return None
        return ds.observed[:, v]

    def figure_legend(self) -> Legend | None:
        """What the colours mean, for a figure: the clusters with their sizes, the categories
        of the colouring, or its colour ramp between the lowest and highest value."""
        c = self.colouring
        if c is None and self.labels is not None and self.chooser.source == CLUSTERS:
            c = from_labels(self.labels, [], "cluster", self._label_counts)
            names = [f"cluster {name}" for name in c.names]
            return Legend("clusters", list(zip(c.colours, names, strict=True)))
        if c is None:
            return None
        if c.kind == "continuous":
            return Legend(c.title, ramp=c.colours, lo=f"{c.lo:.4g}", hi=f"{c.hi:.4g}",
                          note=c.summary)  # fmt: skip
        entries = [
            (rgb, f"{name} ({count:,})")
            for rgb, name, count in zip(c.colours, c.names, c.counts, strict=False)
        ]
        if c.n_missing:
            entries.append((NOISE_COLOR, f"no value ({c.n_missing:,})"))
        return Legend(c.title, entries, note=c.summary)

    def drawn_colours(self) -> tuple[np.ndarray, np.ndarray]:
        """``(n, 4)`` RGBA each sample is drawn in now, and ``(n,)`` sizes (what the user sees;
        zeros for samples not drawn)."""
        n = 0 if self.xy is None else self.xy.shape[0]
        if self._codes.shape[0] != n:
            return np.zeros((n, 4), dtype=np.int64), np.zeros(n)
        rgba = np.array([(0, 0, 0, 0)] + [c for c, _ in self._styles], dtype=np.int64)
        size = np.array([0.0] + [float(px) for _, px in self._styles])
        return rgba[self._codes], size[self._codes]

    def _set_styles(self, codes: np.ndarray, styles: list) -> None:
        self._codes, self._styles = codes, styles
        self._move()

    def _move(self) -> None:
        if self.xy is not None:
            self.scatter.set_points(self.xy, self._codes, self._styles)

    # -- interaction ------------------------------------------------------------------------
    def _on_rect_selected(self, rect: QRectF) -> None:
        if self.xy is None:
            return
        x, y = self.xy[:, 0], self.xy[:, 1]
        inside = (x >= rect.left()) & (x <= rect.right()) & (y >= rect.top()) & (y <= rect.bottom())
        picked = self._pickable(inside)
        self.rect_selected.emit(picked)
        self.region_selected.emit(picked, REPLACE, "rectangle")

    def _pickable(self, inside: np.ndarray) -> np.ndarray:
        """The indices of ``inside`` that are drawn (samples left out of a view's own layout
        cannot be picked)."""
        shown = self._shown()
        if shown is not None and shown.shape == inside.shape:
            inside &= shown
        return np.flatnonzero(inside)

    def _on_region_drawn(self, polygon: np.ndarray, mode: str, shape: str) -> None:
        self.select_polygon(polygon, mode, shape)

    def select_polygon(
        self, polygon: np.ndarray, mode: str = REPLACE, shape: str = LASSO
    ) -> np.ndarray | None:
        """Select the drawn samples inside ``polygon`` (data coordinates) as the lasso does
        and return them; from :data:`REGION_IN_THREAD` points on they are found in a thread
        (None is returned; ``region_selected`` follows, picks in the order they were made)."""
        if self.xy is None:
            return np.zeros(0, dtype=np.int64)
        poly = np.asarray(polygon, dtype=float)
        if self.xy.shape[0] < REGION_IN_THREAD:
            picked = _inside(self.xy, poly, self._shown())
            self.region_selected.emit(picked, mode, shape)
            return picked
        self._regions.append((self.xy, poly, self._shown(), mode, shape))
        if len(self._regions) == 1:
            self._next_region()
        return None

    def _next_region(self) -> None:
        """Find the oldest pending pick's samples in a thread (one at a time, so a Shift pick
        made right after a first one is combined after it)."""
        xy, poly, shown, _mode, _shape = self._regions[0]
        worker = TaskWorker(_inside, xy, poly, shown, parent=self)
        worker.done.connect(weak_slot(self, lambda plot, picked: plot._region_found(picked)))
        worker.failed.connect(weak_slot(self, lambda plot, _m, _d: plot._region_found(None)))
        worker.start()

    def _region_found(self, picked: np.ndarray | None) -> None:
        xy, _poly, _shown, mode, shape = self._regions.pop(0)
        if picked is not None and self.xy is not None and xy.shape == self.xy.shape:
            self.region_selected.emit(picked, mode, shape)  # (not for a layout of other data)
        if self._regions:
            self._next_region()

    def nearest_point(self, x: float, y: float, radius_px: float = 6.0) -> int | None:
        """The drawn sample nearest to data point (x, y) within ``radius_px`` screen pixels."""
        if self.xy is None:
            return None
        if self._tree is None:
            self._tree = HoverIndex(self.xy)
        found = self._tree.nearest(x, y)
        if found is None:  # a large layout's index is still being built
            return None
        dist, i = found
        px = self.vb.viewPixelSize()
        shown = self._shown()
        if dist > radius_px * max(px[0], px[1]) or (shown is not None and not shown[i]):
            return None
        return int(i)

    def _on_clicked(self, x: float, y: float, mode: str) -> None:
        i = self.nearest_point(x, y)
        self.point_clicked.emit(-1 if i is None else i, mode)

    def _on_legend_clicked(self, category: int, mode: str) -> None:
        c = self.colouring
        if c is None or self.xy is None or c.codes.shape[0] != self.xy.shape[0]:
            return
        name = c.names[category] if 0 <= category < len(c.names) else "no value"
        picked = self._pickable(c.codes == category)
        self.region_selected.emit(picked, mode, f"{c.title}: {name}")

    def sample_name(self, i: int) -> str:
        """Sample ``i``'s id (1-based row number when the data has no ids)."""
        ids = self.sample_ids
        return str(ids[i]) if ids is not None and i < len(ids) else str(i + 1)

    def hover_text(self, i: int) -> str:
        """Sample ``i``'s id, cluster, reference label and the value it is coloured by."""
        text = f"sample {self.sample_name(i)}"
        if self.labels is not None and i < self.labels.size:
            text += f"\ncluster {self.labels[i]}"
        if self.true_labels is not None:
            t = int(self.true_labels[i])
            name = self.class_names[t] if t < len(self.class_names) else str(t)
            ds = self.dataset
            column = ds.meta.get("label_variable") if ds is not None else None
            what = f"{column}:" if column in getattr(ds, "metadata", {}) else "true label"
            text += f"\n{what} {name}"
        if self.colouring is not None and i < self.colouring.codes.size:
            text += "\n" + self.colouring.value_text(i)
        return text

    def _on_mouse_moved(self, pos: QPointF) -> None:
        if self.xy is None or not self.vb.sceneBoundingRect().contains(pos):
            return
        p = self.vb.mapSceneToView(pos)
        i = self.nearest_point(p.x(), p.y())
        if i is None:
            QToolTip.hideText()
            return
        text = self.hover_text(i)
        view = self.view
        QToolTip.showText(view.mapToGlobal(view.mapFromScene(pos)), text, view)
