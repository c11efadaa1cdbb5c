"""A non-modal message bar (Orange-style): errors, warnings and notes above the plots.

Errors can carry details (a traceback) shown on demand in a non-modal message box, so
nothing blocks the event loop or a test.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QMessageBox, QPushButton, QWidget

__all__ = ["MessageBar"]

ICONS = {"error": "\u26d4", "warning": "\u26a0", "info": "\u2139"}


class MessageBar(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("messageBar")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.label, 1)
        self.action_button = QPushButton()
        self.action_button.clicked.connect(self._act)
        layout.addWidget(self.action_button)
        self._action: Callable[[], None] | None = None
        self.details_button = QPushButton("Details...")
        self.details_button.clicked.connect(self.show_details)
        layout.addWidget(self.details_button)
        close = QPushButton("\u2715")
        close.setFlat(True)
        close.setFixedWidth(24)
        close.setToolTip("Dismiss")
        close.clicked.connect(self.clear)
        layout.addWidget(close)
        self.level = ""
        self.text = ""
        self.details = ""
        self.details_box: QMessageBox | None = None
        self.hide()

    def show_message(
        self,
        level: str,
        text: str,
        details: str = "",
        action: tuple[str, Callable[[], None]] | None = None,
    ) -> None:
        """Show ``text``; ``action`` = (button label, callback) offers one thing to do (the
        bar closes when it is clicked)."""
        self.level, self.text, self.details = level, text, details
        self._action = action[1] if action else None
        self.action_button.setText(action[0] if action else "")
        self.action_button.setVisible(action is not None)
        self.setProperty("level", level)
        self.style().unpolish(self)
        self.style().polish(self)
        self.label.setText(f"{ICONS.get(level, '')}  {text}")
        self.details_button.setVisible(bool(details))
        self.show()

    def clear(self, level: str | None = None) -> None:
        """Hide the bar (only if it shows ``level``, when given)."""
        if level is None or self.level == level:
            self.level = self.text = self.details = ""
            self._action = None
            self.hide()

    def _act(self) -> None:
        action = self._action
        self.clear()
        if action is not None:
            action()

    def show_details(self) -> None:
        box = QMessageBox(
            QMessageBox.Icon.Critical if self.level == "error" else QMessageBox.Icon.Information,
            "Details",
            self.text,
            parent=self,
        )
        box.setDetailedText(self.details)
        box.setModal(False)
        box.show()
        self.details_box = box
