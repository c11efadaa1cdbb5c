"""File > Save session... / Open session...: the window's state to and from a session file.

Saving captures the data source, view selection, preprocessing, method, parameters, the
runs of the current data and the named groups (``core.records.session_file``), written
atomically. Opening reads and
checks the file in a worker thread and loads the data in a child process (as every file the
window reads); only when both succeeded does it touch the window: the dataset is set with the
saved view choices, then the method, parameters, run list and groups are restored. Any error before
that leaves the window as it was.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog

from core.data.io.aligned import DataSpec
from core.methods import REGISTRY
from core.records.session_file import (
    DataSource,
    SessionFileError,
    SessionState,
    StoredGroup,
    StoredRun,
    load_session,
    resolve_data_path,
    save_session,
)
from mvc_gui.model.data_session import (
    PREPROCESSORS,
    DataSession,
    load_demo,
    make_synthetic,
)
from mvc_gui.model.run_entries import RunEntry, data_key
from mvc_gui.model.run_history import LIVE_METRICS, RunHistory
from mvc_gui.run.workers import TaskWorker
from mvc_gui.tools.host import ToolHost
from mvc_gui.tools.runs import RunListPanel
from mvc_gui.tools.table_import import load_spec_in_child

__all__ = ["SessionIO", "entry_from_stored", "install", "stored_from_entry"]

FILTER = "MVC Studio session (*.mvcs.json *.json);;All files (*)"


def stored_from_entry(entry: RunEntry) -> StoredRun:
    h = entry.history
    return StoredRun(
        number=entry.number,
        result=entry.result,
        seconds=entry.seconds,
        iterations=list(h.iterations),
        objective=list(h.objective),
        metric_iterations=list(h.metric_iterations),
        metric_curves={k: list(v) for k, v in h.metrics.items()},
    )


def entry_from_stored(run: StoredRun, session: DataSession) -> RunEntry:
    """A run list entry for a stored run of ``session``'s data (no heat map: not stored)."""
    result = run.result
    result.true_labels = session.labels
    # the data may have been found through the relative path: record where it is now
    result.dataset = {**result.dataset, "source": session.dataset.source,
                      "n_samples": session.dataset.n_samples}  # fmt: skip
    h = RunHistory(-run.number, result.method, result.params)
    h.iterations, h.objective = list(run.iterations), list(run.objective)
    curves = {k: list(run.metric_curves.get(k, [])) for k in LIVE_METRICS}
    if all(len(v) == len(run.metric_iterations) for v in curves.values()):
        h.metric_iterations, h.metrics = list(run.metric_iterations), curves
    h.labels = h.solver_labels = result.labels
    h.result = result
    return RunEntry(run.number, h, run.seconds)


def _source_of(session: DataSession) -> DataSource:
    ds = session.dataset
    src = DataSource("file", ds.name, ds.n_samples, list(ds.view_names))
    if ds.sample_ids is not None:
        src.sample_ids = ds.sample_ids.tolist()
    if "spec" in ds.meta:  # views from table files aligned by id (tools/table_import.py)
        src.kind, src.spec = "tables", dict(ds.meta["spec"])
        return src
    if ds.source.startswith("demo:"):
        name = ds.source.removeprefix("demo:")
        src.kind = "demo"
        if (
            name == "synthetic"
        ):  # the GUI's synthetic sets (mvc_gui.model.data_session.make_synthetic)
            src.demo = f"synthetic-{ds.n_samples}"
            src.synthetic = {"n": ds.n_samples, "dims": ds.dims, "c": ds.n_classes or 1, "seed": 0}
        else:
            src.demo = name
        return src
    if not ds.source or not Path(ds.source).exists():
        raise SessionFileError(
            f"the data was not loaded from a file or a demo (source {ds.source!r}), so a "
            "session cannot refer to it"
        )
    src.path = str(Path(ds.source).resolve())
    return src


def _load_synthetic(params: dict[str, Any]) -> tuple[DataSession, dict]:
    ds = make_synthetic(int(params["n"]), tuple(params["dims"]), int(params["c"]), params["seed"])
    return DataSession(ds), ds.summary()


