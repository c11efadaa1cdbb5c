"""Persistent preferences (QSettings). Organisation and application names are set once in
``app.py``; everything here only reads and writes keys.

Stored: window geometry and dock/splitter state, last folder, recent files, last method and
its parameters (JSON per method). Never results. ``SETTINGS_VERSION`` guards the layout:
``migrate_settings`` drops what an older version wrote in an incompatible form.
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QSettings

from core.methods import REGISTRY

__all__ = [
    "SETTINGS_VERSION",
    "add_recent_file",
    "load_params",
    "migrate_settings",
    "recent_files",
    "save_params",
]

SETTINGS_VERSION = 2  # 2: method parameters stored only where they differ from the defaults
MAX_RECENT = 8


def migrate_settings(settings: QSettings | None = None) -> QSettings:
    s = settings or QSettings()
    version = int(s.value("settings_version", 0) or 0)
    if version != SETTINGS_VERSION:
        if version > SETTINGS_VERSION or version < 1:
            s.remove("MainWindow")  # geometry/state from another layout
        if version < 2:  # every value was stored, defaults too: they would pin old defaults
            s.remove("Solver")  # (e.g. n_neighbors=15 where it is now sized from the data)
        s.setValue("settings_version", SETTINGS_VERSION)
    return s


def recent_files(settings: QSettings) -> list[str]:
    value = settings.value("recent_files", [])
    if isinstance(value, str):
        return [value] if value else []
    return [str(v) for v in value or []]


def add_recent_file(settings: QSettings, path: str) -> list[str]:
    files = [path] + [p for p in recent_files(settings) if p != path]
    files = files[:MAX_RECENT]
    settings.setValue("recent_files", files)
    return files


def save_params(settings: QSettings, method: str, params: dict[str, Any]) -> None:
    """Remember the values the user changed (not the defaults: a later, better default then
    still reaches someone who never touched that parameter)."""
    settings.setValue("last_method", method)
    cls = REGISTRY.get(method)
    defaults = cls.param_spec.defaults() if cls is not None else {}
    changed = {k: v for k, v in params.items() if k not in defaults or defaults[k] != v}
    settings.setValue(f"Solver/{method}", json.dumps(changed))


def load_params(settings: QSettings, method: str) -> dict[str, Any]:
    text = settings.value(f"Solver/{method}", "")
    try:
        value = json.loads(text) if text else {}
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}
