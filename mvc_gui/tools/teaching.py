"""Teaching dock: the current method explained step by step, Step, and run playback.

Top: the method's explanation (goal, main formula, its steps in run order, what to watch,
where our solver differs from the paper), with the step being executed highlighted live
(``run_started`` / ``iteration_done`` of the controller), and one line on the step just
executed. Bottom: playback of the recorded snapshots of a finished, stopped or paused run
(slider, first / previous / play / next / last, speed); moving the slider shows that
iteration in every plot through :meth:`RunPresenter.show_snapshot`; **Live** (or a new run)
returns to the run's own state. ``install(win)`` adds the dock (hidden until Tools >
Teaching mode or View > Teaching mode).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QStyle,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from mvc_gui.model.playback import SPEEDS
from mvc_gui.model.run_history import RunHistory
from mvc_gui.model.teaching_texts import describe_state, method_text, render_header, render_html
from mvc_gui.tools.host import ToolHost

__all__ = ["TeachingPanel", "install"]


class TeachingPanel(QWidget):
    def __init__(self, win: ToolHost, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.win = win
        self.method: str | None = None
        self.highlighted_stage: str | None = None
        self.history: RunHistory | None = None
        self.index: int | None = None  # playback position; None while showing the live state
        self._rendered: tuple[str | None, str | None] = (None, None)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        self.header = QLabel()
        self.header.setWordWrap(True)
        self.header.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.header)
        self.text_view = QTextBrowser()
        self.text_view.setOpenExternalLinks(True)
        self.text_view.setMinimumHeight(160)
        layout.addWidget(self.text_view, 1)
        self.narration = QLabel("Run the method (or press Step) to follow its steps here.")
        self.narration.setObjectName("teachingNow")
        self.narration.setWordWrap(True)
        self.narration.setTextFormat(Qt.TextFormat.RichText)
        self.narration.setFrameShape(QFrame.Shape.StyledPanel)
        self.narration.setStyleSheet("QLabel#teachingNow { background: #f4f6f9; padding: 4px; }")
        layout.addWidget(self.narration)
        layout.addLayout(self._build_run_row())
        layout.addLayout(self._build_playback_row())
        self.timer = QTimer(self)
        self.timer.timeout.connect(self._on_timer_timeout)
        self._on_speed_changed()
        self.refresh_controls()

    # -- construction -------------------------------------------------------------------------
    def _tool(self, pixmap: QStyle.StandardPixmap, tip: str, slot) -> QToolButton:
        button = QToolButton()
        button.setIcon(self.style().standardIcon(pixmap))
        button.setToolTip(tip)
        button.setAutoRaise(True)
        button.clicked.connect(slot)
        return button

    def _build_run_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.step_button = QPushButton("Step")
        self.step_button.setToolTip(
            "Run one more iteration, then pause (F7); from idle it starts a paused run"
        )
        self.step_button.clicked.connect(self.win.step)
        row.addWidget(self.step_button)
        row.addStretch(1)
        self.live_button = QPushButton("Live")
        self.live_button.setToolTip("Leave playback: show the run's latest (or final) state")
        self.live_button.clicked.connect(self.leave_playback)
        row.addWidget(self.live_button)
        return row

    def _build_playback_row(self) -> QVBoxLayout:
        sp = QStyle.StandardPixmap
        box = QVBoxLayout()
        box.setSpacing(2)
        top = QHBoxLayout()
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setToolTip("Recorded iterations of the run: drag to show one in every plot")
        self.slider.valueChanged.connect(self._on_slider_moved)
        self.slider.sliderPressed.connect(self._sync_history)
        top.addWidget(self.slider, 1)
        self.position_label = QLabel("no run")
        self.position_label.setMinimumWidth(70)
        top.addWidget(self.position_label)
        box.addLayout(top)
        row = QHBoxLayout()
        self.first_button = self._tool(sp.SP_MediaSkipBackward, "First recorded iteration",
                                       lambda: self.go_to(0))  # fmt: skip
        self.prev_button = self._tool(sp.SP_MediaSeekBackward, "Previous iteration",
                                      self._previous)  # fmt: skip
        self.play_button = self._tool(sp.SP_MediaPlay, "Play the run as an animation",
                                      self.toggle_play)  # fmt: skip
        self.next_button = self._tool(sp.SP_MediaSeekForward, "Next iteration", self._next)
        self.last_button = self._tool(sp.SP_MediaSkipForward, "Last recorded state",
                                      lambda: self.go_to(self._count() - 1))  # fmt: skip
        self.nav_buttons = (self.first_button, self.prev_button, self.play_button,
                            self.next_button, self.last_button)  # fmt: skip
        for button in self.nav_buttons:
            row.addWidget(button)
        row.addStretch(1)
        row.addWidget(QLabel("speed"))
        self.speed = QComboBox()
        self.speed.addItems(list(SPEEDS))
        self.speed.setCurrentText("1x")
        self.speed.setToolTip("Playback speed (snapshots per second: 2 at 1x)")
        self.speed.currentIndexChanged.connect(self._on_speed_changed)
        row.addWidget(self.speed)
        box.addLayout(row)
        return box

    # -- explanation --------------------------------------------------------------------------
    def set_method(self, name: str | None) -> None:
        """Explain method ``name`` (follows the method panel, or the run being shown)."""
        if name and name != self.method:
            self.method = name
            self.highlighted_stage = None
        self._render()

    def set_stage(self, stage: str | None) -> None:
        self.highlighted_stage = stage
        self._render()

    def _render(self) -> None:
        key = (self.method, self.highlighted_stage)
        if self.method is None or key == self._rendered:
            return
        self._rendered = key
        bar = self.text_view.verticalScrollBar()
        pos = bar.value()
        text = method_text(self.method)
        self.header.setText(render_header(text))
        self.text_view.setHtml(render_html(text, self.highlighted_stage, header=False))
        if self.highlighted_stage in (None, "preprocessing"):
            bar.setValue(pos if self.highlighted_stage is None else 0)
        else:  # follow the step being executed
            self.text_view.scrollToAnchor("now")

    def _narrate(self, state, previous: float | None, metrics=None, suffix: str = "") -> None:
        text = method_text(self.method) if self.method else None
        line = describe_state(text, state, previous, metrics) if text else ""
        self.narration.setText(line + suffix)

    # -- run signals (live) -------------------------------------------------------------------
    def on_run_started(self, history: RunHistory) -> None:
        self._stop_playing()
        self.index = None
        self.history = history
        self.win.presenter.show_live(history)  # hides a playback marker left from before
        self.set_method(history.method)
        self.set_stage("preprocessing")
        self.narration.setText("<b>Starting</b>: preparing the views.")
        self.refresh_controls()

    def on_iteration_done(self, history: RunHistory) -> None:
        if history is not self.win.controller.history or history.last is None:
            return
        self.history = history
        if self.index is not None:  # a new state arrived (Step or Resume): back to live
            self._stop_playing()
            self.index = None
            self.win.presenter.show_live(history)
        state = history.last.state
        self.set_method(history.method)
        self.set_stage("done" if state.final else state.stage)
        snaps = history.snapshots
        previous = snaps[-2].objective if state.stage == "iterating" and len(snaps) >= 2 else None
        self._narrate(state, previous, history.last.metrics)
        self.refresh_controls()

    def refresh_controls(self) -> None:
        """Enable playback when a run has snapshots and is not running (paused is fine)."""
        c = self.win.controller
        history = self.history
        n = len(history.snapshots) if history is not None else 0
        can_play = n > 0 and (not c.running or c.paused)
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(n - 1, 0))
        self.slider.setValue(self.index if self.index is not None else max(n - 1, 0))
        self.slider.blockSignals(False)
        self.slider.setEnabled(can_play)
        for button in self.nav_buttons:
            button.setEnabled(can_play)
        self.speed.setEnabled(can_play)
        self.live_button.setEnabled(self.index is not None)
        if self.index is not None:
            self.position_label.setText(f"{self.index + 1} / {n}")
        elif n:
            self.position_label.setText(f"live ({n})" if c.running else f"{n} recorded")
        else:
            self.position_label.setText("no run")
        if not can_play:
            self._stop_playing()

    # -- playback -----------------------------------------------------------------------------
    def _sync_history(self) -> None:
        """Follow the run the plots show (the run list may have displayed another one)."""
        shown = self.win.presenter.history or self.win.controller.history
        if shown is not None and shown is not self.history:
            self.history, self.index = shown, None
            self.refresh_controls()

    def _count(self) -> int:
        return len(self.history.snapshots) if self.history is not None else 0

    def go_to(self, index: int) -> None:
        """Show recorded snapshot ``index`` (clamped) in every plot."""
        self._sync_history()
        n = self._count()
        if n == 0 or not self.slider.isEnabled():
            return
        index = min(max(index, 0), n - 1)
        self.slider.blockSignals(True)
        self.slider.setValue(index)
        self.slider.blockSignals(False)
        self._show(index)

    def _next(self) -> None:
        self.go_to(self._count() - 1 if self.index is None else self.index + 1)

    def _previous(self) -> None:  # from the live state: the one before the last
        self.go_to(self._count() - 2 if self.index is None else self.index - 1)

    def _on_slider_moved(self, value: int) -> None:
        if self.slider.isEnabled():
            self._show(value)

    def _show(self, index: int) -> None:
        history = self.history
        self.index = index
        frame = self.win.presenter.show_snapshot(history, index)
        snap = frame.snapshot
        self.set_method(history.method)
        self.set_stage("done" if snap.final else snap.stage)
        previous = history.snapshots[index - 1].objective if index > 0 else None
        self._narrate(snap, previous, snap.metrics, f"<br><i>Playback: {frame.caption}.</i>")
        self.refresh_controls()

    def leave_playback(self) -> None:
        """Back to the run's latest (or final) state in every plot."""
        self._stop_playing()
        if self.index is None:
            return
        self.index = None
        history = self.history
        self.win.presenter.show_live(history)
        if history is not None and history.last is not None:
            self.on_iteration_done(history)
        self.refresh_controls()

    def toggle_play(self) -> None:
        if self.timer.isActive():
            self._stop_playing()
            return
        n = self._count()
        if n == 0:
            return
        if self.index is None or self.index >= n - 1:
            self.go_to(0)
        self.timer.start()
        self.play_button.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPause))
        self.play_button.setToolTip("Pause the animation")

    @property
    def playing(self) -> bool:
        return self.timer.isActive()

    def _stop_playing(self) -> None:
        if self.timer.isActive():
            self.timer.stop()
        self.play_button.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPlay))
        self.play_button.setToolTip("Play the run as an animation")

    def _on_timer_timeout(self) -> None:
        if self.index is None or self.index >= self._count() - 1:
            self._stop_playing()
        else:
            self.go_to(self.index + 1)
            if self.index >= self._count() - 1:
                self._stop_playing()

    def _on_speed_changed(self) -> None:
        self.timer.setInterval(SPEEDS.get(self.speed.currentText(), 500))


