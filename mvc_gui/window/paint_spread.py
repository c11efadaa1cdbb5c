"""PaintSpreader: a live run's panel updates, one per event-loop pass.

Qt paints every dirty widget of a window in one pass. When an iteration changes the curves,
the labels (embedding, legend, confusion) and the heat map together, that pass painted all
of them: at 1M samples on two busy cores 50 ms of the window's CPU in one go (pyqtgraph's
axes and text), the longest stall of the run. Deferred by SPREAD_MS each, they paint in
separate passes with input handled in between. GUI thread only.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

__all__ = ["SPREAD_MS", "PaintSpreader"]

#: between two deferred updates: long enough for the previous pass to paint first (a
#: zero-delay timer can run before the posted paint request); well under the controller's
#: ~66 ms between two iterations shown
SPREAD_MS = 25


class PaintSpreader(QObject):
    """Updates keyed by panel; a newer update of a panel replaces its pending one."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pending: dict[str, Callable[[], None]] = {}
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SPREAD_MS)
        self._timer.timeout.connect(self._run_next)

    def defer(self, key: str, update: Callable[[], None]) -> None:
        self._pending.pop(key, None)  # keep the arrival order of the newest
        self._pending[key] = update
        if not self._timer.isActive():
            self._timer.start()

    @property
    def pending(self) -> tuple[str, ...]:
        return tuple(self._pending)

    def flush(self) -> None:
        """Run every pending update now (the run ended: its final state is drawn at once)."""
        self._timer.stop()
        while self._pending:
            self._pending.pop(next(iter(self._pending)))()

    def discard(self) -> None:
        """Drop pending updates (another run or a stored one takes over the plots)."""
        self._timer.stop()
        self._pending.clear()

    def _run_next(self) -> None:
        if self._pending:
            self._pending.pop(next(iter(self._pending)))()
        if self._pending:
            self._timer.start()
