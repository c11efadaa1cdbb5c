"""The embedding's legend: category swatches, or a colour bar with the range of the values.

One line under the plot: for categories a swatch, name and count per category (the first
:data:`MAX_SHOWN`, then how many more); for numbers the minimum, a gradient bar of the colour
ramp and the maximum, and a grey swatch when some samples have no value. A sentence (e.g. how
many samples disagree) follows on a second line. Clicking a category emits ``entry_clicked``
(its code and how it combines with the selection: Shift adds, Ctrl subtracts).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPixmap
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from mvc_gui.model.colouring import Colouring
from mvc_gui.model.palette import NOISE_COLOR, hex_color
from mvc_gui.plots.base import selection_mode

__all__ = ["ColourLegend"]

MAX_SHOWN = 24


def _swatch(rgb: tuple[int, int, int]) -> str:
    return f"<span style='color:{hex_color(rgb)}'>&#9632;</span>"


def _number(v: float) -> str:
    return f"{v:.4g}"


class ColourLegend(QWidget):
    entry_clicked = Signal(int, str)  # category code, selection mode

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 0, 4, 0)
        outer.setSpacing(1)
        row = QHBoxLayout()
        row.setSpacing(6)
        self.title = QLabel()
        self.lo = QLabel()
        self.bar = QLabel()
        self.bar.setFixedHeight(12)
        self.hi = QLabel()
        self.items = QLabel()  # categories as rich text, or the grey 'no value' swatch
        self.items.setWordWrap(True)
        self.items.setTextFormat(Qt.TextFormat.RichText)
        self.items.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.items.linkActivated.connect(self._on_link)
        for w in (self.title, self.lo, self.bar, self.hi):
            row.addWidget(w)
        row.addWidget(self.items, 1)
        outer.addLayout(row)
        self.summary = QLabel()
        self.summary.setObjectName("helpText")
        self.summary.setWordWrap(True)
        outer.addWidget(self.summary)
        self.colouring: Colouring | None = None
        self.show_colouring(None)

    def show_colouring(self, colouring: Colouring | None) -> None:
        """Describe ``colouring`` (None: hide the legend)."""
        self.colouring = colouring
        self.setVisible(colouring is not None)
        if colouring is None:
            return
        self.title.setText(f"<b>{html.escape(colouring.title)}</b>")
        numeric = colouring.kind == "continuous"
        for w in (self.lo, self.bar, self.hi):
            w.setVisible(numeric)
        parts = []
        if numeric:
            self.lo.setText(_number(colouring.lo))
            self.hi.setText(_number(colouring.hi))
            self.bar.setPixmap(self._gradient(colouring.colours))
        else:
            shown = list(zip(colouring.names, colouring.colours, colouring.counts, strict=False))
            for code, (name, rgb, count) in enumerate(shown[:MAX_SHOWN]):
                label = html.escape(str(name)).replace(" ", "&nbsp;")
                parts.append(
                    f"<a href='{code}' style='color:#2b3440; text-decoration:none'>"
                    f"{_swatch(rgb)}&nbsp;{label}&nbsp;({count:,})</a>"
                )
            if len(shown) > MAX_SHOWN:
                parts.append(f"+{len(shown) - MAX_SHOWN} more")
        if colouring.n_missing:
            parts.append(
                f"{_swatch(NOISE_COLOR)}&nbsp;no&nbsp;value&nbsp;({colouring.n_missing:,})"
            )
        self.items.setText(" &nbsp; ".join(parts))
        tip = "Click a category to select its samples (Shift adds, Ctrl subtracts)"
        self.items.setToolTip("" if numeric else tip)
        self.summary.setText(colouring.summary)
        self.summary.setVisible(bool(colouring.summary))

    def _on_link(self, href: str) -> None:
        if href.isdigit():
            mode = selection_mode(QGuiApplication.keyboardModifiers())
            self.entry_clicked.emit(int(href), mode)

    @staticmethod
    def _gradient(colours: list[tuple[int, int, int]], width: int = 120) -> QPixmap:
        image = QImage(width, 12, QImage.Format.Format_RGB32)
        for x in range(width):
            rgb = colours[min(len(colours) - 1, x * len(colours) // width)]
            c = QColor(*rgb).rgb()
            for y in range(12):
                image.setPixel(x, y, c)
        return QPixmap.fromImage(image)

    def text(self) -> str:
        """What the legend says, as plain text (tests, reports)."""
        parts = [self.title.text(), self.lo.text() if self.lo.isVisibleTo(self) else ""]
        parts += [self.hi.text() if self.hi.isVisibleTo(self) else "", self.items.text()]
        return html.unescape(" ".join(p for p in parts if p)).replace("\xa0", " ")