class SessionIO(QObject):
    """Save / open session files for one window. ``saved(path)`` once written;
    ``restored(warnings)`` once a session is fully restored; ``failed(message)`` when
    opening failed (the window is unchanged)."""

    restored = Signal(list)
    failed = Signal(str)
    saved = Signal(str)

    def __init__(self, win: ToolHost, runs: RunListPanel) -> None:
        super().__init__(win)
        self.win, self.runs = win, runs
        self._workers: list[TaskWorker] = []

    # -- saving -----------------------------------------------------------------------------------
    def capture(self) -> tuple[SessionState, int]:
        """The window's state; also how many runs were left out (made on other data)."""
        win = self.win
        session = win.session
        if session is None:
            raise SessionFileError("load a dataset first: a session starts from data")
        entries = list(self.runs.entries)
        here = data_key(session.dataset.source, session.dataset.n_samples)
        kept = [e for e in entries if e.data == here]
        state = SessionState(
            source=_source_of(session),
            included=list(session.included),
            preprocessing=list(session.methods),
            method=win.method_panel.method,
            params=win.method_panel.params(),
            runs=[stored_from_entry(e) for e in kept],
            groups=[StoredGroup(g.name, g.indices, g.colour) for g in win.groups],
        )
        return state, len(entries) - len(kept)

    def save_dialog(self) -> None:
        name = self.win.session.dataset.name if self.win.session else "session"
        if path := self.win.ask_save_path("Save session", f"{name}.mvcs.json", FILTER):
            self.save(path)

    def save(self, path: str) -> TaskWorker | None:
        """Capture the state now and write it in a worker (encoding many large labellings
        takes a while); ``saved(path)`` when written. None if there is nothing to save."""
        try:
            state, left_out = self.capture()
        except SessionFileError as exc:
            self.win.messages.show_message("error", f"Cannot save the session: {exc}.")
            return None
        self.win.stage_label.setText(f"Saving the session to {path}...")
        return self._start(
            save_session,
            path,
            state,
            done=lambda _p: self._on_saved(path, len(state.runs), left_out),
            failed=lambda msg, det: self.win.messages.show_message(
                "error", f"Could not write the session {path}: {msg}", det
            ),
        )

    def _on_saved(self, path: str, n_runs: int, left_out: int) -> None:
        self.win.settings.setValue("last_folder", str(Path(path).parent))
        text = f"Saved the session with {n_runs} runs to {path}"
        if left_out:
            self.win.messages.show_message(
                "warning", f"{text}; {left_out} runs made on other data were not saved."
            )
        self.win.stage_label.setText(text + ".")
        self.saved.emit(path)

    # -- opening ----------------------------------------------------------------------------------
    def open_dialog(self) -> None:
        folder = self.win.settings.value("last_folder", str(Path.home()))
        path, _ = QFileDialog.getOpenFileName(self.win, "Open session", folder, FILTER)
        if path:
            self.open(path)

    def open(self, path: str) -> TaskWorker:
        """Read and check the file in a worker, then load its data (another worker)."""
        self.win.stage_label.setText(f"Opening session {Path(path).name}...")
        return self._start(
            _read,
            path,
            done=lambda res: self._on_read(path, *res),
            failed=lambda msg, det="": self._fail(msg, det, path),
        )

    def _start(self, fn, *args, done, failed=None) -> TaskWorker:
        worker = TaskWorker(fn, *args, parent=self)
        worker.done.connect(done)
        worker.failed.connect(failed or self._fail)
        self._workers = [w for w in self._workers if w.is_alive()] + [worker]
        worker.start()
        return worker

    def _fail(self, message: str, details: str = "", path: str = "") -> None:
        keep = " The current data and runs stay as they were." if self.win.session else ""
        name = Path(path).name if path else ""
        # the message names the file: the reader's words alone ("'utf-8' codec can't
        # decode byte 0x9c") said neither which file nor that it is no session file
        which = f" {name}" if name and not message.startswith(name) else ""
        self.win.messages.show_message(
            "error", f"Could not open the session{which}: {message}.{keep}", details
        )
        self.win.stage_label.setText("Ready.")
        self.failed.emit(message)

    def _on_read(self, path: str, state: SessionState, data_path: Path | None) -> None:
        src = state.source
        if data_path is not None:
            self.win.load_file(  # in a child process, like every file the window reads
                str(data_path),
                lambda res: self._on_data(state, res, str(data_path)),
                failed=self.failed.emit,
            )
        elif src.spec is not None:
            spec = DataSpec.from_dict(src.spec)
            load_spec_in_child(self.win, spec, lambda res: self._on_data(state, res),
                               failed=self.failed.emit)  # fmt: skip
        elif src.synthetic is not None:
            self._start(_load_synthetic, src.synthetic, done=lambda res: self._on_data(state, res))
        else:
            self._start(load_demo, src.demo, done=lambda res: self._on_data(state, res))
        self.win.stage_label.setText(f"Loading the data of {Path(path).name}...")

    def _on_data(self, state: SessionState, res: tuple, label: str | None = None) -> None:
        session, summary = res
        ds = session.dataset
        warnings = []
        same_views = ds.n_views == len(state.included)
        if same_views:
            session.included = list(state.included)
            session.methods = [m if m in PREPROCESSORS else "auto" for m in state.preprocessing]
        self.win.set_session(session, summary, path=label)
        self._restore_method(state, warnings)
        runs = f"its {len(state.runs)} runs were not restored"
        same_ids = state.source.sample_ids is None or state.source.sample_ids == ds.ids.tolist()
        same_data = same_views and ds.n_samples == state.source.n_samples and same_ids
        if not same_views:
            warnings.append(
                f"the data has {ds.n_views} views, the session {len(state.included)}: view "
                f"choices not restored and {runs}"
            )
        elif ds.n_samples != state.source.n_samples:
            warnings.append(
                f"the data changed since the session was saved ({state.source.n_samples:,} "
                f"samples then, {ds.n_samples:,} now): {runs}"
            )
        elif not same_ids:
            warnings.append(f"the samples' ids or their order changed since the session: {runs}")
        else:
            self.runs.set_entries([entry_from_stored(r, session) for r in state.runs])
            self._restore_groups(state)
        if state.groups and not same_data:  # their indices point into the data then
            warnings.append(f"its {len(state.groups)} named groups were not restored")
        if warnings:
            self.win.messages.show_message("warning", "Session opened, but " + "; ".join(warnings))
        self.win.stage_label.setText(f"Session restored: {ds.name}, {len(state.runs)} runs.")
        self.restored.emit(warnings)

    def _restore_groups(self, state: SessionState) -> None:
        """The session's named groups replace the window's (the data is the same)."""
        groups = self.win.groups
        groups.groups.clear()
        for g in state.groups:
            groups.add(g.name, g.indices, g.colour)
        self.win.groups_changed.emit()

    def _restore_method(self, state: SessionState, warnings: list[str]) -> None:
        if state.method is None:
            return
        panel = self.win.method_panel
        if state.method not in REGISTRY:
            warnings.append(f"the method '{state.method}' is not available here")
            return
        panel.set_method(state.method)
        panel.set_params(state.params)
        dropped = sorted(set(state.params) - set(panel.params()))
        if dropped:
            warnings.append(f"unknown parameters ignored: {', '.join(dropped)}")


def _read(path: str) -> tuple[SessionState, Path | None]:
    """Worker: parse and check the file, and find its data file (errors name the path)."""
    state = load_session(path)
    if state.source.kind == "file":
        return state, resolve_data_path(state.source, path)
    return state, None


def install(win: ToolHost, runs: RunListPanel) -> SessionIO:
    """File > Save session... and Open session..., before Quit; sessions keep ``runs``' entries."""
    io = SessionIO(win, runs)
    save = QAction("Save sessio&n...", win)
    save.setStatusTip("Save the data source, view choices, method, parameters and the runs")
    save.triggered.connect(io.save_dialog)
    load = QAction("Open sess&ion...", win)
    load.setStatusTip("Reopen a saved session: its data, choices and runs")
    load.triggered.connect(io.open_dialog)
    win.file_menu.insertAction(win.quit_separator, load)
    win.file_menu.insertAction(win.quit_separator, save)
    return io
