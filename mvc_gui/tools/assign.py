"""File > Assign new samples...: put the samples of another file into the clusters of the
run on display (``core.records.prediction_file.PredictionModel``: the run's preprocessing
statistics and anchor-graph reference), and write their labels CSV.

The file is read in the window's loader child, assigning runs in a
:class:`~mvc_gui.run.workers.TaskWorker`; the result is
written atomically; errors (other features, no run) land in the message bar.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog

from core.data.dataset import MultiViewDataset
from core.records.prediction_file import PredictionModel
from core.records.runs import write_labels_csv
from mvc_gui.run.load_worker import LoadWorker
from mvc_gui.run.workers import TaskWorker
from mvc_gui.tools.host import ToolHost

__all__ = ["assign_file", "install"]

FILE_FILTER = "Multi-view data (*.mat *.npz *.csv);;All files (*)"


def install(host: ToolHost) -> QAction:
    """Add File > Assign new samples... (before Quit); returns the action."""
    act = QAction("&Assign new samples...", host)
    tip = "Put the samples of another file (same views and features) into this run's clusters"
    act.setStatusTip(tip)
    act.setToolTip(tip)
    act.triggered.connect(lambda _=False: _ask_and_assign(host))
    host.file_menu.insertAction(host.quit_separator, act)
    return act


def _ask_and_assign(host: ToolHost) -> TaskWorker | None:
    history = host.presenter.history
    if history is None or getattr(history, "prediction", None) is None:
        host.messages.show_message(
            "error", "Assign new samples: finish a run first (on complete views)."
        )
        return None
    path, _ = QFileDialog.getOpenFileName(host, "Assign new samples", "", FILE_FILTER)
    if not path:
        return None
    out = host.ask_save_path("Save their labels", f"{Path(path).stem}_assigned.csv", "CSV (*.csv)")
    return assign_file(host, history.prediction, path, out) if out else None


def _assign_and_write(
    model: PredictionModel, ds: MultiViewDataset, out: str
) -> tuple[str, np.ndarray]:
    labels = model.predict(ds)
    write_labels_csv(out, labels, ds.labels, ds.ids.tolist(), ds.class_names)
    return out, labels


def assign_file(host: ToolHost, model: PredictionModel, path: str, out: str) -> LoadWorker:
    """Read ``path`` in the window's loader child (a damaged file costs only the child), then
    assign its samples in the background and write their labels to ``out``."""

    def failed(msg: str, det: str = "") -> None:
        host.messages.show_message("error", f"Assign new samples: {msg}", det)

    def assigned(res: tuple[str, np.ndarray]) -> None:
        written, labels = res
        sizes = np.bincount(labels).tolist()
        host.stage_label.setText(f"Assigned {labels.size} samples {sizes}; wrote {written}")
        said = f"Assigned {labels.size} samples; reference points: {model.assigner.source}."
        host.stage_label.setToolTip(said)
        host.messages.show_message("info", said)

    def loaded(res: tuple) -> None:
        session = res[0]
        worker = TaskWorker(_assign_and_write, model, session.dataset, out, parent=host)
        worker.done.connect(assigned)
        worker.failed.connect(failed)
        if session.store_dir:  # the maps stay valid once open (POSIX); nobody else needs it
            worker.done.connect(lambda _r: shutil.rmtree(session.store_dir, ignore_errors=True))
        worker.start()

    return host.load_file(path, loaded)
