"""The loaded dataset and how it is used (Qt-free).

A :class:`DataSession` wraps a :class:`~core.data.dataset.MultiViewDataset` with the user's
choices: which views are included and the preprocessing of each. ``prepared()`` returns the
preprocessed included views; results are cached per (views, methods) key so the solver
worker and the embedding worker share them (a dict store is atomic under the GIL).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from core.data.dataset import DataError, MultiViewDataset
from core.data.demo import load_demo as core_load_demo
from core.data.demo import make_synthetic
from core.data.preprocessing import PREPROCESSORS, preprocess
from core.experiments.amputation import fill_missing

__all__ = ["PREPROCESSORS", "DataSession", "load_demo", "load_path", "preprocess_views"]


def preprocess_views(
    views: list, methods: list[str], observed: np.ndarray | None = None
) -> tuple[list, list[str]]:
    """Preprocessed views; with ``observed`` the missing rows are first filled with the view's
    observed mean (only so that statistics follow the observed samples: they are never read)."""
    if observed is not None:
        views = fill_missing(views, observed, "mean")
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
        self.methods = self.methods or ["auto"] * v

    @property
    def view_indices(self) -> list[int]:
        return [i for i, keep in enumerate(self.included) if keep]

    @property
    def key(self) -> tuple:
        """Identifies the representation: dataset identity, included views, preprocessing."""
        idx = tuple(self.view_indices)
        return (self.token, idx, tuple(self.methods[i] for i in idx))

    @property
    def observed(self) -> np.ndarray | None:
        """Which sample has which included view (None: all of them)."""
        mask = self.dataset.observed
        if mask is None:
            return None
        mask = mask[:, self.view_indices]
        return None if mask.all() else mask

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
                [self.dataset.views[i] for i in idx],
                [self.methods[i] for i in idx],
                self.observed,
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
    from core.data.io import load_dataset

    ds = load_dataset(path)
    return DataSession(ds), ds.summary()


def load_demo(name: str = "handwritten") -> tuple[DataSession, dict]:
    """An embedded demo dataset, or synthetic data named ``synthetic-<n>``."""
    if name.startswith("synthetic"):
        n = int(name.partition("-")[2] or 3000)
        ds = make_synthetic(n, [20, 50, 30], 8, 0)
    else:
        ds = core_load_demo(name)
    return DataSession(ds), ds.summary()
