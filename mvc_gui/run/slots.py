"""Callbacks that hold their owner weakly: worker signal slots, deferred panel updates.

A controller parents its workers and connects their signals to closures over itself. A strong
closure kept a controller whose last other reference was gone alive until its worker was
deleted; deleting the worker released the closure, freed the controller inside the worker's
destructor, and the controller deleted the half-destroyed worker again as its child: "shared
QObject was deleted directly", then a segfault (CI, test_layout_hold, about 1 run in 10).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["weak_slot"]

T = TypeVar("T")


def weak_slot(owner: T, call: Callable[..., Any]) -> Callable[..., None]:
    """A plain function for ``signal.connect``: ``call(owner, *args)`` while ``owner`` is
    alive, nothing after. ``call`` must not capture ``owner`` itself."""
    ref = weakref.ref(owner)

    def slot(*args: Any) -> None:
        alive = ref()
        if alive is not None:
            call(alive, *args)

    return slot
