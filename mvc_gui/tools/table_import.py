"""File > Add view from file... and Load metadata...: build a dataset from table files (or
.h5ad/.h5mu matrices) aligned by sample id, and choose the reference labels in the Data dock.

The choices accumulate in a :class:`core.data.io.DataSpec` (plain data, also what a session
stores); every load runs :func:`core.data.io.load_spec` in a child process (the window's
isolated loading, ``host.load_file``), so the window stays live on large files and a reader
that crashes on a damaged file costs only the child; a failed load leaves the current dataset
in place.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDialog, QFileDialog

from core.data.dataset import DataError
from core.data.io import DataSpec, ViewSource, load_spec
from mvc_gui.model.data_session import DataSession
from mvc_gui.panels.table_preview import TablePreviewDialog
from mvc_gui.tools.host import ToolHost

__all__ = ["TableImport", "install"]

FILTER = "Tables and AnnData (*.csv *.tsv *.txt *.tab *.h5ad *.h5mu);;All files (*)"


def load_spec_session(spec: DataSpec) -> tuple[DataSession, dict]:
    """Read and align the files of ``spec`` in this process (tests, scripts)."""
    ds = load_spec(spec)
    return DataSession(ds), ds.summary()


def load_spec_in_child(win: ToolHost, spec: DataSpec, done, failed=None):
    """Read ``spec``'s files in the window's loader child (like every file the window reads):
    the child gets a description file naming the tables (``core.data.io.load_dataset`` reads
    it); ``done((session, summary))`` with the data's source naming the tables."""
    folder = Path(tempfile.mkdtemp(prefix="mvc-tables-"))
    path = folder / f"{spec.name or spec.views[0].name}.tables.json"
    path.write_text(spec.to_json(), encoding="utf-8")

    def finished(res: tuple) -> None:
        shutil.rmtree(folder, ignore_errors=True)
        ds = res[0].dataset
        ds = replace(ds, source=", ".join(v.path for v in spec.views))
        done((DataSession(ds, store_dir=res[0].store_dir), ds.summary()))

    def not_loaded(message: str) -> None:
        shutil.rmtree(folder, ignore_errors=True)
        if failed is not None:
            failed(message)

    return win.load_file(str(path), finished, failed=not_loaded)


def current_spec(win: Any) -> DataSpec | None:
    """The description the data on display was loaded from (None: not from tables)."""
    if win.session is None or "spec" not in win.session.dataset.meta:
        return None
    return DataSpec.from_dict(win.session.dataset.meta["spec"])


class TableImport(QObject):
    """The two File actions and the reference-label choice of one window."""

    def __init__(self, win: Any) -> None:
        super().__init__(win)
        self.win = win

    # -- actions ------------------------------------------------------------------------------
    def _ask(self, title: str) -> str | None:
        folder = self.win.settings.value("last_folder", str(Path.home()))
        path, _ = QFileDialog.getOpenFileName(self.win, title, folder, FILTER)
        return path or None

    def preview(self, path: str, kind: str) -> TablePreviewDialog | None:
        """The preview dialog (tests replace ``exec``); None with a message if unreadable."""
        try:
            return TablePreviewDialog(path, kind, self.win)
        except DataError as exc:
            self.win.messages.show_message("error", f"Cannot preview {Path(path).name}: {exc}")
            return None

    def add_view_dialog(self) -> None:
        if (path := self._ask("Add view from file")) and (dlg := self.preview(path, "view")):
            if dlg.exec() == QDialog.DialogCode.Accepted:
                self.add_view(path, **dlg.choices())

    def load_meta_dialog(self) -> None:
        if (path := self._ask("Load metadata")) and (dlg := self.preview(path, "meta")):
            if dlg.exec() == QDialog.DialogCode.Accepted:
                c = dlg.choices()
                self.set_meta(path, c["id_column"], c["label_column"])

    # -- what they do -------------------------------------------------------------------------
    def add_view(self, path: str, *, name: str, id_column: str | None = None,
                 key: str | None = None, missing: str | None = None,
                 shared_only: bool = False, **_: Any) -> Any:  # fmt: skip
        """Add one view to the table dataset on display (or start one) and reload it."""
        spec = current_spec(self.win) or DataSpec(views=[])
        taken = {v.name for v in spec.views}
        base, k = name, 2
        while name in taken:
            name, k = f"{base} {k}", k + 1
        spec.views.append(ViewSource(name, str(path), key))
        spec.id_column = id_column or spec.id_column
        if missing:
            spec.missing = [m for m in spec.missing if not m.startswith(f"{name}=")]
            spec.missing.append(f"{name}={missing}")
        spec.align = "shared" if shared_only else spec.align
        return self.load(spec)

    def set_meta(self, path: str, id_column: str | None, label_column: str | None) -> Any:
        spec = current_spec(self.win)
        if spec is None:
            self.win.messages.show_message(
                "error", "Load the views first (File > Add view from file...), then the metadata."
            )
            return None
        spec.meta, spec.label_column = str(path), label_column
        spec.id_column = id_column or spec.id_column
        return self.load(spec)

    def load(self, spec: DataSpec) -> Any:
        """Load ``spec`` in the loader child; on failure the window says why and keeps its data."""
        for v in spec.views:  # the description file lives elsewhere: absolute paths
            v.path = str(Path(v.path).resolve())
        spec.meta = spec.meta and str(Path(spec.meta).resolve())
        return load_spec_in_child(self.win, spec, lambda res: self.win.set_session(*res))

    def choose_reference(self, column: str | None) -> None:
        """Use a metadata column (None: none) as the reference labels; keeps view choices."""
        session = self.win.session
        if session is None:
            return
        try:
            ds = session.dataset.with_reference_labels(column)
        except DataError as exc:
            self.win.messages.show_message("error", str(exc))
            self.win.dataset_panel.show_reference(session.dataset)
            return
        if "spec" in ds.meta:  # a session saved later reloads the same choice
            ds = replace(ds, meta={**ds.meta, "spec": {**ds.meta["spec"], "label_column": column}})
        shown = self.win.presenter.history
        # the same views: the same token keeps the layouts cached, the same store its maps
        fresh = DataSession(
            ds,
            included=list(session.included),
            methods=list(session.methods),
            chosen=dict(session.chosen),
            auto_rule=session.auto_rule,
            store_dir=session.store_dir,
            token=session.token,
        )
        self.win.set_session(fresh, ds.summary())
        if shown is not None and shown.result is not None and not self.win.controller.running:
            # the run on display stays, its metrics now against the new reference labels
            self.win.presenter.show_history(shown)


def install(win: ToolHost) -> TableImport:
    """File > Add view from file... and Load metadata... (after Open), and the Data dock's
    reference-label choice."""
    tool = TableImport(win)
    add = QAction("Add &view from file...", win)
    add.setStatusTip("Add a CSV/TSV table keyed by sample id (or an .h5ad/.h5mu matrix) as a view")
    add.triggered.connect(tool.add_view_dialog)
    meta = QAction("Load &metadata...", win)
    meta.setStatusTip("A table of sample descriptions matched by id; pick the reference labels")
    meta.triggered.connect(tool.load_meta_dialog)
    menu = win.file_menu
    menu.insertActions(win.recent_menu.menuAction(), [add, meta])
    win.dataset_panel.reference_changed.connect(tool.choose_reference)
    return tool
