"""Find packaged resources (icons, stylesheets, demo data) in a checkout, a wheel or a
frozen build. Qt is imported only by :func:`icon`."""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

__all__ = ["icon", "resource_path", "stylesheet"]


def resource_path(*parts: str) -> Path:
    """Path under ``resources/`` (PyInstaller unpacks it under ``sys._MEIPASS``)."""
    frozen = getattr(sys, "_MEIPASS", None)
    root = Path(frozen) if frozen else Path(__file__).resolve().parent.parent
    return root.joinpath("resources", *parts)


@cache
def icon(name: str):  # -> QIcon
    from PySide6.QtGui import QIcon

    path = resource_path("icons", f"{name}.svg")
    return QIcon(str(path)) if path.exists() else QIcon()


def stylesheet() -> str:
    """All ``resources/qss/*.qss`` files concatenated in name order."""
    folder = resource_path("qss")
    if not folder.is_dir():
        return ""
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.qss")))
