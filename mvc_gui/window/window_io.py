"""File dialogs, drag-and-drop, recent files, exports and settings of the main window
(a mixin).

Every write goes through an atomic helper; failures land in the message bar. Save paths
come from ``ask_save_path``, which tests replace to avoid modal dialogs.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog

from core.records.runs import RunResult
from mvc_gui.window import exports, settings

__all__ = ["WindowIOMixin"]

FILE_FILTER = "Multi-view data (*.mat *.npz *.csv *.tsv *.h5ad *.h5mu *.json);;All files (*)"


class WindowIOMixin:
    """Needs ``settings``, ``messages``, ``presenter``, ``session``, ``selection``,
    ``plots``, ``stage_label``, ``recent_menu`` and ``open_path`` from the window."""

    # -- export -------------------------------------------------------------------------------
    def ask_save_path(self, title: str, name: str, filters: str) -> str:
        folder = self.settings.value("last_folder", str(Path.home()))
        path, _ = QFileDialog.getSaveFileName(self, title, str(Path(folder) / name), filters)
        return path

    def current_result(self) -> RunResult | None:
        history = self.presenter.history  # the run on display (live, or re-shown from a list)
        if history is None or history.result is None:
            self.messages.show_message("error", "Nothing to export yet: run a method first.")
            return None
        return history.result

    def file_stem(self) -> str:
        return f"{self.session.dataset.name}_{self.presenter.history.result.method}"

    def export_labels(self) -> None:
        if (result := self.current_result()) and (
            path := self.ask_save_path(
                "Export labels", f"{self.file_stem()}_labels.csv", "CSV (*.csv)"
            )
        ):
            self._write(exports.export_labels, path, result)

    def export_run(self) -> None:
        if (result := self.current_result()) and (
            path := self.ask_save_path(
                "Export run record", f"{self.file_stem()}_run.json", "JSON (*.json)"
            )
        ):
            self._write(exports.export_run, path, result)

    def export_selection(self) -> None:
        if not self.selection:
            self.messages.show_message(
                "error",
                "Nothing selected (click a cluster in the legend, or Shift+drag in the embedding).",
            )
            return
        if path := self.ask_save_path("Export selection", "selection.csv", "CSV (*.csv)"):
            h = self.presenter.history  # exports carry the solver's numbers, not the display's
            labels = None if h is None else h.labels if h.solver_labels is None else h.solver_labels
            ds = self.session.dataset
            self._write(exports.export_selection, path, self.selection.indices, labels,
                        self.session.labels, ds.ids.tolist(), ds.class_names)  # fmt: skip

    def export_plot(self, name: str, size=None, path: str = "") -> None:
        """Plot ``name`` with its legend as PNG, SVG or PDF (by the suffix) at ``size``
        (a FigureSize; None: as on screen)."""
        filters = "PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"
        if path or (path := self.ask_save_path("Export plot", f"{name}.png", filters)):
            self._write(self.plots[name].export_figure, path, size)

    def _write(self, fn, path: str, *args) -> None:
        try:
            fn(path, *args)
        except (OSError, ValueError) as exc:  # ValueError: e.g. a figure named .jpg
            self.messages.show_message("error", f"Could not write {path}: {exc}")
            return
        self.settings.setValue("last_folder", str(Path(path).parent))
        self.stage_label.setText(f"Wrote {path}")

    # -- files --------------------------------------------------------------------------------
    def open_dialog(self) -> None:
        folder = self.settings.value("last_folder", str(Path.home()))
        path, _ = QFileDialog.getOpenFileName(self, "Open data", folder, FILE_FILTER)
        if path:
            self.open_path(path)

    def open_folder_dialog(self) -> None:
        folder = self.settings.value("last_folder", str(Path.home()))
        if path := QFileDialog.getExistingDirectory(self, "Open CSV folder", folder):
            self.open_path(path)

    def _update_recent(self, files: list[str]) -> None:
        self.recent_menu.clear()
        for f in files:
            self.recent_menu.addAction(Path(f).name, lambda f=f: self.open_path(f)).setToolTip(f)
        self.recent_menu.setEnabled(bool(files))

    def dragEnterEvent(self, event) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        urls = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if urls:
            self.open_path(urls[0])
            event.acceptProposedAction()

    # -- settings ---------------------------------------------------------------------------
    def read_settings(self) -> None:
        s = self.settings
        if geometry := s.value("MainWindow/geometry"):
            self.restoreGeometry(geometry)
        if state := s.value("MainWindow/state"):
            self.restoreState(state)
        for name, splitter in self.splitters.items():
            if value := s.value(f"MainWindow/splitter_{name}"):
                splitter.restoreState(value)
        self._update_recent(settings.recent_files(s))
        if (method := s.value("last_method")) and isinstance(method, str):
            self.method_panel.set_method(method)
        self._on_method_changed(self.method_panel.method or "")

    def write_settings(self) -> None:
        s = self.settings
        s.setValue("MainWindow/geometry", self.saveGeometry())
        s.setValue("MainWindow/state", self.saveState())
        for name, splitter in self.splitters.items():
            s.setValue(f"MainWindow/splitter_{name}", splitter.saveState())
        if self.method_panel.method:
            settings.save_params(s, self.method_panel.method, self.method_panel.params())
        s.sync()
