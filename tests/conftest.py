"""Shared fixtures. Benchmark files come from $MVC_DATASETS; tests needing them skip (saying
so) only when the variable is unset."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def datasets_dir() -> Path | None:
    root = os.environ.get("MVC_DATASETS")
    return Path(root) if root else None


@pytest.fixture
def benchmark_file():
    """Return a function mapping a file name in $MVC_DATASETS to its path (skip if unset)."""
    root = datasets_dir()
    if root is None:
        pytest.skip("MVC_DATASETS is not set: benchmark files unavailable")

    def path(name: str) -> Path:
        p = root / name
        if not p.exists():
            pytest.fail(f"{name} missing from MVC_DATASETS={root}")
        return p

    return path


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)


def make_blobs_views(
    n: int = 300, c: int = 3, dims: tuple[int, ...] = (5, 8), sep: float = 6.0, seed: int = 0
) -> tuple[list[np.ndarray], np.ndarray]:
    """Well-separated Gaussian blobs seen through several random linear views."""
    g = np.random.default_rng(seed)
    labels = np.repeat(np.arange(c), n // c)
    labels = np.concatenate([labels, np.arange(n - labels.size) % c])
    views = []
    for d in dims:
        centers = g.normal(scale=sep, size=(c, d))
        views.append(centers[labels] + g.normal(size=(n, d)))
    return views, labels
