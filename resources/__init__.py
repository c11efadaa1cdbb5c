"""Bundled resources (demo datasets, icons, style sheets).

:func:`resource_path` finds them the same way in a source checkout, an installed wheel (this
folder is the ``resources`` package, its data files are package data) and a PyInstaller
build (files unpacked under ``sys._MEIPASS``).
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["resource_path", "resources_root"]


def resources_root() -> Path:
    """The folder that holds the resources (``resources/`` in a checkout or a wheel)."""
    frozen_base = getattr(sys, "_MEIPASS", None)
    if getattr(sys, "frozen", False) and frozen_base:
        candidate = Path(frozen_base) / "resources"
        if candidate.is_dir():
            return candidate
    return Path(__file__).resolve().parent


def resource_path(*parts: str) -> Path:
    """Path of a bundled resource, e.g. ``resource_path("datasets", "handwritten.npz")``.

    The path is returned whether or not the file exists; callers check and report.
    """
    return resources_root().joinpath(*parts)
