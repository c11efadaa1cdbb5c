"""Helpers shared by the benchmark scripts (not part of the test suite)."""

from __future__ import annotations

import importlib
import os
import platform
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "benchmarks"


def datasets_dir() -> Path:
    root = os.environ.get("MVC_DATASETS")
    if not root:
        sys.exit("set MVC_DATASETS to the folder with the benchmark .mat files")
    return Path(root)


def cases_module(method: str) -> ModuleType:
    """benchmarks/cases/<method>.py (dashes become underscores)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    return importlib.import_module("cases." + method.replace("-", "_"))


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores ({cpu}), Python {platform.python_version()}"


def git_rev() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
