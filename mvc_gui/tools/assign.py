"""File > Assign new samples...: put the samples of another file into the clusters of the
run on display (``core.records.prediction_file.PredictionModel``: the run's preprocessing
statistics and anchor-graph reference), and write their labels CSV.

Loading and assigning run in a :class:`~mvc_gui.run.workers.TaskWorker`; the result is
written atomically; errors (other features, no run) land in the message bar.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog

from core.data.dataset import MultiViewDataset
from core.records.prediction_file import PredictionModel
from core.records.runs import write_labels_csv
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


def _load_and_assign(model: PredictionModel, path: str, out: str) -> tuple[str, np.ndarray]:
    from core.data.io import load_dataset

    ds: MultiViewDataset = load_dataset(path)
    labels = model.predict(ds)
    write_labels_csv(out, labels, ds.labels, ds.ids.tolist(), ds.class_names)
    return out, labels


def assign_file(host: ToolHost, model: PredictionModel, path: str, out: str) -> TaskWorker:
    """Assign the samples of ``path`` in the background and write their labels to ``out``."""
    worker = TaskWorker(_load_and_assign, model, path, out, parent=host)

    def done(res: tuple[str, np.ndarray]) -> None:
        written, labels = res
        sizes = np.bincount(labels).tolist()
        host.stage_label.setText(f"Assigned {labels.size} samples {sizes}; wrote {written}")

    worker.done.connect(done)
    worker.failed.connect(
        lambda msg, det: host.messages.show_message("error", f"Assign new samples: {msg}", det)
    )
    worker.start()
    return worker
