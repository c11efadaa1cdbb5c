"""The one road from a dataset's raw views to what a solver reads: one fitted transform per
view (:class:`~core.data.preprocessing.ViewTransform`), whatever holds the views.

In memory the views are transformed whole; views read in row blocks (a streamed file) get
their statistics from one pass and are transformed block by block as the method reads them;
large memory-mapped views (the app's solver child) get their transformed copy on disk
(``spill``) or, without room there, are transformed per block when the method reads row
blocks. Every route returns the same transforms, which the run record keeps: prediction,
profiles and reports apply them, never re-derive them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from core.data.blocks import is_source
from core.data.preprocessing import ViewTransform, transform_views
from core.data.stream_stats import preprocess_in_blocks, preprocess_spilled, preprocess_streamed

__all__ = ["estimate_views", "prepare_views"]

#: the rule of the views the number-of-clusters estimate reads (``estimate_views``)
ESTIMATE_RULE = "general"


def prepare_views(
    views: Sequence[object],
    methods: str | Sequence[str],
    auto_rule: str = "general",
    observed: np.ndarray | None = None,
    *,
    row_blocks: bool = False,
    spill: bool = False,
) -> tuple[list[object], list[ViewTransform]]:
    """The transformed views and their fitted transforms.

    ``observed`` (n x V): each view's statistics follow the samples that have it, the other
    rows are zero (never read). ``row_blocks``: the method reads row blocks (``streams`` on
    its class). ``spill``: large memory-mapped views get their copy on disk."""
    views = list(views)
    methods = [methods] * len(views) if isinstance(methods, str) else list(methods)
    large = observed is None and not any(is_source(v) for v in views)
    if spill and large:
        spilled = preprocess_spilled(views, methods, auto_rule)
        if spilled is not None:
            return spilled
    if row_blocks and large:
        views = preprocess_in_blocks(views) or views
    if any(is_source(v) for v in views):
        streamed, fitted = preprocess_streamed(views, methods, auto_rule, observed)
        return list(streamed), fitted
    return transform_views(views, methods, auto_rule, observed)


def estimate_views(
    views: Sequence[object],
    methods: str | Sequence[str],
    auto_rule: str,
    observed: np.ndarray | None = None,
    *,
    row_blocks: bool = False,
) -> Callable[[], list[object]] | None:
    """What the number-of-clusters estimate reads when it is not the method's own views: every
    view left to ``auto`` preprocessed by the ``general`` rule, the views the estimator's rule
    was chosen and judged on, held out by file. Read on a method's tf-idf text instead, it
    misses the class count on more of the shared files (docs/benchmarks/choose_k.md), and
    each method would answer differently for the same data.

    None when they are the method's own (its rule is ``general``, or no view is left to
    ``auto``); else a callable, so that they are made only when k is estimated and dropped
    once it is."""
    methods = [methods] * len(views) if isinstance(methods, str) else list(methods)
    if auto_rule == ESTIMATE_RULE or "auto" not in methods:
        return None
    views = list(views)
    return lambda: prepare_views(views, methods, ESTIMATE_RULE, observed, row_blocks=row_blocks)[0]
