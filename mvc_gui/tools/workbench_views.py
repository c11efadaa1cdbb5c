"""The workbench's Views page (how much each view agrees with the result: ARI/NMI, weights,
per-sample agreement, ``core.analysis.view_agreement``) and Why here page (one sample's view
votes and nearest reference points, ``core.analysis.explain_sample``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QPushButton,
    QSplitter,
)

from core.analysis.explain_sample import explain_sample
from core.analysis.view_agreement import view_agreement_steps, write_view_agreement_csv
from mvc_gui.plots.base import PlotBox
from mvc_gui.plots.distribution_plot import PALETTE
from mvc_gui.tools.host import ToolHost
from mvc_gui.tools.workbench_parts import (
    ColumnsModel,
    Page,
    StepsWorker,
    selected_indices,
    table_view,
)

__all__ = ["ViewsPage", "WhyPage"]

# -- Views ---------------------------------------------------------------------------------------
VIEW_COLUMNS = ("view", "ARI", "NMI", "weight")


def _agreement_steps(session: Any, labels: np.ndarray, weights: Sequence[float] | None):
    views, _ = session.prepared()  # the included views, preprocessed as the method saw them
    k = int(np.unique(labels[labels >= 0]).size)
    return (
        yield from view_agreement_steps(views, labels, k, weights=weights,
                                        observed=session.observed,
                                        view_names=session.view_names)
    )  # fmt: skip


class ViewsPage(Page):
    """Per view: ARI/NMI of that view's own clustering with the result, and its weight; and how
    many samples' views agree."""

    def __init__(self, host: ToolHost) -> None:
        super().__init__(host, "View agreement")
        self.start_and_export_bar(
            "Measure",
            "Cluster each view alone and compare with the result (ARI, NMI); per sample, the "
            "share of its views that agree",
        )
        self.model = ColumnsModel(VIEW_COLUMNS, self)
        self.table = table_view(self.model)
        self.bars = PlotBox("Each view against the result", pg.PlotWidget())
        self.bars_plot = self.bars.view.getPlotItem()
        self.bars_plot.addLegend(offset=(-10, 10))
        self.bars_plot.setYRange(0, 1.05, padding=0)
        self.hist = PlotBox("Samples whose views agree", pg.PlotWidget())
        self.hist_plot = self.hist.view.getPlotItem()
        self.hist_plot.setLabel("bottom", "share of the sample's views agreeing with its cluster")
        self.hist_plot.setLabel("left", "samples")
        split = QSplitter(Qt.Orientation.Horizontal)
        for w in (self.table, self.bars, self.hist):
            split.addWidget(w)
        split.setSizes([300, 440, 440])
        self.layout_.addWidget(split, 1)
        self.agreement: Any = None

    def start(self) -> StepsWorker | None:
        got = self.result_and_data()
        if got is None:
            return None
        result, _ds = got
        return self.run(_agreement_steps, self.host.session, np.asarray(result.labels),
                        result.view_weights, done=self._show)  # fmt: skip

    def _show(self, va: Any) -> None:
        self.agreement = va
        n = len(va.view_names)
        weights = np.full(n, np.nan) if va.weights is None else np.asarray(va.weights, float)
        self.model.set_columns([list(va.view_names), np.asarray(va.ari, float),
                                np.asarray(va.nmi, float), weights])  # fmt: skip
        p = self.bars_plot
        p.clear()
        x = np.arange(n)
        series = [("ARI", va.ari, "#0072B2"), ("NMI", va.nmi, "#009E73")]
        if va.weights is not None:
            series.append(("weight", weights, "#E69F00"))
        width = 0.8 / len(series)
        for i, (name, vals, colour) in enumerate(series):
            p.addItem(pg.BarGraphItem(x=x - 0.4 + width * (i + 0.5), height=np.asarray(vals, float),
                                      width=width, brush=colour, name=name))  # fmt: skip
        p.getAxis("bottom").setTicks([[(i, s) for i, s in enumerate(va.view_names)]])
        per = np.asarray(va.per_sample, dtype=float)
        per = per[np.isfinite(per)]
        counts, edges = np.histogram(per, bins=10, range=(0.0, 1.0))
        self.hist_plot.clear()
        self.hist_plot.addItem(pg.BarGraphItem(x0=edges[:-1], x1=edges[1:], height=counts,
                                               brush="#56B4E9"))  # fmt: skip
        full = float(np.mean(per >= 1.0)) if per.size else float("nan")
        self.hist.title.setText(f"Samples whose views agree: all of them for {full:.0%}")
        self.export_button.setEnabled(True)
        best = int(np.nanargmax(va.ari)) if n else 0
        self.status.setText(f"Most in line with the result: {va.view_names[best]} "
                            f"(ARI {va.ari[best]:.3f}).")  # fmt: skip

    def export_csv(self) -> None:
        if self.agreement is not None:
            va = self.agreement
            self.write_csv("Export the view agreement", "view_agreement.csv",
                           lambda path: write_view_agreement_csv(path, va))  # fmt: skip


