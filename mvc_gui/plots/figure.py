"""Figures for papers: a plot (with its legend), or several on one page, written as PNG, SVG
or PDF at a chosen size and resolution.

:class:`FigureSize` says how large (pixels, or millimetres at a DPI). :func:`write_figure`
opens the painter of the asked format (a :class:`QImage` carrying the DPI, a
:class:`QSvgGenerator`, a :class:`QPdfWriter` page of that size), lets a ``paint(painter,
rect)`` callback draw into it, and writes the file atomically. The callbacks here draw a
graphics-scene item scaled into a rectangle (:func:`paint_scene`), a legend as text and
swatches (:func:`paint_legend`: in SVG and PDF its words stay text) and a table from an item
model (:func:`paint_table`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice, QMarginsF, QRectF, QSize, QSizeF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QLinearGradient,
    QPageSize,
    QPainter,
    QPdfWriter,
    QPen,
)
from PySide6.QtSvg import QSvgGenerator

from core.data.atomic import atomic_path, atomic_write

__all__ = [
    "FORMATS",
    "FigureSize",
    "Legend",
    "legend_height",
    "paint_legend",
    "paint_scene",
    "paint_table",
    "write_figure",
]

FORMATS = ("png", "svg", "pdf")
MM_PER_INCH = 25.4
#: the screen's logical resolution the plots are laid out at (fonts scale from it)
SCREEN_DPI = 96.0
Paint = Callable[[QPainter, QRectF], None]


@dataclass(frozen=True)
class FigureSize:
    """A figure's size: ``width`` x ``height`` in ``unit`` ("px" or "mm") at ``dpi``."""

    width: float
    height: float
    unit: str = "px"
    dpi: float = 300.0

    def __post_init__(self) -> None:
        if self.unit not in ("px", "mm"):
            raise ValueError(f"a figure's unit is 'px' or 'mm', not {self.unit!r}")
        if not (self.width > 0 and self.height > 0 and self.dpi > 0):
            raise ValueError("a figure needs a positive width, height and DPI")

    def pixels(self) -> tuple[int, int]:
        """Width and height in device pixels at ``dpi``."""
        if self.unit == "px":
            return max(1, round(self.width)), max(1, round(self.height))
        scale = self.dpi / MM_PER_INCH
        return max(1, round(self.width * scale)), max(1, round(self.height * scale))

    def millimetres(self) -> tuple[float, float]:
        if self.unit == "mm":
            return float(self.width), float(self.height)
        w, h = self.pixels()
        return w / self.dpi * MM_PER_INCH, h / self.dpi * MM_PER_INCH


def figure_format(path: str | os.PathLike[str]) -> str:
    """The format a file name asks for; anything but .png/.svg/.pdf is a clear ValueError."""
    ext = Path(path).suffix.lower().lstrip(".")
    if ext not in FORMATS:
        raise ValueError(f"a figure is written as .png, .svg or .pdf, not {Path(path).name!r}")
    return ext


def write_figure(
    path: str | os.PathLike[str], size: FigureSize, paint: Paint, title: str = ""
) -> Path:
    """Draw ``paint`` on a white page of ``size`` and write it atomically as the format the
    name's suffix says (PNG with its DPI recorded, SVG, PDF of that page size).

    Every device is painted at the screen's logical resolution (:data:`SCREEN_DPI`): the plots
    are laid out in screen pixels and their fonts in points, and a device of another DPI
    would size the text against that DPI but the geometry against the scale, drawing tick
    labels off their ticks. The PNG records its DPI after painting; SVG and PDF keep their
    physical size (vector: no DPI of their own)."""
    target = Path(path)
    fmt = figure_format(target)
    if fmt == "png":
        w, h = size.pixels()
        image = QImage(w, h, QImage.Format.Format_ARGB32_Premultiplied)
        _set_dpi(image, SCREEN_DPI)
        image.fill(QColor("white"))
        _paint(image, QRectF(0, 0, w, h), paint)
        _set_dpi(image, size.dpi)
        with atomic_path(target, suffix=".png") as tmp:
            if not image.save(str(tmp), "PNG"):
                raise OSError(f"could not write {target}")
        return target
    mm_w, mm_h = size.millimetres()
    w, h = mm_w / MM_PER_INCH * SCREEN_DPI, mm_h / MM_PER_INCH * SCREEN_DPI
    if fmt == "svg":
        buffer = QBuffer()
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        gen = QSvgGenerator()
        gen.setOutputDevice(buffer)
        gen.setSize(QSize(round(w), round(h)))
        gen.setViewBox(QRectF(0, 0, w, h))
        gen.setResolution(round(SCREEN_DPI))
        gen.setTitle(title or target.stem)
        gen.setDescription("MVC Studio figure")
        _paint(gen, QRectF(0, 0, w, h), paint, fill=True)
        return atomic_write(target, bytes(buffer.data()).decode("utf-8"))
    with atomic_path(target, suffix=".pdf") as tmp:
        writer = QPdfWriter(str(tmp))
        writer.setResolution(round(SCREEN_DPI))
        writer.setPageSize(QPageSize(QSizeF(mm_w, mm_h), QPageSize.Unit.Millimeter))
        writer.setPageMargins(QMarginsF(0, 0, 0, 0))
        writer.setTitle(title or target.stem)
        writer.setCreator("MVC Studio")
        _paint(writer, QRectF(0, 0, writer.width(), writer.height()), paint, fill=True)
    return target


