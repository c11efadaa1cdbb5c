"""argparse flags generated from a solver's ParamSpec (one source of truth)."""

from __future__ import annotations

import argparse
from typing import Any

from core.methods.params import Param, ParamSpec, cli_flag

__all__ = ["add_param_flags", "collect_params"]


def _help(p: Param) -> str:
    default = "auto" if p.default is None else p.default
    return f"{p.help} ({p.range_text()}; default {default})"


def add_param_flags(parser: argparse.ArgumentParser, spec: ParamSpec, title: str) -> None:
    """Add one flag per parameter; values stay strings until ``collect_params`` parses them."""
    group = parser.add_argument_group(f"{title} parameters")
    for p in spec:
        flag = cli_flag(p.name)  # never one of the command's own flags
        flags = [flag] if flag != "--seed" else ["--random-state", "--seed"]
        kw: dict[str, Any] = {"dest": f"param_{p.name}", "default": None, "help": _help(p)}
        if p.kind == "choice":
            kw["choices"] = p.choices
        kw["metavar"] = p.kind.upper() if p.kind != "choice" else None
        if kw["metavar"] is None:
            del kw["metavar"]
        group.add_argument(*flags, **kw)


def collect_params(args: argparse.Namespace, spec: ParamSpec) -> dict[str, Any]:
    """The parameters the user set on the command line, parsed to their kinds."""
    out = {}
    for p in spec:
        raw = getattr(args, f"param_{p.name}", None)
        if raw is not None:
            out[p.name] = p.parse(raw)
    return out
