"""RunPresenter: turns controller and selection signals into plot and panel updates.

It holds no run state of its own (that lives in the controller's RunHistory): each slot
reads the history and asks the plots to redraw what changed. GUI thread only.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Signal

from core.methods import REGISTRY
from core.numerics.k_estimate import describe_estimate
from core.numerics.metrics import all_metrics
from mvc_gui.model.data_session import DataSession
from mvc_gui.model.panel_notes import graph_note, panel_notes, recon_shares, weights_display
from mvc_gui.model.playback import PlaybackFrame, playback_frame
from mvc_gui.model.run_history import RunHistory
from mvc_gui.panels.results_panel import ResultsPanel, metric_rows
from mvc_gui.plots.confusion_plot import ConfusionPlot
from mvc_gui.plots.convergence_plot import ConvergencePlot
from mvc_gui.plots.embedding_plot import EmbeddingPlot
from mvc_gui.plots.heatmap_plot import HeatmapPlot
from mvc_gui.plots.weights_plot import WeightsPlot
from mvc_gui.run.slots import weak_slot
from mvc_gui.window.paint_spread import PaintSpreader
from mvc_gui.window.selection import REPLACE, Selection, mode_now

__all__ = ["RunPresenter"]

#: the anchor-graph panel before a run (words, not an empty map)
GRAPH_PENDING = "Shown when the method\nprovides its graph"

STAGE_TEXT = {
    "preprocessing": "Preprocessing",
    "anchors": "Selecting anchors",
    "graph": "Building anchor graph",
    "init": "Initialising",
    "iterating": "Iterating",
    "postprocess": "Post-processing",
    "done": "Done",
}


class RunPresenter(QObject):
    status_changed = Signal(str, int)  # text, progress in per mille (-1: none)
    run_shown = Signal()  # a run's final labels are on display (finished, stopped, re-shown)

    def __init__(self, plots: dict, results: ResultsPanel, selection: Selection, parent=None):
        super().__init__(parent)
        self.convergence: ConvergencePlot = plots["convergence"]
        self.weights: WeightsPlot = plots["weights"]
        self.embedding: EmbeddingPlot = plots["embedding"]
        self.heatmap: HeatmapPlot = plots["heatmap"]
        self.confusion: ConfusionPlot = plots["confusion"]
        self.results = results
        self.selection = selection
        self.session: DataSession | None = None
        self.history: RunHistory | None = None
        self.n_clusters = 0
        self._drawn: tuple | None = None  # (history, labels_version) on display
        self._spread = PaintSpreader(self)  # a live run's labels and heat map, painted apart
        selection.changed.connect(self._on_selection_changed)

    # -- data -------------------------------------------------------------------------------
    def set_session(self, session: DataSession) -> None:
        self.session = session
        self.history = None
        self._spread.discard()
        ds = session.dataset
        self.selection.clear()
        self.embedding.reset(ds.labels, ds.class_names, "Computing layout...")
        self.embedding.sample_ids = ds.sample_ids  # None: hover says "sample <row>" (no 1M strings)
        self.embedding.set_data(ds)
        self.weights.set_views(session.view_names)
        self.heatmap.clear(GRAPH_PENDING)
        self.confusion.set_data(ds)  # rows: the reference labels or a categorical column
        self.confusion.reset(ds.class_names)
        self.confusion.setVisible(self.confusion.has_rows)
        self.convergence.clear(labels_known=ds.labels is not None)
        self.results.show_metrics([])
        self.results.show_legend(None, 0)
        self.results.status.setText("No run yet.")

    def views_changed(self, names: list[str]) -> None:
        """Views included or excluded in the Data dock: the weights panel names them, unless
        a run is on display (its bars belong to the views it ran on, until the next run)."""
        if self.history is None:
            self.weights.set_views(names)

    # -- run signals --------------------------------------------------------------------------
    def on_run_started(self, history: RunHistory) -> None:
        self._spread.discard()
        self.history = history
        self._drawn = None
        k = history.params.get("n_clusters", 0)
        self.n_clusters = k if isinstance(k, int) else 0  # "auto": known from the labels
        cls = REGISTRY.get(history.method)
        label = cls.objective_label if cls else "objective"
        truth = self.session.labels if self.session else None
        title = cls.title if cls else history.method
        self.convergence.clear(label, labels_known=truth is not None, method_title=title)
        self.weights.set_views(self.session.view_names)
        self._show_declared(history)
        self.results.status.setText(f"Running {history.method}...")
        self.status_changed.emit("Starting...", 0)

    def on_iteration_done(self, history: RunHistory) -> None:
        if history is not self.history or history.last is None:
            return
        st = history.last.state
        live = history.result is None and not st.final
        if not live:
            self._spread.flush()  # the end is drawn at once
        self.convergence.update_history(history)
        shares = recon_shares(st.extras, len(self.weights.names))
        if st.view_weights is not None or shares is not None:
            self._show_weights(history, st.view_weights, st.extras)
        drawn = (history, history.labels_version)
        if history.labels is not None and drawn != self._drawn:  # only labels that moved
            self._drawn = drawn
            self._update("labels", live, RunPresenter._show_latest_labels, history)
        if history.heat is not None and history.heat is not self.heatmap.heat:
            if "anchor_graph" not in panel_notes(history.method):  # (a graph, not of anchors)
                self._update("heat", live, RunPresenter._show_latest_heat, history)
        text = STAGE_TEXT.get(st.stage, st.stage)
        if st.stage == "iterating":
            max_iter = history.params.get("max_iter", "?")
            text += f": iteration {st.iteration}/{max_iter}"
            if st.objective is not None:
                text += f", objective {st.objective:.6g}"
        elif st.message:
            text += f": {st.message}"
        if st.final:
            text = f"Finished: {st.stop_reason or 'done'} after {st.iteration} iterations"
        self.status_changed.emit(text, round(1000 * st.progress))

    def _update(self, panel: str, live: bool, show, history: RunHistory) -> None:
        """``show(self, history)`` during a run after the curves' paint pass (PaintSpreader),
        at the end now. The deferred call holds the presenter weakly: a closure over it would
        make a reference cycle through the spreader, left to a collection in any thread."""
        if not live:
            show(self, history)
            return
        self._spread.defer(panel, weak_slot(self, lambda presenter: show(presenter, history)))

    def _show_latest_labels(self, history: RunHistory) -> None:
        if history is self.history and history.labels is not None:
            self._show_labels(history.labels, history)

    def _show_latest_heat(self, history: RunHistory) -> None:
        if history is self.history and history.heat is not None:
            if history.heat is not self.heatmap.heat:
                self.heatmap.set_heatmap(history.heat)
                self.heatmap.set_highlight(self.selection.cluster)

    def _show_labels(self, labels: np.ndarray, history: RunHistory | None = None) -> None:
        """Labels in the embedding, legend and confusion; with ``history`` (a live run's
        latest labels) its counts made by the worker, so no pass over the labels here."""
        truth = self.session.labels if self.session else None
        counts = table = None
        if history is not None and history.labels is labels:
            counts = history.counts
            if history.truth is not None and history.truth is truth:
                table = history.truth_counts
        top = len(counts) if counts is not None else int(labels.max()) + 1
        k = max(self.n_clusters, top)
        self.embedding.set_labels(labels, counts)
        self.results.show_legend(labels, k, counts)
        if truth is not None or self.confusion.has_rows:
            self.confusion.set_labels(truth, labels, k, table)
            self.confusion.set_highlight(self.selection.cluster)

    def on_run_finished(self, history: RunHistory) -> None:
        self._spread.flush()
        result = history.result
        extra = [
            ("iterations", str(result.n_iter)),
            ("converged", "yes" if result.converged else "no (max_iter)"),
            ("time", f"{result.timings.get('total', 0.0):.2f} s"),
        ]
        if result.objective_history:
            extra.append(("objective", f"{result.objective_history[-1]:.6g}"))
        self.results.show_metrics(metric_rows(result.metrics, extra))
        text = f"<b>{history.method}</b>: finished."
        if est := getattr(result, "n_clusters_estimate", None):  # never a bare estimate
            text = f"<b>{history.method}</b>: finished with {describe_estimate(est)} (estimated)."
        self.results.status.setText(text)
        self._show_weights(history, result.view_weights, history.extras)
        if history.heat is None or "anchor_graph" in panel_notes(history.method):
            self.heatmap.clear(graph_note(history.method, _title(history.method)))
        self.run_shown.emit()

    def _show_weights(self, history: RunHistory, weights, extras, animate: bool = True) -> None:
        """View weights, or what the method has instead and why (panel_notes)."""
        n = len(self.weights.names)
        w = None if weights is None else np.asarray(weights, dtype=float)
        title = _title(history.method)
        self.weights.show_display(weights_display(history.method, title, w, extras, n), animate)

    def _show_declared(self, history: RunHistory) -> None:
        """The panels the method declares it has nothing for (its class's ``panel_notes``)
        say why from the start of a run: no empty axes while it runs, none after."""
        notes = panel_notes(history.method)
        if "convergence" in notes:
            self.convergence.set_absent(notes["convergence"])
        if "weights" in notes:
            self._show_weights(history, None, None, animate=False)
        if "anchor_graph" in notes:
            self.heatmap.clear(notes["anchor_graph"])
        else:
            self.heatmap.clear(GRAPH_PENDING)

    def on_run_stopped(self, history: RunHistory) -> None:
        # frames that arrived inside the redraw throttle were never drawn: the plots end on
        # the last state the run reached, not on the last one that happened to be painted
        self.on_iteration_done(history)
        self._spread.flush()
        result = history.result
        self.results.status.setText(f"<b>{history.method}</b>: stopped by the user.")
        if result is not None:
            self.results.show_metrics(metric_rows(result.metrics, [("stopped", "yes")]))
        self.status_changed.emit("Stopped.", -1)
        self.run_shown.emit()

    def on_run_failed(self, message: str, details: str) -> None:
        if self.history is not None:
            self.on_iteration_done(self.history)
        self._spread.flush()  # the last state the run reached stays on display
        self.results.status.setText("The run failed (see the message above the plots).")
        self.status_changed.emit("Failed.", -1)

    def show_history(self, history: RunHistory, caption: str = "") -> None:
        """Display a finished or stopped run again (run list, reopened session): labels,
        curves, weights, heat map and metrics, without rerunning. Exports then refer to it;
        the next live run takes over the plots as usual (``on_run_started``)."""
        result = history.result
        self._spread.discard()
        self.history = history
        self._drawn = None
        self.selection.clear()
        k = history.params.get("n_clusters", 0)
        self.n_clusters = k if isinstance(k, int) else 0  # "auto": known from the labels
        cls = REGISTRY.get(history.method)
        truth = self.session.labels if self.session else None
        label = cls.objective_label if cls else "objective"
        title = cls.title if cls else history.method
        self.convergence.clear(label, labels_known=truth is not None, method_title=title)
        names = list(result.view_names) if result is not None and result.view_names else []
        self.weights.set_views(names or (self.session.view_names if self.session else []))
        self._show_declared(history)
        self.convergence.update_history(history)
        weights = result.view_weights if result is not None else None
        if weights is None and history.last is not None:
            weights = history.last.state.view_weights
        self._show_weights(history, weights, history.extras, animate=False)
        if "anchor_graph" in panel_notes(history.method):
            pass  # its note, shown above
        elif history.heat is not None:
            self.heatmap.set_heatmap(history.heat)
        else:
            self.heatmap.clear("The graph of this run\nwas not kept")
        if history.labels is not None:
            self._show_labels(history.labels)
        stopped = result is None or result.stopped_early
        if result is not None:
            extra = [("iterations", str(result.n_iter))]
            if "total" in result.timings:
                extra.append(("time", f"{result.timings['total']:.2f} s"))
            if result.objective_history:
                extra.append(("objective", f"{result.objective_history[-1]:.6g}"))
            if stopped:
                extra.append(("stopped", "yes"))
            self.results.show_metrics(metric_rows(self._scored(result), extra))
        what = caption or history.method
        state = "stopped" if stopped else "finished"
        self.results.status.setText(f"<b>{what}</b>: showing a {state} run.")
        self.status_changed.emit(f"Showing {what} ({state}).", -1)
        self.run_shown.emit()

    def _scored(self, result) -> dict:
        """The run's metrics against the reference labels chosen now (the Data dock may have
        chosen another metadata column since the run; none: no metrics)."""
        truth = self.session.labels if self.session is not None else None
        labels = getattr(result, "labels", None)
        if truth is None or labels is None or labels.shape != truth.shape:
            return result.metrics if truth is not None else {}
        return all_metrics(truth, labels)

    # -- teaching playback -------------------------------------------------------------------
    def show_snapshot(self, history: RunHistory, index: int) -> PlaybackFrame:
        """Show recorded snapshot ``index`` of ``history`` in every plot: the curves up to
        that iteration with a marker, its view weights, labels (embedding, legend,
        confusion), heat map and metrics. :meth:`show_live` returns to the run's state."""
        frame = playback_frame(history.snapshots, index)
        snap = frame.snapshot
        self._spread.discard()
        self._drawn = None  # leaving playback draws the run's labels again
        self.convergence.curve.setData(frame.objective_x, frame.objective_y)
        for key, curve in self.convergence.metric_curves.items():
            curve.setData(frame.metric_x, frame.metrics[key])
        marker, *lines = self._playback_items()
        if frame.marker is not None:
            marker.setData([frame.marker[0]], [frame.marker[1]])
            for line in lines:
                line.setValue(frame.marker[0])
        for item in (marker, *lines):
            item.setVisible(frame.marker is not None)
        self._fix_playback_range(history)
        if snap.view_weights is not None or snap.extras:
            self._show_weights(history, snap.view_weights, snap.extras, animate=False)
        if frame.labels is not None:
            self._show_labels(frame.labels)
        else:  # this method has no labels yet at this iteration
            self.embedding.set_labels(None)
            self.results.show_legend(None, 0)
            if self.session is not None:
                self.confusion.reset(self.session.dataset.class_names)
        if "anchor_graph" in panel_notes(history.method):
            pass  # the method has no anchor graph: its note stays
        elif frame.heat is None:
            self.heatmap.clear("not\nrecorded")
        elif frame.heat is not self.heatmap.heat:
            self.heatmap.set_heatmap(frame.heat)
            self.heatmap.set_highlight(self.selection.cluster)
        extra = [("iteration", str(snap.iteration))]
        if snap.objective is not None:
            extra.append(("objective", f"{snap.objective:.6g}"))
        self.results.show_metrics(metric_rows(snap.metrics, extra))
        self.results.status.setText(f"<b>{history.method}</b>: playback, {frame.caption}.")
        self.status_changed.emit(f"Playback: {frame.caption}", -1)
        return frame

    def show_live(self, history: RunHistory | None) -> None:
        """Leave playback: hide the marker and redraw the run's latest (or final) state."""
        for item in self._playback_items():
            item.setVisible(False)
        self.convergence.objective.enableAutoRange()
        if history is None or history is not self.history or history.last is None:
            return
        if history.result is not None and history.final is not None:
            self.on_iteration_done(history)
            self.on_run_finished(history)
        elif history.result is not None:
            self.on_run_stopped(history)  # (draws the latest state)
        else:  # paused mid-run: the metrics of the latest state
            self.on_iteration_done(history)
            last = history.last
            extra = [("iteration", str(last.state.iteration))]
            self.results.show_metrics(metric_rows(last.metrics, extra))
            self.results.status.setText(f"Running {history.method}...")

    def _fix_playback_range(self, history: RunHistory) -> None:
        """Axes of the whole run, so the curve grows inside a fixed frame while playing."""
        pts = [(s.iteration, s.objective) for s in history.snapshots if s.objective is not None]
        if not pts:
            return
        x = np.array([p[0] for p in pts], dtype=float)
        y = np.array([p[1] for p in pts], dtype=float)
        if self.convergence.log_box.isChecked():
            y = np.log10(y[y > 0]) if np.any(y > 0) else np.zeros(1)
        x_hi = x.max() if x.max() > x.min() else x.min() + 1
        self.convergence.objective.setRange(
            xRange=(x.min(), x_hi), yRange=(y.min(), y.max()), padding=0.06
        )

    def _playback_items(self) -> tuple:
        """The playback marker on the objective and a vertical line on both curves."""
        items = getattr(self, "_pb_items", None)
        if items is None:
            colour = "#D55E00"
            marker = pg.PlotDataItem(
                [], [], pen=None, symbol="o", symbolSize=12, symbolBrush=colour,
                symbolPen=pg.mkPen("w", width=1.5),
            )  # fmt: skip
            dash = pg.QtCore.Qt.PenStyle.DashLine
            lines = [pg.InfiniteLine(angle=90, pen=pg.mkPen(colour, style=dash)) for _ in "ab"]
            self.convergence.objective.addItem(marker)
            self.convergence.objective.addItem(lines[0], ignoreBounds=True)
            self.convergence.metrics.addItem(lines[1], ignoreBounds=True)
            items = self._pb_items = (marker, *lines)
            for item in items:
                item.setVisible(False)
        return items

    def mark_stale(self, stale: bool) -> None:
        text = self.results.status.text().replace(" <i>(stale)</i>", "")
        self.results.status.setText(text + (" <i>(stale)</i>" if stale else ""))

    # -- selection --------------------------------------------------------------------------
    @property
    def labels(self) -> np.ndarray | None:
        """The clusters on display (None before a run)."""
        return self.history.labels if self.history else None

    def select_cluster(self, cluster: int, mode: str | None = None) -> None:
        """A cluster picked in the legend, the confusion matrix or the heat map (``mode``
        None: from the modifier keys held now)."""
        self.selection.select_cluster(self.labels, cluster, mode or mode_now())

    def select_indices(self, indices: np.ndarray) -> None:
        self.select_region(indices, REPLACE, "region of the embedding")

    def select_region(self, indices: np.ndarray, mode: str, what: str) -> None:
        """Samples picked by a shape or a legend entry of the embedding."""
        self.selection.set(indices, what, mode=mode)

    def select_point(self, index: int, mode: str) -> None:
        """A click on the embedding: the cluster of the sample clicked (before a run, the
        sample itself); a click beside every point with no modifier clears the selection."""
        if index < 0:
            if mode == REPLACE:
                self.selection.clear()
            return
        labels = self.labels
        if labels is not None and index < labels.size:
            self.selection.select_cluster(labels, int(labels[index]), mode)
        else:
            self.selection.set([index], f"sample {self.embedding.sample_name(index)}", mode=mode)

    def select_cell(self, row: int, cluster: int, mode: str) -> None:
        """A confusion cell: the samples of that row category in that cluster."""
        members = self.confusion.cell_members(row, cluster)
        names = self.confusion.class_names
        name = names[row] if 0 <= row < len(names) else str(row)
        what = f"{self.confusion.rows_name} {name} in cluster {cluster}"
        self.selection.set(members, what, mode=mode)

    def _on_selection_changed(self) -> None:
        n = self.session.dataset.n_samples if self.session else 0
        self.embedding.set_selection(self.selection.mask(n))
        self.heatmap.set_highlight(self.selection.cluster)
        self.confusion.set_highlight(self.selection.cluster)
        self.results.show_selection(self.selection.indices.size, self.selection.description)


def _title(method: str) -> str:
    """The display title of a registered method (its name if not registered here)."""
    cls = REGISTRY.get(method)
    return cls.title if cls is not None and cls.title else method
