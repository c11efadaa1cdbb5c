"""numpydoc Parameters / Attributes sections generated from a solver's ParamSpec.

The ParamSpec is the one source of a method's parameters (validation, CLI flags, GUI widgets);
writing the same list again by hand in every docstring would drift. ``BaseSolver`` calls
:func:`numpydoc_sections` once per subclass, so ``help(FMDC)`` lists every parameter with its
type, default and range, and every fitted attribute.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping

from core.methods.params import Param, ParamSpec

__all__ = ["COMMON_ATTRIBUTES", "numpydoc_sections"]

COMMON_ATTRIBUTES: dict[str, str] = {
    "labels_": "ndarray of shape (n_samples,): the cluster of each sample, 0..n_clusters-1.",
    "view_weights_": "ndarray of shape (n_views,) or None: learned view weights "
    "(None for methods that learn none).",
    "objective_history_": "list of float: the objective after each iteration.",
    "history_": "dict of str to list of float: other per-iteration traces (residuals, ...).",
    "n_iter_": "int: iterations run.",
    "converged_": "bool: True when the stopping rule was met before ``max_iter``.",
    "anchors_": "list of ndarray, ndarray or None: the anchors (per view, or shared).",
    "anchor_graph_": "(n_samples, n_anchors) sparse or dense matrix, or None: the "
    "sample-to-anchor graph shown as the heat map.",
    "stage_times_": "dict of str to float: seconds spent in each stage.",
    "assigner_": "AnchorAssigner: the reference points ``predict`` ties new samples to "
    "(the method's anchors or fitted samples, with their clusters; complete views only).",
    "n_features_in_": "list of int: the number of features of each fitted view.",
    "resolved_params_": "dict: every parameter's value in this fit, automatic ones resolved "
    "from the data (docs/defaults.md).",
    "n_clusters_": "int: the number of clusters used (the estimate when n_clusters='auto').",
    "n_clusters_estimate_": "dict or None: with n_clusters='auto', the estimate, its ranked "
    "candidates with their gap score and stability, and the gap-score curve.",
}

_KIND_TYPES = {"int": "int", "float": "float", "choice": "str", "bool": "bool", "seed": "int"}
_WRAP = 88


def _type_line(p: Param) -> str:
    kind = _KIND_TYPES.get(p.kind, p.kind)
    if p.allow_none or p.kind == "seed":
        kind += " or None"
    return f"{p.name} : {kind}, default={p.default!r}"


def _entry(head: str, body: str) -> list[str]:
    return [head, *textwrap.wrap(body, _WRAP, initial_indent="    ", subsequent_indent="    ")]


def numpydoc_sections(spec: ParamSpec, own_attributes: Mapping[str, str] | None = None) -> str:
    """``Parameters`` from ``spec`` and ``Attributes`` (common + the method's own)."""
    lines = ["Parameters", "----------"]
    for p in spec:
        lines += _entry(_type_line(p), f"{p.help} Allowed: {p.range_text()}.")
    lines += ["", "Attributes", "----------"]
    attributes = {**COMMON_ATTRIBUTES, **(own_attributes or {})}
    for name, text in attributes.items():
        kind, _, rest = text.partition(": ")
        lines += _entry(f"{name} : {kind}", rest or kind)
    return "\n".join(lines)


def add_sections(doc: str | None, spec: ParamSpec, own: Mapping[str, str] | None) -> str:
    """``doc`` with the generated sections placed before ``References`` (numpydoc order)."""
    doc = textwrap.dedent(doc or "").strip("\n")
    # the summary line of a class docstring is not indented; dedent the rest separately
    first, _, rest = doc.partition("\n")
    doc = first + ("\n" + textwrap.dedent(rest) if rest else "")
    sections = numpydoc_sections(spec, own)
    marker = "\nReferences\n----------"
    if marker in doc:
        head, _, tail = doc.partition(marker)
        return f"{head.rstrip()}\n\n{sections}\n{marker}{tail}\n"
    return f"{doc}\n\n{sections}\n"
