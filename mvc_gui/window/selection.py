"""The linked selection: a set of samples highlighted in every view (GUI thread only)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QObject, Signal

__all__ = ["Selection"]


class Selection(QObject):
    """Selected sample indices (sorted, unique) and a short description of how."""

    changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.indices = np.empty(0, dtype=np.int64)
        self.description = ""
        self.cluster: int | None = None

    def __bool__(self) -> bool:
        return self.indices.size > 0

    def set(self, indices: np.ndarray, description: str, cluster: int | None = None) -> None:
        self.indices = np.unique(np.asarray(indices, dtype=np.int64))
        self.description = description
        self.cluster = cluster
        self.changed.emit()

    def select_cluster(self, labels: np.ndarray | None, cluster: int) -> None:
        if labels is None:
            return
        if self.cluster == cluster:
            self.clear()
            return
        self.set(np.flatnonzero(labels == cluster), f"cluster {cluster}", cluster)

    def clear(self) -> None:
        if self.indices.size or self.cluster is not None:
            self.indices = np.empty(0, dtype=np.int64)
            self.description, self.cluster = "", None
            self.changed.emit()

    def mask(self, n: int) -> np.ndarray | None:
        if not self.indices.size:
            return None
        m = np.zeros(n, dtype=bool)
        m[self.indices[self.indices < n]] = True
        return m
