"""Shared fixtures of the crossing matrix: every input kind written once per test session."""

from __future__ import annotations

import pytest

from .inputs import InputKind, Written


@pytest.fixture(scope="session")
def written(tmp_path_factory):
    """``written(kind)``: the kind's files, written on first use into a folder of their own
    (shared by every method and action: they must stay byte-identical)."""
    cache: dict[str, Written] = {}

    def get(kind: InputKind) -> Written:
        if kind.name not in cache:
            cache[kind.name] = kind.write(tmp_path_factory.mktemp(f"in-{kind.name}"))
        return cache[kind.name]

    return get