def _set_dpi(image: QImage, dpi: float) -> None:
    dots_per_metre = round(dpi / MM_PER_INCH * 1000)
    image.setDotsPerMeterX(dots_per_metre)
    image.setDotsPerMeterY(dots_per_metre)


def _paint(device, rect: QRectF, paint: Paint, fill: bool = False) -> None:
    painter = QPainter(device)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        if fill:
            painter.fillRect(rect, QColor("white"))
        paint(painter, rect)
    finally:
        painter.end()


def paint_scene(painter: QPainter, rect: QRectF, item: object) -> None:
    """A graphics-scene item (a plot) scaled into ``rect``, its aspect kept and centred."""
    scene = item.scene()
    source = item.sceneBoundingRect()
    if source.width() <= 0 or source.height() <= 0 or rect.width() <= 0:
        return
    scene.render(painter, rect, source, Qt.AspectRatioMode.KeepAspectRatio)


# -- legends -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Legend:
    """What a plot's legend says: a title and either categories (colour, text) or a colour
    ramp between two numbers (``ramp`` colours, ``lo``/``hi`` texts)."""

    title: str
    entries: Sequence[tuple[tuple[int, int, int], str]] = ()
    ramp: Sequence[tuple[int, int, int]] = ()
    lo: str = ""
    hi: str = ""
    note: str = ""


def _font(scale: float) -> QFont:
    font = QFont()
    font.setPixelSize(max(6, round(11 * scale)))
    return font


def _legend_lines(legend: Legend, width: float, fm: QFontMetricsF, pad: float) -> list[list]:
    """The legend's items flowed into lines of ``width``: (kind, text, colour, item width)."""
    sw = fm.height() * 0.8
    items = [("title", legend.title, None, fm.horizontalAdvance(legend.title) + pad)]
    if legend.ramp:
        items.append(("ramp", legend.lo, None, 0))
    for rgb, text in legend.entries:
        items.append(("entry", text, rgb, sw + pad / 2 + fm.horizontalAdvance(text) + pad))
    lines: list[list] = [[]]
    used = 0.0
    for kind, text, rgb, w in items:
        if kind == "ramp":
            w = fm.horizontalAdvance(legend.lo) + fm.horizontalAdvance(legend.hi) + 8 * sw + pad
        if lines[-1] and used + w > width:
            lines.append([])
            used = 0.0
        lines[-1].append((kind, text, rgb, w))
        used += w
    if legend.note:
        lines.append([("note", legend.note, None, fm.horizontalAdvance(legend.note))])
    return lines


def legend_height(legend: Legend | None, width: float, scale: float) -> float:
    """The height :func:`paint_legend` needs for ``legend`` in a rectangle ``width`` wide."""
    if legend is None:
        return 0.0
    fm = QFontMetricsF(_font(scale))
    lines = _legend_lines(legend, width, fm, 10 * scale)
    return len(lines) * fm.height() * 1.35 + 4 * scale


