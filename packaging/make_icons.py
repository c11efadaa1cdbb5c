"""Render the app icon set from ``resources/icons/app.svg`` (run once; the PNGs are committed).

    QT_QPA_PLATFORM=offscreen python packaging/make_icons.py

Writes ``packaging/icons/mvc-studio-<N>.png`` for N in 16..512 (the hicolor theme sizes a
.desktop file's ``Icon=mvc-studio`` is looked up in) and ``mvc-studio.ico`` (Windows, all
sizes up to 256 in one file; Qt's ICO plugin writes one size only, so the few header
bytes are written here).
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "resources" / "icons" / "app.svg"
OUT = Path(__file__).resolve().parent / "icons"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)  # the ICO format stops at 256


def render(renderer: QSvgRenderer, size: int) -> QImage:
    """The SVG drawn at ``size`` x ``size`` on a transparent background (antialiased)."""
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    return image


def write_ico(images: list[QImage], path: Path) -> None:
    """A multi-size .ico: the ICONDIR header and one entry per image, each stored as PNG
    data (the ICO format allows PNG entries since Windows Vista)."""
    blobs = []
    for image in images:
        data = QByteArray()
        buf = QBuffer(data)
        buf.open(QIODevice.OpenModeFlag.WriteOnly)
        image.save(buf, "PNG")
        blobs.append(bytes(data.data()))
    header = struct.pack("<HHH", 0, 1, len(blobs))  # reserved, type 1 = icon, count
    offset = len(header) + 16 * len(blobs)
    entries, payload = b"", b""
    for image, blob in zip(images, blobs, strict=True):
        side = image.width() % 256  # 0 means 256 in an ICONDIRENTRY
        # width, height, palette size, reserved, colour planes, bits per pixel, size, offset
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(blob), offset)
        offset += len(blob)
        payload += blob
    path.write_bytes(header + entries + payload)


def main() -> int:
    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(SOURCE))
    if not renderer.isValid():
        print(f"cannot read {SOURCE}", file=sys.stderr)  # noqa: T201
        return 1
    OUT.mkdir(exist_ok=True)
    images = {size: render(renderer, size) for size in SIZES}
    for size, image in images.items():
        image.save(str(OUT / f"mvc-studio-{size}.png"), "PNG")
    write_ico([images[s] for s in ICO_SIZES], OUT / "mvc-studio.ico")
    print(f"wrote {len(SIZES)} PNGs and mvc-studio.ico to {OUT}")  # noqa: T201
    return 0


if __name__ == "__main__":
    sys.exit(main())
