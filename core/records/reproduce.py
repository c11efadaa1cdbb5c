"""The ``mvc run`` command that repeats a recorded run (printed in the HTML report)."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

import numpy as np

from core.methods.params import cli_flag
from core.records.runs import RunResult

__all__ = ["plain", "reproduce_command", "solver_class", "view_indices"]


def plain(value: Any) -> Any:
    """NumPy scalars as Python ones (``repr(np.float64(0.1))`` is not a CLI value)."""
    return value.item() if isinstance(value, np.generic) else value


def _cli_value(value: Any) -> str:
    """What ``Param.parse`` reads back as this value (floats in full precision)."""
    value = plain(value)
    if value is None:
        return "auto"
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def solver_class(method: str) -> Any:
    from core.methods import REGISTRY  # late: importing the solvers loads numba

    return REGISTRY.get(method)


def view_indices(result: RunResult, summary: Mapping | None) -> list[int] | None:
    """Positions of the run's views among the file's views (None: unknown)."""
    if not summary or not summary.get("views") or not result.view_names:
        return None
    names = [v["name"] for v in summary["views"]]
    taken: list[int] = []
    for name in result.view_names:
        free = [i for i, n in enumerate(names) if n == name and i not in taken]
        if not free:
            return None
        taken.append(free[0])
    return taken


def _preprocess_names(result: RunResult) -> list[str]:
    """The ``--preprocess`` names that repeat the run (a stored record keeps only labels)."""
    if result.transforms:
        return [t.kind for t in result.transforms]
    return [p.removeprefix("auto: ").split(" ")[0] for p in result.preprocessing]


def reproduce_command(result: RunResult, summary: Mapping | None = None) -> tuple[str, list[str]]:
    """The ``mvc run`` command line equivalent to this run, and notes on its limits."""
    notes: list[str] = []
    record = {**result.dataset, **(summary or {})}
    source = str(record.get("source") or "")
    args = ["mvc", "run"]
    if source.startswith("demo:"):
        from core.data.demo import DEMOS

        name = source.removeprefix("demo:")
        args += ["--demo", name]
        if name not in DEMOS:
            notes.append(f"'{name}' was generated in the app: save it to a file to rerun it.")
    elif source:
        args.append(source)
    else:
        args.append("DATA_FILE")
        notes.append("the data source was not recorded: replace DATA_FILE by the file.")
    args += ["--method", result.method]
    idx = view_indices(result, summary)
    if idx is not None and idx != list(range(len(summary["views"]))):
        args += ["--views", ",".join(str(i + 1) for i in idx)]
    elif idx is None and summary is None:
        notes.append("the file's view list was not recorded: add --views if only some were used.")
    pre = _preprocess_names(result)
    if pre:
        args += ["--preprocess", pre[0] if len(set(pre)) == 1 else ",".join(pre)]
    cls = solver_class(result.method)
    order = [p.name for p in cls.param_spec] if cls else []
    for name in order + sorted(set(result.params) - set(order)):
        if name in result.params:
            flag = cli_flag(name)
            args += [flag, _cli_value(result.params[name])]
    if result.stopped_early:
        notes.append("this run was stopped early; the command runs to the end.")
    return " ".join(shlex.quote(a) for a in args), notes


# -- page parts -----------------------------------------------------------------------------