@dataclass(frozen=True)
class TeachingTool:
    """The teaching dock, its panel and the Tools > Teaching mode toggle."""

    panel: TeachingPanel
    dock: QDockWidget
    action: QAction


def install(win: ToolHost) -> TeachingTool:
    """Add the teaching dock (hidden) with Tools > Teaching mode and a View menu toggle."""
    panel = TeachingPanel(win)
    dock = win.add_dock(
        "Teaching mode", panel, Qt.DockWidgetArea.RightDockWidgetArea, "teachingDock",
        floatable=True,
    )  # fmt: skip
    results = win.findChild(QDockWidget, "resultsDock")
    if results is not None:  # a tab next to Results: the explanation needs the full height
        win.tabifyDockWidget(results, dock)
    dock.hide()
    action = QAction("&Teaching mode", win)
    action.setCheckable(True)
    action.setStatusTip("Explain the method step by step and play back a run's iterations")
    dock.visibilityChanged.connect(lambda _v: action.setChecked(not dock.isHidden()))
    win.tools_menu.addAction(action)

    def make_room() -> None:  # a wider right column for the explanation
        if not dock.isHidden() and not dock.isFloating() and dock.width() < 400:
            win.resizeDocks([dock], [420], Qt.Orientation.Horizontal)

    def on_toggled(on: bool) -> None:
        dock.setVisible(on)
        if on:
            dock.raise_()  # the front tab
            QTimer.singleShot(0, make_room)  # once the dock is laid out

    action.toggled.connect(on_toggled)
    c = win.controller
    c.run_started.connect(panel.on_run_started)
    c.iteration_done.connect(panel.on_iteration_done)
    for signal in (c.run_finished, c.run_stopped):
        signal.connect(lambda _h: panel.refresh_controls())
    c.run_failed.connect(lambda _m, _d: panel.refresh_controls())
    c.busy_changed.connect(lambda _b: panel.refresh_controls())
    c.paused_changed.connect(lambda _p: panel.refresh_controls())
    win.method_panel.method_changed.connect(panel.set_method)
    win.data_loaded.connect(lambda: _on_data_loaded(panel))
    panel.set_method(win.method_panel.method)
    return TeachingTool(panel, dock, action)


def _on_data_loaded(panel: TeachingPanel) -> None:
    panel._stop_playing()
    panel.history, panel.index = None, None
    panel.set_stage(None)
    panel.refresh_controls()
