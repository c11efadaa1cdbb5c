"""File > Export HTML report...: the run as one self-contained HTML page (``core.records.report``).

The embedding and anchor-graph plots are grabbed as PNG on the GUI thread (a widget can only
be painted there; it takes milliseconds). The dataset summary, the page and the atomic
write run in a :class:`~mvc_gui.run.workers.TaskWorker`, because summarising a large dataset
reads all of it. Failures land in the message bar; nothing is written half-way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QBuffer, QIODevice
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

from core.records.profiles_table import profile_rows, profiles_html
from core.records.report import ReportFigure, write_report
from mvc_gui.model.palette import cluster_colors, hex_color
from mvc_gui.run.workers import TaskWorker
from mvc_gui.tools.host import ToolHost

__all__ = ["export_report", "grab_png", "install", "window_figures"]


def install(host: ToolHost) -> QAction:
    """Add File > Export HTML report... (before Quit); returns the action."""
    act = QAction("Export HTML &report...", host)
    tip = "A self-contained HTML page: data, method, parameters, seed, metrics and figures"
    act.setStatusTip(tip)
    act.setToolTip(tip)
    act.triggered.connect(lambda _=False: export_report(host))
    host.file_menu.insertAction(host.quit_separator, act)
    return act


def grab_png(widget: QWidget) -> bytes:
    """The widget as it is drawn on screen, as PNG bytes."""
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not widget.grab().save(buffer, "PNG"):
        raise OSError("could not encode the plot as PNG")
    return bytes(buffer.data())


def window_figures(win: ToolHost) -> list[ReportFigure]:
    """The plots the report cannot draw itself: the embedding and the anchor graph."""
    figures = []
    emb = win.plots["embedding"]
    if emb.xy is not None:
        note = " (layout still being computed)" if win.embedder.busy else ""
        caption = f"{emb.description()}{note}."
        figures.append(ReportFigure("Embedding", grab_png(emb.view), caption, emb.view.width()))
    heat = win.plots["heatmap"]
    if heat.heat is not None:
        caption = (
            "Rows are samples sorted by cluster (averaged to at most 1,000 "
            "display rows), columns are anchors sorted by their dominant cluster."
        )
        figures.append(
            ReportFigure("Anchor graph", grab_png(heat.view), caption, heat.view.width())
        )
    return figures


def _same_data(result: Any, session: Any) -> bool:
    """Is the loaded dataset the one the run used? (Loading a file keeps the last run.)"""
    ds = session.dataset if session is not None else None
    rec = result.dataset
    return (
        ds is not None
        and rec.get("source") == ds.source
        and rec.get("name") == ds.name
        and int(result.labels.size) == ds.n_samples
    )


def _build_and_write(path: str, result: Any, dataset: Any, figures: list, colors: list) -> str:
    """Runs in the worker thread: summary (reads the data), page, atomic write."""
    summary = dataset.summary() if dataset is not None else None
    section = profiles_html(profile_rows(dataset, result.labels)) if dataset is not None else ""
    write_report(path, result, summary, figures, cluster_colors=colors, profiles_section=section)
    return path


def export_report(win: ToolHost, path: str | None = None) -> TaskWorker | None:
    """Ask for a path (unless given), grab the plots and write the report in the background."""
    result = win.current_result()
    if result is None:
        return None
    if not path:
        name = f"{win.file_stem()}_report.html"
        path = win.ask_save_path("Export HTML report", name, "HTML (*.html *.htm)")
    if not path:
        return None
    dataset, figures = None, []
    if _same_data(result, win.session):
        dataset = win.session.dataset
        try:
            figures = window_figures(win)
        except OSError as exc:
            win.messages.show_message("warning", f"The plots were left out of the report: {exc}")
    else:
        win.messages.show_message(
            "warning",
            "Another dataset is loaded: the report describes the last run with its own record, "
            "without the data details and the plots.",
        )
    k = int(result.labels.max()) + 1 if result.labels.size else 1
    colors = [hex_color(c) for c in cluster_colors(k)]
    worker = TaskWorker(_build_and_write, path, result, dataset, figures, colors, parent=win)
    worker.done.connect(lambda p: _on_written(win, p))
    worker.failed.connect(lambda msg, details: _on_failed(win, path, msg, details))
    win.stage_label.setText(f"Writing {Path(path).name}...")
    worker.start()
    return worker


def _on_written(win: ToolHost, path: str) -> None:
    win.settings.setValue("last_folder", str(Path(path).parent))
    win.stage_label.setText(f"Wrote {path}")


def _on_failed(win: ToolHost, path: str, message: str, details: str) -> None:
    win.stage_label.setText("The report was not written.")
    win.messages.show_message("error", f"Could not write the report {path}: {message}", details)
