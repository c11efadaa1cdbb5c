"""EmbeddingController: one layout worker at a time, a cache per dataset+representation+method.

By default the layout is computed in a child process (``mvc_gui.run.embedding_process``), so
openTSNE's GIL-holding code cannot stall the window; ``MVC_GUI_SOLVER=thread`` keeps it in
a thread. The layout depends only on the data (included views + preprocessing), never on the run,
so re-colouring never recomputes it. Intermediate layouts are forwarded at most every
``interval_ms`` (longer for large n) and the final one always. ``method`` picks t-SNE (exact
up to 20,000 samples, the large layout above) or UMAP (when umap-learn is installed).
"""

from __future__ import annotations

import time
from collections import OrderedDict

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal

from core.numerics.layout import LARGE_ITER, SUBSAMPLE_ITER, layout_kind
from mvc_gui.model.data_session import DataSession
from mvc_gui.run.slots import weak_slot
from mvc_gui.run.solver_process import SolverServer, process_mode_default
from mvc_gui.run.workers import EmbeddingWorker, ProcessEmbeddingWorker, layout_key

__all__ = ["EmbeddingController", "layout_status"]

CACHE_SIZE = 8  # all views and a few single views of one dataset
#: layouts of at least this many samples wait while a run computes (set_held)
HOLD_ABOVE = 100_000


def layout_status(kind: str, n: int, iteration: int | None = None) -> str:
    """Status-bar text for a layout of ``kind`` (``layout_kind``) at a frame's iteration."""
    if kind == "umap":
        if iteration is None:
            return f"Computing layout (UMAP of {n:,} samples)..."
        return f"Computing layout: UMAP of all {n:,} samples (shown: a subsample's, all placed)"
    if kind == "tsne":
        it = "" if iteration is None else f": iteration {iteration}/{SUBSAMPLE_ITER}"
        return f"Computing layout (t-SNE{it})..."
    if iteration is None:
        return f"Computing layout (t-SNE of a 2,500-sample subsample, all {n:,} placed)..."
    if iteration < SUBSAMPLE_ITER:
        return (
            f"Computing layout: t-SNE of a 2,500-sample subsample, all {n:,} placed: "
            f"iteration {iteration}/{SUBSAMPLE_ITER}"
        )
    if iteration == SUBSAMPLE_ITER:
        return f"Computing layout: finding the nearest neighbours of all {n:,} samples..."
    done = iteration - SUBSAMPLE_ITER
    return f"Computing layout: t-SNE of all {n:,} samples: iteration {done}/{LARGE_ITER}"


class EmbeddingController(QObject):
    layout_updated = Signal(object, bool)  # (n x 2 layout, final)
    status_changed = Signal(str)
    failed = Signal(str, str)

    def __init__(self, parent: QObject | None = None, *, use_process: bool | None = None):
        super().__init__(parent)
        self.use_process = process_mode_default() if use_process is None else use_process
        self.cache: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self._worker: EmbeddingWorker | None = None
        self._retired: list[EmbeddingWorker] = []
        self._last_draw = 0.0
        self.interval_ms = 80
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._on_worker_frame_ready)
        self.busy = False
        self._pending: tuple[DataSession, int | None] | None = None
        self.method = "tsne"  # or "umap"
        self._kind, self._n = "tsne", 0
        self._last: tuple[DataSession, int | None] | None = None
        self._held = False  # a run computes: large layouts wait (set_held)

    def set_held(self, held: bool) -> None:
        """While a run computes (``held``), a layout of at least :data:`HOLD_ABOVE` samples
        waits at its next frame: on two cores the solver and the layout child shared them
        (the clusters come first; points already placed stay on screen). The passes up to
        the first frame go on, so the points appear as early as before."""
        self._held = held
        if self._worker is not None:
            self._worker.hold(held and self._n >= HOLD_ABOVE)

    def set_method(self, method: str) -> None:
        """Switch between "tsne" and "umap"; the last requested layout is shown again."""
        if method == self.method:
            return
        self.method = method
        if self._last is not None:
            self.request(*self._last)

    def request(self, session: DataSession, view: int | None = None) -> None:
        """Show the layout of this session's representation (cached or computed); with
        ``view``, of that view of the dataset alone (included or not)."""
        self.cancel()
        self._last = (session, view)
        key = layout_key(session, view, self.method)
        if key in self.cache:
            self.cache.move_to_end(key)
            self.status_changed.emit("")
            self.layout_updated.emit(self.cache[key], True)
            return
        if self.use_process and self._retired:
            # one child, one reader: start once the cancelled layout's thread has ended
            self._pending = (session, view)
            self.busy = True
            self.status_changed.emit("Computing layout...")
            return
        self._start(session, view)

    def _start(self, session: DataSession, view: int | None = None) -> None:
        n = session.dataset.n_samples
        # a frame of 1M points costs the window ~0.2-0.5 s to draw: fewer frames at that size
        self.interval_ms = 80 if n < 20_000 else 200 if n < 200_000 else 2000
        if self.use_process:
            server = SolverServer.shared("mvc_gui.run.embedding_process")
            worker = ProcessEmbeddingWorker(
                session, server, parent=self, view=view, method=self.method
            )
        else:
            worker = EmbeddingWorker(session, parent=self, view=view, method=self.method)
        # plain functions holding this controller weakly: see RunController._launch_pending
        worker.frame_ready.connect(weak_slot(self, lambda c: c._on_worker_frame_ready()))
        worker.ended.connect(
            weak_slot(self, lambda c, key, xy, err: c._on_worker_ended(worker, key, xy, err))
        )
        self._worker = worker
        self.busy = True
        self._kind, self._n = layout_kind(n, self.method), n
        worker.hold(self._held and n >= HOLD_ABOVE)
        self.status_changed.emit(layout_status(self._kind, n))
        worker.start()

    def cancel(self) -> None:
        self._pending = None
        worker, self._worker = self._worker, None
        self._timer.stop()
        self.busy = False
        if worker is not None:
            worker.stop()
            self._retired.append(worker)
        self._retired = [w for w in self._retired if w.is_alive()]

    def shutdown(self, timeout: float = 3.0) -> bool:
        self.cancel()
        ok = all(w.join(timeout) for w in self._retired)
        self._retired = []
        return ok

    def _on_worker_frame_ready(self) -> None:
        worker = self._worker
        if worker is None:
            return
        wait = self.interval_ms - (time.perf_counter() - self._last_draw) * 1000
        if wait > 0:
            if not self._timer.isActive():
                self._timer.start(int(wait) + 1)
            return
        frame = worker.latest()
        if frame is not None:
            self._last_draw = time.perf_counter()
            iteration, layout = frame
            self.status_changed.emit(layout_status(self._kind, self._n, iteration))
            self.layout_updated.emit(layout, False)

    def _on_worker_ended(
        self, worker: EmbeddingWorker, key: tuple, layout: np.ndarray | None, error: str
    ) -> None:
        worker.deleteLater()
        if worker is not self._worker:
            self._retired = [w for w in self._retired if w is not worker and w.is_alive()]
            if self._pending is not None and not self._retired:
                (session, view), self._pending = self._pending, None
                self._start(session, view)
            return
        self._worker = None
        self._timer.stop()
        self.busy = False
        if layout is not None:
            self.cache[key] = layout
            while len(self.cache) > CACHE_SIZE:
                self.cache.popitem(last=False)
            self.status_changed.emit("")
            self.layout_updated.emit(layout, True)
        elif error:
            self.status_changed.emit("Layout failed.")
            message, _, details = error.partition("\n\n")
            self.failed.emit(f"The embedding could not be computed: {message}", details)
