"""The runs kept in the Runs dock: a number, the run's history and its duration (Qt-free)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.experiments.compare import run_row
from mvc_gui.model.run_history import RunHistory

__all__ = ["RunEntry", "data_key"]


def data_key(source: str, n_samples: int) -> tuple[str, int]:
    """Identifies the data a run was made on: file path (resolved) or demo, and its size."""
    if source and not source.startswith("demo:"):
        try:
            source = str(Path(source).resolve())
        except OSError:
            pass
    return source, int(n_samples)


@dataclass
class RunEntry:
    number: int
    history: RunHistory
    seconds: float | None = None

    @property
    def result(self) -> Any:
        return self.history.result

    @property
    def title(self) -> str:
        return f"run #{self.number} ({self.history.method})"

    @property
    def data(self) -> tuple[str, int]:
        d = self.result.dataset
        return data_key(str(d.get("source", "")), int(d.get("n_samples", self.result.labels.size)))

    def row(self) -> dict[str, Any]:
        n_classes = self.result.dataset.get("n_classes")
        return run_row(self.number, self.result, seconds=self.seconds, n_classes=n_classes)
