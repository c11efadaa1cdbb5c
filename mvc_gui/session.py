"""The loaded dataset and how it is used (Qt-free).

A :class:`DataSession` wraps a :class:`~core.dataset.MultiViewDataset` with the user's
choices: which views are included and the preprocessing of each. ``prepared()`` returns the
preprocessed included views; results are cached per (views, methods) key so the solver
worker and the embedding worker share them (a dict store is atomic under the GIL).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from core.dataset import DataError, MultiViewDataset

__all__ = ["PREPROCESSORS", "DataSession", "load_demo", "load_path", "preprocess_views"]

try:  # core.preprocessing is written in parallel; degrade to no preprocessing without it
    from core.preprocessing import PREPROCESSORS, preprocess
except ImportError:  # pragma: no cover - only before core.preprocessing exists
    PREPROCESSORS = ("none",)
    preprocess = None


def preprocess_views(views: list, methods: list[str]) -> tuple[list, list[str]]:
    if preprocess is None:
        return list(views), ["none"] * len(views)
    out, chosen = preprocess(list(views), list(methods))
    return list(out), list(chosen)


_TOKENS = itertools.count(1)


@dataclass
class DataSession:
    dataset: MultiViewDataset
    included: list[bool] = field(default_factory=list)
    methods: list[str] = field(default_factory=list)
    chosen: dict[int, str] = field(default_factory=dict)
    _cache: dict[tuple, tuple[list, list[str]]] = field(default_factory=dict, repr=False)
    token: int = field(default_factory=lambda: next(_TOKENS))

    def __post_init__(self) -> None:
        v = self.dataset.n_views
        self.included = self.included or [True] * v
        default = "auto" if "auto" in PREPROCESSORS else PREPROCESSORS[0]
        self.methods = self.methods or [default] * v

    @property
    def view_indices(self) -> list[int]:
        return [i for i, keep in enumerate(self.included) if keep]

    @property
    def key(self) -> tuple:
        """Identifies the representation: dataset identity, included views, preprocessing."""
        idx = tuple(self.view_indices)
        return (self.token, idx, tuple(self.methods[i] for i in idx))

    def check(self) -> None:
        if not self.view_indices:
            raise DataError("all views are excluded: include at least one view")

    def prepared(self) -> tuple[list, list[str]]:
        """Preprocessed included views and the preprocessing chosen for each (slow: worker)."""
        self.check()
        key = self.key
        if key not in self._cache:
            idx = list(key[1])
            views, chosen = preprocess_views(
                [self.dataset.views[i] for i in idx], [self.methods[i] for i in idx]
            )
            self._cache = {key: (views, chosen)}
            self.chosen.update(zip(idx, chosen, strict=True))
        return self._cache[key]

    @property
    def view_names(self) -> list[str]:
        return [self.dataset.view_names[i] for i in self.view_indices]

    @property
    def labels(self) -> np.ndarray | None:
        return self.dataset.labels


def load_path(path: str) -> tuple[DataSession, dict]:
    """Load a file or CSV folder (slow: call from a worker); raises DataError."""
    from core.io import load_dataset

    ds = load_dataset(path)
    return DataSession(ds), ds.summary()


def load_demo(name: str = "handwritten") -> tuple[DataSession, dict]:
    """An embedded demo dataset, or synthetic data named ``synthetic-<n>``."""
    if name.startswith("synthetic"):
        n = int(name.partition("-")[2] or 3000)
        ds = make_synthetic(n)
    else:
        try:
            from core.demo import load_demo as core_load_demo
        except ImportError:  # core.demo not available: read the packaged file directly
            from core.io import load_dataset
            from mvc_gui.resources import resource_path

            ds = load_dataset(resource_path("datasets", f"{name}.npz"))
        else:
            ds = core_load_demo(name)
    return DataSession(ds), ds.summary()


def make_synthetic(n: int, dims: tuple[int, ...] = (20, 50, 30), c: int = 8, seed: int = 0):
    """Synthetic blobs seen through several views (``core.demo.make_synthetic`` if present)."""
    try:
        from core.demo import make_synthetic as core_make
    except ImportError:
        rng = np.random.default_rng(seed)
        labels = rng.integers(0, c, size=n)
        views = []
        for d in dims:
            centres = rng.normal(scale=4.0, size=(c, d))
            views.append(centres[labels] + rng.normal(size=(n, d)))
        names = [f"view {i + 1}" for i in range(len(dims))]
        return MultiViewDataset(views, labels, names, name=f"synthetic-{n}", source="synthetic")
    return core_make(n, list(dims), c, seed)