def paint_legend(painter: QPainter, rect: QRectF, legend: Legend, scale: float) -> None:
    """Swatches and names (or the colour ramp between its numbers) flowed left to right."""
    font = _font(scale)
    painter.save()
    painter.setFont(font)
    fm = QFontMetricsF(font)
    pad = 10 * scale
    line_h = fm.height() * 1.35
    sw = fm.height() * 0.8
    y = rect.top() + 2 * scale
    text_pen = QPen(QColor("#2b3440"))
    for line in _legend_lines(legend, rect.width(), fm, pad):
        x = rect.left()
        base = y + (line_h + fm.ascent() - fm.descent()) / 2
        for kind, text, rgb, w in line:
            painter.setPen(text_pen)
            if kind == "title":
                bold = QFont(font)
                bold.setBold(True)
                painter.setFont(bold)
                painter.drawText(x, base, text)
                painter.setFont(font)
            elif kind == "entry":
                box = QRectF(x, y + (line_h - sw) / 2, sw, sw)
                painter.fillRect(box, QColor(*rgb))
                painter.drawText(x + sw + pad / 2, base, text)
            elif kind == "ramp":
                painter.drawText(x, base, legend.lo)
                bar_x = x + fm.horizontalAdvance(legend.lo) + 4 * scale
                bar = QRectF(bar_x, y + (line_h - sw) / 2, 8 * sw - 8 * scale, sw)
                gradient = QLinearGradient(bar.topLeft(), bar.topRight())
                stops = list(legend.ramp)
                for k, c in enumerate(stops):
                    gradient.setColorAt(k / max(len(stops) - 1, 1), QColor(*c))
                painter.fillRect(bar, QBrush(gradient))
                painter.drawText(bar.right() + 4 * scale, base, legend.hi)
            else:  # a sentence under the entries
                painter.setPen(QPen(QColor("#5b6573")))
                painter.drawText(x, base, text)
            x += w
        y += line_h
    painter.restore()


# -- tables --------------------------------------------------------------------------------------
def paint_table(
    painter: QPainter, rect: QRectF, model, scale: float, title: str = "", max_rows: int = 40
) -> None:
    """The rows of an item model (header and cells, as text) in ``rect``: columns as wide as
    their longest text, as many rows as fit (at most ``max_rows``; a last line says how many
    more)."""
    font = _font(scale)
    bold = QFont(font)
    bold.setBold(True)
    fm = QFontMetricsF(font)
    rows, cols = model.rowCount(), model.columnCount()
    if cols == 0:
        return
    header = [str(model.headerData(j, Qt.Orientation.Horizontal) or "") for j in range(cols)]
    line_h = fm.height() * 1.3
    top = rect.top() + (line_h if title else 0)
    fit = max(0, int((rect.bottom() - top) // line_h) - 1)
    shown = min(rows, max_rows, fit)
    if shown < rows and shown > 0:
        shown -= 1  # room for the "n more" line
    cells = [[_cell(model, i, j) for j in range(cols)] for i in range(shown)]
    fm_bold = QFontMetricsF(bold)  # the header is bold: measured as drawn
    widths = [
        max([fm_bold.horizontalAdvance(header[j])] + [fm.horizontalAdvance(r[j]) for r in cells])
        for j in range(cols)
    ]
    pad = 8 * scale
    total = sum(widths) + pad * (cols - 1)
    squeeze = min(1.0, rect.width() / total) if total > 0 else 1.0
    painter.save()
    painter.setPen(QPen(QColor("#2b3440")))
    if title:
        painter.setFont(bold)
        left = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        painter.drawText(QRectF(rect.left(), rect.top(), rect.width(), line_h), left, title)
    y = top

    def row(texts: list[str], font_: QFont) -> None:
        painter.setFont(font_)
        metrics = QFontMetricsF(font_)
        x = rect.left()
        for j, text in enumerate(texts):
            w = widths[j] * squeeze
            align = Qt.AlignmentFlag.AlignLeft if j == 0 else Qt.AlignmentFlag.AlignRight
            shown_text = metrics.elidedText(text, Qt.TextElideMode.ElideRight, w + 0.5)
            painter.drawText(QRectF(x, y, w, line_h), align | Qt.AlignmentFlag.AlignVCenter,
                             shown_text)  # fmt: skip
            x += w + pad * squeeze

    row(header, bold)
    y += line_h
    painter.setPen(QPen(QColor("#c8cdd4"), max(1.0, scale)))
    painter.drawLine(rect.left(), y, rect.left() + total * squeeze, y)
    painter.setPen(QPen(QColor("#2b3440")))
    for texts in cells:
        row(texts, font)
        y += line_h
    if shown < rows:
        painter.setFont(font)
        painter.setPen(QPen(QColor("#5b6573")))
        painter.drawText(QRectF(rect.left(), y, rect.width(), line_h),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         f"... {rows - shown:,} more rows")  # fmt: skip
    painter.restore()


def _cell(model, i: int, j: int) -> str:
    value = model.data(model.index(i, j), Qt.ItemDataRole.DisplayRole)
    return "" if value is None else str(value)
