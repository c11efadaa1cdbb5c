"""MATLAB files that store the samples in named parts: ``x1_train``, ``x1_test``, ``x2_train``,
... with ``gt_train``, ``gt_test``. The parts of each variable are joined into one variable
(``x1``, ``gt``) in the order train, validation, test, so the file loads as one dataset; a
warning says so. The part sizes come from the label parts (a view part is stacked along its
axis of that length, so column-stored parts work too).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

from core.data.dataset import DataError

__all__ = ["PART_ORDER", "merge_parts"]

#: The order parts are joined in (suffix -> rank); synonyms share a rank.
PART_ORDER = {"train": 0, "training": 0, "tr": 0, "val": 1, "valid": 1, "validation": 1,
              "dev": 1, "test": 2, "testing": 2, "te": 2}  # fmt: skip
_PART_RE = re.compile(r"^(?P<base>.+)_(?P<part>" + "|".join(PART_ORDER) + r")$", re.I)


def _split(name: str) -> tuple[str, str] | None:
    m = _PART_RE.match(name)
    if m is None or not m.group("base").strip("_"):
        return None
    return m.group("base").rstrip("_"), m.group("part").lower()


def _rows(value: object) -> tuple[int, ...]:
    return tuple(getattr(value, "shape", ()))


def _stack(parts: list[object], sizes: list[int], base: str) -> object:
    """Stack parts along the axis whose length is each part's sample count."""
    shapes = [_rows(p) for p in parts]
    if all(len(s) == 2 and s[0] == k for s, k in zip(shapes, sizes, strict=True)):
        axis = 0
    elif all(len(s) == 2 and s[1] == k for s, k in zip(shapes, sizes, strict=True)):
        axis = 1
    else:
        got = ", ".join("x".join(map(str, s)) for s in shapes)
        raise DataError(
            f"the parts of '{base}' ({got}) do not match the label parts' sizes "
            f"({', '.join(map(str, sizes))})"
        )
    if any(sp.issparse(p) for p in parts):
        return (sp.vstack if axis == 0 else sp.hstack)([sp.csr_matrix(p) for p in parts]).tocsr()
    return np.concatenate([np.asarray(p) for p in parts], axis=axis)


def merge_parts(variables: Mapping[str, object], label_names: set[str], notes: list[str]) -> dict:
    """Join ``<base>_<part>`` variables when a label variable is split the same way."""
    groups: dict[str, dict[str, str]] = {}
    for key in variables:
        if (found := _split(key)) is not None:
            base, part = found
            groups.setdefault(base, {})[part] = key
    label_bases = [b for b in groups if b.lower() in label_names]
    if not label_bases:
        return dict(variables)
    label_base = label_bases[0]
    parts = sorted(groups[label_base], key=lambda p: PART_ORDER[p])
    sizes = [int(np.asarray(variables[groups[label_base][p]]).size) for p in parts]
    out = dict(variables)
    joined = []
    for base, have in groups.items():
        if sorted(have, key=lambda p: PART_ORDER[p]) != parts or base in out:
            continue
        values = [variables[have[p]] for p in parts]
        if base == label_base:
            merged = np.concatenate([np.asarray(v).ravel() for v in values])
        else:
            merged = _stack(values, sizes, base)
        for p in parts:
            del out[have[p]]
        out[base] = merged
        joined.append(base)
    if joined:
        order = " + ".join(parts)
        notes.append(
            f"the file stores the samples in parts ({order}): joined in that order into "
            f"{', '.join(repr(b) for b in joined)} ({' + '.join(map(str, sizes))} = "
            f"{sum(sizes)} samples)"
        )
    return out