# -- Why here ------------------------------------------------------------------------------------
def _explain(result: Any, ds: Any, index: int) -> Any:
    # every view as loaded: the run's prediction model picks and preprocesses those it used
    return explain_sample(result, list(ds.views), index, observed=ds.observed)


NEIGHBOUR_COLUMNS = ("view", "weight", "clusters of the nearest", "distances", "reference points")
SHOWN = 8  # nearest reference points listed per view


class WhyPage(Page):
    """One sample: the cluster each of its views votes for, and its nearest reference points."""

    picked = Signal(int)

    def __init__(self, host: ToolHost) -> None:
        super().__init__(host, "Why here")
        self.pick_button = QPushButton("Pick in the embedding")
        self.pick_button.setCheckable(True)
        self.pick_button.setToolTip("Then click a sample in the embedding to explain it")
        self.selected_button = QPushButton("Explain the selected sample")
        self.selected_button.clicked.connect(lambda _=False: self.explain_selected())
        self.bar.addWidget(self.pick_button)
        self.bar.addWidget(self.selected_button)
        self.finish_bar()
        self.votes_model = ColumnsModel(("view",), self)
        self.votes = table_view(self.votes_model)
        self.neighbours_model = ColumnsModel(NEIGHBOUR_COLUMNS, self)
        self.neighbours = table_view(self.neighbours_model)
        for column, width in ((2, 150), (3, 150)):
            self.neighbours.setColumnWidth(column, width)
        self.vote_bars = PlotBox("Each view's vote", pg.PlotWidget())
        self.vote_plot = self.vote_bars.view.getPlotItem()
        self.vote_plot.setLabel("left", "share of the view's vote")
        self.vote_plot.addLegend(offset=(-10, 10))
        tables = QSplitter(Qt.Orientation.Vertical)
        tables.addWidget(self.votes)
        tables.addWidget(self.neighbours)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(tables)
        split.addWidget(self.vote_bars)
        split.setSizes([700, 480])
        self.layout_.addWidget(split, 1)
        self.explanation: Any = None
        emb = host.plots.get("embedding")
        if emb is not None and hasattr(emb, "view"):
            emb.view.scene().sigMouseClicked.connect(self._on_embedding_click)

    def _on_embedding_click(self, event: Any) -> None:
        if not self.pick_button.isChecked():
            return
        emb = self.host.plots["embedding"]
        xy = getattr(emb, "xy", None)
        if xy is None or not emb.vb.sceneBoundingRect().contains(event.scenePos()):
            return
        p = emb.vb.mapSceneToView(event.scenePos())
        px = emb.vb.viewPixelSize()
        d2 = ((xy[:, 0] - p.x()) / px[0]) ** 2 + ((xy[:, 1] - p.y()) / px[1]) ** 2
        i = int(np.argmin(d2))
        if d2[i] <= 8.0**2:  # within 8 pixels of a point
            event.accept()
            self.pick_button.setChecked(False)
            selection = getattr(self.host, "selection", None)
            if selection is not None:  # the picked sample is highlighted in every plot
                ids = self.host.session.dataset.ids if self.host.session else None
                selection.set(np.array([i]), f"sample {ids[i] if ids is not None else i + 1}")
            self.explain(i)

    def explain_selected(self) -> StepsWorker | None:
        idx = selected_indices(self.host)
        if idx.size != 1:
            self.host.messages.show_message(
                "error", f"Why here: select one sample ({idx.size:,} selected), or use Pick in "
                "the embedding.",
            )  # fmt: skip
            return None
        return self.explain(int(idx[0]))

    def explain(self, index: int) -> StepsWorker | None:
        got = self.result_and_data()
        if got is None:
            return None
        result, ds = got
        self.picked.emit(index)
        self.what = f"Why is sample {ds.ids[index]} here"
        return self.run(_explain, result, ds, index, done=self._show)

    def _draw_votes(self, votes: np.ndarray, names: list[str], cluster: int) -> None:
        """Bars per cluster, one colour per view; the run's cluster marked by a line."""
        p = self.vote_plot
        p.clear()
        n_views, k = votes.shape if votes.ndim == 2 else (0, 0)
        width = 0.8 / max(n_views, 1)
        for v in range(n_views):
            colour = PALETTE[v % len(PALETTE)]
            p.addItem(pg.BarGraphItem(x=np.arange(k) - 0.4 + width * (v + 0.5),
                                      height=np.nan_to_num(votes[v]), width=width,
                                      brush=colour, name=names[v]))  # fmt: skip
        dashed = pg.mkPen("#2b3440", width=1.5, style=Qt.PenStyle.DashLine)
        p.addItem(pg.InfiniteLine(cluster, angle=90, pen=dashed))
        p.getAxis("bottom").setTicks([[(c, str(c)) for c in range(k)]])
        p.setLabel("bottom", "cluster (dashed: the sample's)")
        p.setYRange(0, 1.02, padding=0)

    def _show(self, ex: Any) -> None:
        self.explanation = ex
        votes = np.asarray(ex.votes, dtype=float)
        k = votes.shape[1] if votes.ndim == 2 else 0
        self.votes_model.headers = ["view"] + [f"cluster {c}" for c in range(k)]
        self.votes_model.set_columns([list(ex.view_names)] + [votes[:, c] for c in range(k)],
                                     keep_sort=False)  # fmt: skip
        self._draw_votes(votes, list(ex.view_names), ex.cluster)
        ids = self.host.session.dataset.ids

        def listed(arrays: list, fmt: Callable[[Any], str]) -> list[str]:
            return [", ".join(fmt(x) for x in np.asarray(a)[:SHOWN]) or "(view missing)"
                    for a in arrays]  # fmt: skip

        self.neighbours_model.set_columns([
            list(ex.view_names), np.asarray(ex.weights, dtype=float),
            listed(ex.neighbour_clusters, lambda c: str(int(c))),
            listed(ex.distances, lambda d: f"{float(d):.3g}"),
            listed(ex.neighbours, lambda j: f"#{int(j) + 1}"),
        ], keep_sort=False)  # fmt: skip
        self.neighbours_model.tooltips = {4: f"reference points: {ex.reference}"}
        finite = np.isfinite(votes).all(axis=1) if k else np.zeros(votes.shape[0], dtype=bool)
        tops = np.argmax(np.nan_to_num(votes, nan=-1.0), axis=1) if k else []
        voted = [str(ex.view_names[v]) for v in np.flatnonzero(finite) if tops[v] == ex.cluster]
        self.status.setText(
            f"Sample {ids[ex.index]} is in cluster {ex.cluster} (its views' votes give "
            f"{ex.predicted}); views voting for {ex.cluster}: {', '.join(voted) or 'none'}."
        )
