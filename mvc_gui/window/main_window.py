"""The main window: docks (data, method, results), the plot grid, actions and settings.

Heavy work never runs here: files load in a child process (FileLoading), demos in a
TaskWorker, runs in the controller's
SolverWorker, layouts in the EmbeddingController's worker. This class wires them together.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QDockWidget,
    QLabel,
    QMainWindow,
    QProgressBar,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from core.analysis.groups import GroupSet
from core.data.dataset import DataError
from core.methods import REGISTRY
from core.methods.params import ParamError
from mvc_gui.model.data_session import DataSession, load_demo
from mvc_gui.panels.dataset_panel import DatasetPanel
from mvc_gui.panels.message_bar import MessageBar
from mvc_gui.panels.method_panel import MethodPanel
from mvc_gui.panels.results_panel import ResultsPanel
from mvc_gui.plots.confusion_plot import ConfusionPlot
from mvc_gui.plots.convergence_plot import ConvergencePlot
from mvc_gui.plots.embedding_plot import EmbeddingPlot
from mvc_gui.plots.figure import FigureSize
from mvc_gui.plots.heatmap_plot import HeatmapPlot
from mvc_gui.plots.weights_plot import WeightsPlot
from mvc_gui.resources import icon
from mvc_gui.run.controller import RunController
from mvc_gui.run.embedding_controller import EmbeddingController
from mvc_gui.run.load_worker import LoadWorker
from mvc_gui.run.solver_process import SolverServer
from mvc_gui.run.warm import warm_message
from mvc_gui.run.workers import TaskWorker
from mvc_gui.tools import install_tools, selection_dock
from mvc_gui.window import settings
from mvc_gui.window.actions import create_actions
from mvc_gui.window.figure_export import (
    FILTERS,
    FigureDialog,
    figure_parts_of,
    page_size,
    write_page,
)
from mvc_gui.window.file_loading import FileLoading
from mvc_gui.window.presenter import RunPresenter
from mvc_gui.window.selection import Selection
from mvc_gui.window.window_io import WindowIOMixin

__all__ = ["MainWindow"]


class MainWindow(WindowIOMixin, QMainWindow):
    data_loaded = Signal()
    load_failed = Signal(str, str)
    closing = Signal()  # a clean exit: the window is closing (tools tidy up)
    groups_changed = Signal()  # ``groups`` changed (named, renamed, deleted, imported, restored)
    compare_requested = Signal(str, str)  # group A, group B ("": the rest), picked to compare

    def __init__(self, qsettings: QSettings | None = None) -> None:
        super().__init__()
        self.settings = settings.migrate_settings(qsettings)
        self.setWindowTitle("MVC Studio")
        self.setWindowIcon(icon("app"))
        self.session: DataSession | None = None
        self.controller = RunController(self)
        self.embedder = EmbeddingController(self)
        self.selection = Selection(self)
        #: the named groups of the data on display (one object for the window's life,
        #: emptied when other data loads); whoever changes it emits ``groups_changed``
        self.groups = GroupSet()
        self._figure_parts: dict[str, QWidget] = {}
        self._loaders: list[TaskWorker] = []
        self.stale = False
        self._create_widgets()
        self.loading = FileLoading(self)
        self.loading.failed.connect(self.load_failed)
        create_actions(self)
        self._create_docks()
        self._connect()
        self.tools = install_tools(self)
        self.selection_panel = selection_dock.install(self)
        self.read_settings()
        self.setAcceptDrops(True)
        self._on_busy_changed(False)
        if self.controller.use_process:  # start the solver child early (its imports take s)
            # and let it compile the panel's method while it waits for the first Run
            SolverServer.shared().start_early(warm_message(self.method_panel.method))

    # -- construction -------------------------------------------------------------------------
    def _create_widgets(self) -> None:
        self.plots = {"embedding": EmbeddingPlot(), "convergence": ConvergencePlot(),
                      "weights": WeightsPlot(), "heatmap": HeatmapPlot(),
                      "confusion": ConfusionPlot()}  # fmt: skip
        p = self.plots
        self.messages = MessageBar()
        top = QSplitter(Qt.Orientation.Horizontal)
        top.addWidget(p["convergence"])
        top.addWidget(p["weights"])
        bottom = QSplitter(Qt.Orientation.Horizontal)
        bottom.addWidget(p["heatmap"])
        bottom.addWidget(p["confusion"])
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(top)
        right.addWidget(bottom)
        self.main_split = QSplitter(Qt.Orientation.Horizontal)
        self.main_split.addWidget(p["embedding"])
        self.main_split.addWidget(right)
        self.main_split.setSizes([500, 640])
        top.setSizes([360, 280])
        bottom.setSizes([340, 300])
        self.splitters = {"main": self.main_split, "right": right, "top": top, "bottom": bottom}
        central = QWidget()
        lay = QVBoxLayout(central)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.messages)
        lay.addWidget(self.main_split, 1)
        self.setCentralWidget(central)
        self.dataset_panel = DatasetPanel()
        self.method_panel = MethodPanel()
        self.results_panel = ResultsPanel()
        self.presenter = RunPresenter(p, self.results_panel, self.selection, self)
        self.stage_label = QLabel("Ready.")
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        self.layout_label = QLabel("")
        sb = self.statusBar()
        sb.addWidget(self.stage_label, 1)
        sb.addPermanentWidget(self.layout_label)
        sb.addPermanentWidget(self.progress)

    def _create_docks(self) -> None:
        docks = (
            ("Data", self.dataset_panel, Qt.DockWidgetArea.LeftDockWidgetArea),
            ("Method", self.method_panel, Qt.DockWidgetArea.LeftDockWidgetArea),
            ("Results", self.results_panel, Qt.DockWidgetArea.RightDockWidgetArea),
        )
        for title, widget, area in docks:
            self.add_dock(title, widget, area, f"{title.lower()}Dock")
        for name, plot in self.plots.items():
            act = self.plots_menu.addAction(plot.title.text())
            act.triggered.connect(lambda _=False, n=name: self.export_plot_dialog(n))
            plot.export_button.clicked.connect(lambda _=False, n=name: self.export_plot_dialog(n))
        self.resize(1500, 900)
        docks = self.findChildren(QDockWidget)
        widths = [230 if d.widget() is self.results_panel else 440 for d in docks]
        self.resizeDocks(docks, widths, Qt.Orientation.Horizontal)

    def add_dock(
        self, title: str, widget: QWidget, area, name: str, *, floatable: bool = False
    ) -> QDockWidget:
        """A movable, closable dock (named for saveState) with a View menu toggle."""
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        features = (
            QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetClosable
        )
        if floatable:
            features |= QDockWidget.DockWidgetFeature.DockWidgetFloatable
        dock.setFeatures(features)
        self.addDockWidget(area, dock)
        self.view_menu.addAction(dock.toggleViewAction())
        return dock

    def _connect(self) -> None:
        c, pr = self.controller, self.presenter
        c.run_started.connect(pr.on_run_started)
        c.iteration_done.connect(pr.on_iteration_done)
        c.run_finished.connect(pr.on_run_finished)
        c.run_stopped.connect(pr.on_run_stopped)
        c.run_failed.connect(pr.on_run_failed)
        c.run_finished.connect(lambda _h: self.dataset_panel.update_chosen())
        c.run_failed.connect(lambda msg, det: self.messages.show_message("error", msg, det))
        c.busy_changed.connect(self._on_busy_changed)
        c.paused_changed.connect(self.pause_action.setChecked)
        # a large layout waits while a run computes (not while it is paused)
        c.busy_changed.connect(lambda busy: self.embedder.set_held(busy and not c.paused))
        c.paused_changed.connect(lambda paused: self.embedder.set_held(c.running and not paused))
        pr.status_changed.connect(self._on_status_changed)
        self.embedder.layout_updated.connect(self._on_layout_updated)
        self.embedder.status_changed.connect(self.layout_label.setText)
        self.embedder.failed.connect(lambda m, d: self.messages.show_message("warning", m, d))
        self.plots["embedding"].layout_method_changed.connect(self.embedder.set_method)
        self.method_panel.params_changed.connect(self._on_params_changed)
        self.method_panel.method_changed.connect(self._on_method_changed)
        self.method_panel.run_button.clicked.connect(self.run)
        self.dataset_panel.selection_changed.connect(self._on_views_changed)
        self.results_panel.cluster_clicked.connect(pr.select_cluster)
        self.results_panel.export_selection_requested.connect(self.export_selection)
        emb = self.plots["embedding"]
        emb.region_selected.connect(pr.select_region)
        emb.point_clicked.connect(pr.select_point)
        emb.layout_source_changed.connect(self._request_layout)
        self.plots["confusion"].cluster_clicked.connect(pr.select_cluster)
        self.plots["confusion"].cell_clicked.connect(pr.select_cell)
        self.plots["heatmap"].cluster_clicked.connect(pr.select_cluster)
        self.groups_changed.connect(self._on_groups_changed)

    # -- data ---------------------------------------------------------------------------------
    def open_path(self, path: str) -> LoadWorker:
        """Load a file in a child process (progress, Cancel); on failure the current dataset
        stays."""
        return self.loading.load(str(path), lambda res: self.set_session(*res, path=str(path)))

    def load_file(self, path, done, failed=None) -> LoadWorker:
        """Read ``path`` (or a DataSpec's files) in a child process for a tool:
        ``done((session, summary))``, or the message bar says why and ``failed(message)``."""
        return self.loading.load(path, done, failed)

    def load_demo(self, name: str = "handwritten") -> TaskWorker:
        self.stage_label.setText(f"Loading demo '{name}'...")
        return self._load(load_demo, name, label=None)

    def _load(self, fn, arg: str, label: str | None) -> TaskWorker:
        worker = TaskWorker(fn, arg, parent=self)
        worker.done.connect(lambda res: self.set_session(*res, path=label))
        worker.failed.connect(self._on_load_failed)
        self._loaders = [w for w in self._loaders if w.is_alive()] + [worker]
        worker.start()
        return worker

    def _on_load_failed(self, message: str, details: str) -> None:
        self.stage_label.setText("Ready.")
        keep = " The previous dataset stays loaded." if self.session else ""
        self.messages.show_message("error", f"Could not open the data: {message}.{keep}", details)
        self.load_failed.emit(message, details)

    def set_session(self, session: DataSession, summary: dict, path: str | None = None) -> None:
        self.controller.stop()
        old, self.session = self.session, session
        if old is not None and old.store_dir != session.store_dir:
            _remove_store(old)  # maps already open stay valid; new jobs use the new data
        if self.method_panel.method in REGISTRY:
            session.set_auto_rule(REGISTRY[self.method_panel.method].auto_preprocessing)
        self.messages.clear()
        ds = session.dataset
        self.presenter.set_session(session)
        self.dataset_panel.set_session(session, summary)
        # n_clusters follows the data: its classes, or "auto"; a number picked for this same
        # dataset (reference labels chosen, the file opened again) stays
        self.method_panel.set_default_clusters(session.n_classes, data_identity(ds))
        self._request_layout()
        self.setWindowTitle(f"{ds.name} \u2014 MVC Studio")
        self.stage_label.setText(f"Loaded {ds.name}: {ds.n_samples:,} samples.")
        if summary.get("warnings"):
            self.messages.show_message("warning", "; ".join(summary["warnings"]))
        if path:
            self.settings.setValue("last_folder", str(Path(path).parent))
            self._update_recent(settings.add_recent_file(self.settings, path))
        self._set_stale(False)
        if len(self.groups):  # groups are samples of the data they were made on
            self.groups.groups.clear()
            self.groups_changed.emit()
        self.data_loaded.emit()

    # -- groups and figures ------------------------------------------------------------------
    def _on_groups_changed(self) -> None:
        n = self.session.dataset.n_samples if self.session is not None else 0
        g = self.groups
        labels = g.as_labels(n) if len(g) and n else None
        self.plots["embedding"].set_groups(labels, g.names(), [x.colour for x in g])

    def register_figure_part(self, name: str, widget: QWidget | None) -> None:
        """A widget a tool offers to the "Figure..." export (e.g. "association": a table);
        None withdraws it."""
        if widget is None:
            self._figure_parts.pop(name, None)
        else:
            self._figure_parts[name] = widget

    def figure_parts(self) -> dict[str, QWidget]:
        return dict(self._figure_parts)

    def export_plot_dialog(self, name: str) -> None:
        """Ask the format, size and DPI, then where, and export plot ``name`` with its legend."""
        plot = self.plots[name]
        dialog = FigureDialog(f"Export {plot.title.text()}", plot.default_figure_size(), "png",
                              self)  # fmt: skip
        if dialog.exec() != FigureDialog.DialogCode.Accepted:
            return
        fmt = dialog.fmt
        if path := self.ask_save_path("Export plot", f"{name}.{fmt}", FILTERS[fmt]):
            self.export_plot(name, dialog.size(), path)

    def export_figure_page(self, size: FigureSize | None = None, path: str = "") -> None:
        """File > Figure...: the embedding, the weights and the association table on one page
        (``size`` None: asked, as the path)."""
        if size is None:
            dialog = FigureDialog("Figure", page_size(), "pdf", self)
            if dialog.exec() != FigureDialog.DialogCode.Accepted:
                return
            size = dialog.size()
            stem = self.session.dataset.name if self.session else "figure"
            path = self.ask_save_path("Figure", f"{stem}_figure.{dialog.fmt}",
                                      FILTERS[dialog.fmt])  # fmt: skip
        if not path:
            return
        parts = figure_parts_of(self)
        title = "" if "association" in self.figure_parts() else "Selection by cluster"
        self._write(write_page, path, parts, size, title)

    def _on_views_changed(self) -> None:
        self.presenter.views_changed(self.session.view_names)
        self._request_layout()
        self._on_params_changed()

    def _request_layout(self) -> None:
        """The layout of the included views, or of the view the embedding panel asks for."""
        if self.session is not None:
            self.embedder.request(self.session, view=self.plots["embedding"].layout_view)

    def _on_layout_updated(self, xy, final: bool) -> None:
        self.plots["embedding"].set_layout(xy, final)
        if final:
            self.dataset_panel.update_chosen()

    # -- run ----------------------------------------------------------------------------------
    def run(self, *, paused: bool = False) -> int | None:
        if self.session is None:
            self.messages.show_message("error", "Load a dataset first (File > Open).")
            return None
        method, params = self.method_panel.method, self.method_panel.params()
        if method is None:
            self.messages.show_message("error", "No clustering method is registered.")
            return None
        try:
            run_id = self.controller.start(method, params, self.session, paused=paused)
        except (ParamError, DataError) as exc:
            self.messages.show_message("error", f"Cannot run {method}: {exc}")
            return None
        settings.save_params(self.settings, method, params)
        self.messages.clear()
        self._set_stale(False)
        return run_id

    def stop(self) -> None:
        self.controller.stop()

    def toggle_pause(self, checked: bool) -> None:
        if self.controller.running:
            (self.controller.pause if checked else self.controller.resume)()
        else:
            self.pause_action.setChecked(False)

    def step(self) -> None:
        if not self.controller.running:
            self.run(paused=True)
        self.controller.step()

    def _on_busy_changed(self, busy: bool) -> None:
        for act in (self.stop_action, self.pause_action):
            act.setEnabled(busy)
        self.run_action.setEnabled(not busy)
        self.method_panel.run_button.setEnabled(not busy)
        self.method_panel.run_button.setText("Running..." if busy else "Run")

    def _on_status_changed(self, text: str, progress: int) -> None:
        self.stage_label.setText(text)
        if progress >= 0:
            self.progress.setValue(progress)

    def _on_params_changed(self) -> None:
        if self.controller.history is not None:
            self._set_stale(True)

    def _on_method_changed(self, name: str) -> None:
        self.method_panel.restore_params(settings.load_params(self.settings, name))
        if self.session is not None and name in REGISTRY:
            self.session.set_auto_rule(REGISTRY[name].auto_preprocessing)
            self.dataset_panel.update_chosen()
        self._on_params_changed()

    def _set_stale(self, stale: bool) -> None:
        if stale and not self.stale:
            self.messages.show_message(
                "info", "Parameters changed: the results shown are stale. Press Run to update them."
            )
        elif not stale:
            self.messages.clear("info")
        self.stale = stale
        self.presenter.mark_stale(stale)

    # -- settings, close ---------------------------------------------------------------------
    def closeEvent(self, event) -> None:
        self.write_settings()
        self.closing.emit()
        self.controller.shutdown(timeout=3.0)
        SolverServer.shutdown_all()
        self.embedder.shutdown(timeout=3.0)
        self.loading.shutdown(timeout=2.0)
        for w in self._loaders:
            w.join(0.5)
        if self.session is not None:
            _remove_store(self.session)
        event.accept()


def data_identity(ds) -> tuple:
    """What makes two loads "the same dataset" for the choices that follow the data (its
    name, where it came from, its size)."""
    return (ds.name, ds.source, ds.n_samples)


def _remove_store(session: DataSession) -> None:
    """Remove the loader's folder the session's views are mapped from (if any)."""
    if session.store_dir:
        shutil.rmtree(session.store_dir, ignore_errors=True)
