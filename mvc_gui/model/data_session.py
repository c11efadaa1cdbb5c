"""The loaded dataset and how it is used (Qt-free).

A :class:`DataSession` wraps a :class:`~core.data.dataset.MultiViewDataset` with the user's
choices: which views are included and the preprocessing of each. ``prepared()`` returns the
preprocessed included views; results are cached per (views, methods) key so the solver
worker and the embedding worker share them (a dict store is atomic under the GIL).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from core.data.blocks import is_source
from core.data.dataset import DataError, MultiViewDataset
from core.data.demo import load_demo as core_load_demo
from core.data.demo import make_synthetic
from core.data.prepare import estimate_views, prepare_views
from core.data.preprocessing import PREPROCESSORS, ViewTransform

__all__ = ["PREPROCESSORS", "DataSession", "load_demo"]


_TOKENS = itertools.count(1)


@dataclass
class DataSession:
    dataset: MultiViewDataset
    included: list[bool] = field(default_factory=list)
    methods: list[str] = field(default_factory=list)
    chosen: dict[int, str] = field(default_factory=dict)
    #: the rule 'auto' follows: the selected method's ``auto_preprocessing``
    auto_rule: str = "general"
    #: the isolated loader's folder the views are memory-mapped from (child processes map the
    #: same files); the window removes it when this session is replaced or the window closes
    store_dir: str | None = None
    _cache: dict[tuple, tuple[list, list[ViewTransform]]] = field(default_factory=dict, repr=False)
    token: int = field(default_factory=lambda: next(_TOKENS))
    _classes: tuple | None = field(default=None, repr=False)  # (labels, their class count)

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
        return (self.token, idx, tuple(self.methods[i] for i in idx), self.auto_rule)

    def set_auto_rule(self, rule: str) -> None:
        """Follow another method's auto rule; what 'auto' picked is unknown until prepared."""
        if rule != self.auto_rule:
            self.auto_rule = rule
            self.chosen.clear()

    def check(self, method: type | None = None) -> None:
        """Raise DataError when the chosen views cannot be clustered (by ``method``)."""
        if not self.view_indices:
            raise DataError("all views are excluded: include at least one view")
        observed = self.observed
        if observed is not None and not observed.any(axis=1).all():
            lost = int(np.count_nonzero(~observed.any(axis=1)))
            raise DataError(f"{lost} sample(s) have none of the included views")
        if method is not None and self.streamed and not method.streams:
            from core.methods import REGISTRY

            able = [cls.__name__ for cls in REGISTRY.values() if cls.streams]
            raise DataError(
                f"{method.__name__} needs the views in memory at every iteration, but this "
                f"dataset is read in row blocks ({self.dataset.meta.get('stream_reason', '')}"
                f"): choose {' or '.join(able)}"
            )
        if observed is not None and method is not None and not method.supports_incomplete:
            missing = int(np.count_nonzero(~observed.all(axis=1)))
            raise DataError(
                f"{method.__name__} needs every view of every sample, but {missing} sample(s) "
                "miss an included view: exclude that view, load the files again keeping only "
                "the samples every view has, or choose a method that handles incomplete views"
            )

    @property
    def streamed(self) -> bool:
        """Whether the views are read in row blocks (out-of-core, never whole)."""
        return any(is_source(v) for v in self.dataset.views)

    @property
    def observed(self) -> np.ndarray | None:
        """Which sample has which included view (None: all complete)."""
        mask = self.dataset.observed
        if mask is None:
            return None
        mask = mask[:, self.view_indices]
        return None if mask.all() else mask

    def prepared(self) -> tuple[list, list[ViewTransform]]:
        """Preprocessed included views and the fitted transform of each (slow: worker)."""
        self.check()
        key = self.key
        if key not in self._cache:
            idx = list(key[1])
            views, fitted = prepare_views(
                [self.dataset.views[i] for i in idx],
                [self.methods[i] for i in idx],
                self.auto_rule,
                self.observed,
            )
            self._cache = {key: (views, fitted)}
            self.chosen.update(zip(idx, (t.label for t in fitted), strict=True))
        return self._cache[key]

    def views_for_k(self) -> Callable[[], list] | None:
        """What an ``auto`` number of clusters is estimated on (the included views as every
        method's estimate reads them: ``core.data.prepare.estimate_views``), as a callable;
        None: the prepared views themselves."""
        idx = self.view_indices
        return estimate_views(
            [self.dataset.views[i] for i in idx],
            [self.methods[i] for i in idx],
            self.auto_rule,
            self.observed,
        )

    @property
    def view_names(self) -> list[str]:
        return [self.dataset.view_names[i] for i in self.view_indices]

    @property
    def labels(self) -> np.ndarray | None:
        return self.dataset.labels

    @property
    def n_classes(self) -> int | None:
        """The number of reference classes, counted once per labels array and without
        sorting (``np.unique`` of a million labels held the window ~60 ms)."""
        labels = self.dataset.labels
        if labels is None:
            return None
        if self._classes is None or self._classes[0] is not labels:
            if labels.dtype.kind in "iu" and labels.size and 0 <= labels.min():
                count = int(np.count_nonzero(np.bincount(labels)))
            else:
                count = self.dataset.n_classes
            self._classes = (labels, count)
        return self._classes[1]


def load_demo(name: str = "handwritten") -> tuple[DataSession, dict]:
    """An embedded demo dataset, or synthetic data named ``synthetic-<n>``."""
    if name.startswith("synthetic"):
        n = int(name.partition("-")[2] or 3000)
        ds = make_synthetic(n, [20, 50, 30], 8, 0)
    else:
        ds = core_load_demo(name)
    return DataSession(ds), ds.summary()
