"""Loading a file for the window: in a child process, with progress and Cancel.

A :class:`LoadWorker` runs :func:`core.data.isolated_load.load_isolated` in a thread: the
reader itself runs in a child process with a time and a memory limit, so a damaged file that
crashes the reader (scipy's MATLAB reader can die of SIGSEGV), hangs it or makes it allocate
terabytes costs only the child. The dataset comes back memory-mapped, so nothing large is
copied on the way. The thread talks to the GUI only through queued signals; ``stop()``
cancels (the child is killed within 0.1 s).
"""

from __future__ import annotations

import shutil
import traceback
from dataclasses import dataclass, replace

from PySide6.QtCore import QObject, Signal

from core.data.dataset import DataError
from core.data.io import DataSpec
from core.data.isolated_load import DEFAULT_TIMEOUT, LoadCancelled, load_isolated
from core.data.mapped import MAP_ABOVE
from core.data.store import read_summary
from mvc_gui.model.data_session import DataSession
from mvc_gui.model.data_stores import new_store_dir
from mvc_gui.run.workers import _ThreadWorker

__all__ = ["LoadLimits", "LoadWorker"]


@dataclass
class LoadLimits:
    """How long and how much memory a reader child may take. ``child_module`` replaces the
    reader (tests use one that crashes or hangs); ``memory="auto"`` is 80 % of the RAM."""

    timeout: float = DEFAULT_TIMEOUT
    memory: int | str | None = "auto"
    child_module: str = "core.data.isolated_load"
    #: views taking more bytes than this as float64 are read in row blocks (out-of-core);
    #: None: half the available RAM (core.data.streamed.stream_reason)
    stream_above: int | None = None
    #: files of more bytes whose views are plain arrays are memory-mapped in place (no reader
    #: child, no store copy; core.data.mapped); None: always the reader child
    map_above: int | None = MAP_ABOVE


class LoadWorker(_ThreadWorker):
    """Reads ``path`` in a child; ``progress(fraction, what)``, then exactly one of
    ``done((DataSession, summary))``, ``failed(message, details)`` or ``cancelled()``."""

    progress = Signal(float, str)
    done = Signal(object)
    #: (session, exact summary) after a memory-mapped open answered with a sampled one
    summary_ready = Signal(object, object)
    failed = Signal(str, str)
    cancelled = Signal()

    def __init__(
        self, path: str | DataSpec, limits: LoadLimits, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.path = path
        self.limits = replace(limits)  # a copy: later changes are for later loads

    def _main(self) -> None:
        # the store outlives the load: the solver and layout children map its files (one copy
        # of the data for all processes); the window removes it when the data is replaced
        store = new_store_dir()
        if not self._load(store):
            shutil.rmtree(store, ignore_errors=True)

    def _load(self, store: str) -> bool:
        """True when the data was handed over (the store is then the session's)."""
        lim = self.limits
        try:
            streamed = self._streamed()
            if streamed is not None:
                self._emit(self.done, streamed)
                return False  # no store: the views stay in the file
            if self._mapped():
                return False  # mapped where it is: no store either
            ds = load_isolated(
                self.path,
                timeout=lim.timeout,
                memory=lim.memory,
                progress=lambda f, what: self._emit(self.progress, f, what),
                cancel=self._stop.is_set,
                child_module=lim.child_module,
                store=store,
            )
            # the child summarised the data: here it would be a pass over all of it
            result = (DataSession(ds, store_dir=store), read_summary(store) or ds.summary())
            _ = ds.ids, result[0].n_classes  # made here, not in the window (1M: 0.3 s, 5 ms)
        except LoadCancelled:
            self._emit(self.cancelled)
        except Exception as exc:  # DataError mostly; anything else is shown, not raised
            self._emit(self.failed, str(exc), traceback.format_exc())
        else:
            if self._stop.is_set():  # cancelled just as it finished
                self._emit(self.cancelled)
            else:
                self._emit(self.done, result)
                return True
        return False

    def _mapped(self) -> bool:
        """A large file stored as plain arrays: mapped in place, shown with a summary of a
        row sample at once, the exact summary (and the NaN/Inf check) after one more pass."""
        if isinstance(self.path, DataSpec) or self.limits.map_above is None:
            return False
        from core.data.isolated_stats import exact_summary_isolated
        from core.data.mapped import open_mapped, sampled_summary

        ds = open_mapped(self.path, self.limits.map_above)
        if ds is None:
            return False
        session, first = DataSession(ds), sampled_summary(ds)
        _ = ds.ids, session.n_classes  # made here, not in the window (1M: 0.3 s, 5 ms)
        self._emit(self.done, (session, first))
        if self._stop.is_set():
            return True
        try:  # in a child: its pass would hold this interpreter's lock against the GUI
            exact = exact_summary_isolated(self.path, cancel=self._stop.is_set)
        except DataError as exc:  # the NaN/Inf check deferred at opening
            exact = {**first, "warnings": [*ds.warnings, f"{exc}: runs will refuse these views"]}
        if exact is not None:
            self._emit(self.summary_ready, session, exact)
        return True

    def _streamed(self) -> tuple[DataSession, dict] | None:
        """A file whose views would not fit in memory: opened with row-block views (only
        labels, ids and metadata are read), summarised in one pass per view; else None."""
        if isinstance(self.path, DataSpec):
            return None
        from core.data.isolated_stats import column_stats_isolated
        from core.data.streamed import open_streamed, stream_reason, with_note, worth_checking

        threshold = self.limits.stream_above
        if not worth_checking(self.path, threshold) or self._stop.is_set():
            return None
        reason = stream_reason(self.path, threshold=threshold)
        if reason is None:
            return None
        self._emit(self.progress, 0.0, "opening in row blocks: " + reason)
        ds = with_note(open_streamed(self.path), reason)
        # one pass per view in a child (the statistics are kept on the views for the runs)
        if not column_stats_isolated(ds, self.path, cancel=self._stop.is_set):
            raise LoadCancelled("cancelled during the pass over the views")
        summary = ds.summary()
        session = DataSession(ds)
        _ = ds.ids, session.n_classes  # made here, not in the window (1M: 0.3 s, 5 ms)
        return session, summary
