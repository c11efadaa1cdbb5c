"""RunPresenter: turns controller and selection signals into plot and panel updates.

It holds no run state of its own (that lives in the controller's RunHistory): each slot
reads the history and asks the plots to redraw what changed. GUI thread only.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QObject, Signal

from core.solvers import REGISTRY
from mvc_gui.panels.results_panel import ResultsPanel, metric_rows
from mvc_gui.plots.confusion_plot import ConfusionPlot
from mvc_gui.plots.convergence_plot import ConvergencePlot
from mvc_gui.plots.embedding_plot import EmbeddingPlot
from mvc_gui.plots.heatmap_plot import HeatmapPlot
from mvc_gui.plots.weights_plot import WeightsPlot
from mvc_gui.selection import Selection
from mvc_gui.session import DataSession
from mvc_gui.state import RunHistory

__all__ = ["RunPresenter"]

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
        selection.changed.connect(self._on_selection_changed)

    # -- data -------------------------------------------------------------------------------
    def set_session(self, session: DataSession) -> None:
        self.session = session
        self.history = None
        ds = session.dataset
        self.selection.clear()
        self.embedding.reset(ds.labels, ds.class_names, "Computing layout...")
        self.weights.set_views(session.view_names)
        self.heatmap.clear("Shown when the method\nprovides its graph")
        self.confusion.reset(ds.class_names)
        self.confusion.setVisible(ds.labels is not None)
        self.convergence.clear(labels_known=ds.labels is not None)
        self.results.show_metrics([])
        self.results.show_legend(None, 0)
        self.results.status.setText("No run yet.")

    # -- run signals --------------------------------------------------------------------------
    def on_run_started(self, history: RunHistory) -> None:
        self.history = history
        self.n_clusters = int(history.params.get("n_clusters", 0))
        cls = REGISTRY.get(history.method)
        label = cls.objective_label if cls else "objective"
        truth = self.session.labels if self.session else None
        self.convergence.clear(label, labels_known=truth is not None)
        self.weights.set_views(self.session.view_names)
        self.heatmap.clear("Shown when the method\nprovides its graph")
        self.results.status.setText(f"Running {history.method}...")
        self.status_changed.emit("Starting...", 0)

    def on_iteration_done(self, history: RunHistory) -> None:
        if history is not self.history or history.last is None:
            return
        st = history.last.state
        self.convergence.update_history(history)
        if st.view_weights is not None:
            self.weights.set_weights(st.view_weights)
        if history.labels is not None:
            self._show_labels(history.labels)
        if history.heat is not None and history.heat is not self.heatmap.heat:
            self.heatmap.set_heatmap(history.heat)
            self.heatmap.set_highlight(self.selection.cluster)
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

    def _show_labels(self, labels: np.ndarray) -> None:
        k = max(self.n_clusters, int(labels.max()) + 1)
        self.embedding.set_labels(labels)
        self.results.show_legend(labels, k)
        truth = self.session.labels if self.session else None
        if truth is not None:
            self.confusion.set_labels(truth, labels, k)
            self.confusion.set_highlight(self.selection.cluster)

    def on_run_finished(self, history: RunHistory) -> None:
        result = history.result
        extra = [
            ("iterations", str(result.n_iter)),
            ("converged", "yes" if result.converged else "no (max_iter)"),
            ("time", f"{result.timings.get('total', 0.0):.2f} s"),
        ]
        if result.objective_history:
            extra.append(("objective", f"{result.objective_history[-1]:.6g}"))
        self.results.show_metrics(metric_rows(result.metrics, extra))
        self.results.status.setText(f"<b>{history.method}</b>: finished.")
        if result.view_weights is not None:
            self.weights.set_weights(np.asarray(result.view_weights))

    def on_run_stopped(self, history: RunHistory) -> None:
        result = history.result
        self.results.status.setText(f"<b>{history.method}</b>: stopped by the user.")
        if result is not None:
            self.results.show_metrics(metric_rows(result.metrics, [("stopped", "yes")]))
        self.status_changed.emit("Stopped.", -1)

    def on_run_failed(self, message: str, details: str) -> None:
        self.results.status.setText("The run failed (see the message above the plots).")
        self.status_changed.emit("Failed.", -1)

    def mark_stale(self, stale: bool) -> None:
        text = self.results.status.text().replace(" <i>(stale)</i>", "")
        self.results.status.setText(text + (" <i>(stale)</i>" if stale else ""))

    # -- selection --------------------------------------------------------------------------
    def select_cluster(self, cluster: int) -> None:
        labels = self.history.labels if self.history else None
        self.selection.select_cluster(labels, cluster)

    def select_indices(self, indices: np.ndarray) -> None:
        if indices.size:
            self.selection.set(indices, "region of the embedding")
        else:
            self.selection.clear()

    def _on_selection_changed(self) -> None:
        n = self.session.dataset.n_samples if self.session else 0
        self.embedding.set_selection(self.selection.mask(n))
        self.heatmap.set_highlight(self.selection.cluster)
        self.confusion.set_highlight(self.selection.cluster)
        self.results.show_selection(self.selection.indices.size, self.selection.description)
