"""Loading a file for the window: in a child process, with progress and Cancel.

A :class:`LoadWorker` runs :func:`core.data.open.open_dataset` (the road every command takes,
with the app's policy: files read in a child, large plain arrays mapped in place, files too
big for memory streamed) in a thread. The reader runs in a child process with a time and a
memory limit, so a damaged file that crashes the reader (scipy's MATLAB reader can die of
SIGSEGV), hangs it or makes it allocate terabytes costs only the child. The dataset comes
back memory-mapped, so nothing large is copied on the way. The thread talks to the GUI only
through queued signals; ``stop()`` cancels (the child is killed within 0.1 s).
"""

from __future__ import annotations

import shutil
import traceback
from dataclasses import dataclass, replace

from PySide6.QtCore import QObject, Signal

from core.data.dataset import DataError, MultiViewDataset
from core.data.io import DataSpec
from core.data.isolated_load import DEFAULT_TIMEOUT, LoadCancelled
from core.data.mapped import MAP_ABOVE
from core.data.open import DataSource, OpenPolicy, open_dataset
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
        path = self.path
        source = DataSource(tables=path) if isinstance(path, DataSpec) else DataSource(file=path)
        policy = OpenPolicy(
            isolate=True,  # every file the window reads: a damaged one costs only a child
            stream="auto",
            stream_above=lim.stream_above,
            map_above=lim.map_above,
            store=store,
            timeout=lim.timeout,
            memory=lim.memory,
            child_module=lim.child_module,
        )
        try:
            ds = open_dataset(
                source,
                policy,
                progress=lambda f, what: self._emit(self.progress, f, what),
                cancel=self._stop.is_set,
            )
            how = ds.meta.get("opened_as")
            if how == "streamed":
                self._emit(self.done, self._streamed(ds))
                return False  # no store: the views stay in the file
            if how == "mapped":
                self._mapped(ds)
                return False  # mapped where it is: no store either
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

    def _mapped(self, ds: MultiViewDataset) -> None:
        """A large file stored as plain arrays, mapped in place: shown with a summary of a
        row sample at once, the exact summary (and the NaN/Inf check) after one more pass."""
        from core.data.isolated_stats import exact_summary_isolated
        from core.data.mapped import sampled_summary

        session, first = DataSession(ds), sampled_summary(ds)
        _ = ds.ids, session.n_classes  # made here, not in the window (1M: 0.3 s, 5 ms)
        self._emit(self.done, (session, first))
        if self._stop.is_set():
            return
        try:  # in a child: its pass would hold this interpreter's lock against the GUI
            exact = exact_summary_isolated(self.path, cancel=self._stop.is_set)
        except DataError as exc:  # the NaN/Inf check deferred at opening
            exact = {**first, "warnings": [*ds.warnings, f"{exc}: runs will refuse these views"]}
        if exact is not None:
            self._emit(self.summary_ready, session, exact)

    def _streamed(self, ds: MultiViewDataset) -> tuple[DataSession, dict]:
        """A file whose views would not fit in memory, opened with row-block views (only
        labels, ids and metadata were read): summarised in one pass per view, in a child."""
        from core.data.isolated_stats import column_stats_isolated

        self._emit(self.progress, 0.0, "opening in row blocks: " + ds.meta["stream_reason"])
        # one pass per view in a child (the statistics are kept on the views for the runs)
        if not column_stats_isolated(ds, self.path, cancel=self._stop.is_set):
            raise LoadCancelled("cancelled during the pass over the views")
        summary = ds.summary()
        session = DataSession(ds)
        _ = ds.ids, session.n_classes  # made here, not in the window (1M: 0.3 s, 5 ms)
        return session, summary
