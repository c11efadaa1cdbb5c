"""Declarative parameter tables: one source for validation, CLI flags, GUI widgets and help.

Each solver class declares ``param_spec = ParamSpec(Param(...), ...)``. The same table checks
values (``ParamSpec.validate``), generates ``mvc run`` flags and builds the GUI parameter panel.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

__all__ = ["COMMAND_FLAGS", "Param", "ParamError", "ParamSpec", "Relative", "cli_flag"]


class ParamError(ValueError):
    """A parameter value out of its allowed range, naming the parameter and the range."""


@dataclass(frozen=True)
class Param:
    """One hyper-parameter.

    kind is ``"int"``, ``"float"``, ``"choice"``, ``"bool"`` or ``"seed"`` (int or None).
    ``low``/``high`` are inclusive bounds (None: unbounded); ``log`` asks for a log-scale
    widget; ``allow_none`` lets ``None`` mean "automatic" (the help says what that does;
    the solver's ``resolve_defaults`` sizes it from the data); ``typical`` centres value
    grids when the default is automatic; ``auto`` accepts the string ``"auto"``: estimated
    from the data when the solver runs (the number of clusters).
    """

    name: str
    kind: str
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    log: bool = False
    choices: tuple[str, ...] = ()
    allow_none: bool = False
    advanced: bool = False
    label: str = ""
    #: a representative value for grids when the default is automatic (None)
    typical: Any = None
    auto: bool = False

    @property
    def display(self) -> str:
        return self.label or self.name.replace("_", " ")

    def range_text(self) -> str:
        if self.kind == "choice":
            return "one of " + ", ".join(repr(c) for c in self.choices)
        if self.kind == "bool":
            return "True or False"
        lo = "-inf" if self.low is None else _fmt(self.low)
        hi = "inf" if self.high is None else _fmt(self.high)
        text = f"{'an integer' if self.kind in ('int', 'seed') else 'a number'} in [{lo}, {hi}]"
        if self.allow_none or self.kind == "seed":
            text += " or None"
        if self.auto:
            text += " or 'auto'"
        return text

    def check(self, value: Any, owner: str = "") -> Any:
        """Return the value (normalised) or raise ParamError naming the parameter."""
        where = f"The '{self.name}' parameter" + (f" of {owner}" if owner else "")
        if value is None and (self.allow_none or self.kind == "seed"):
            return None
        if self.auto and value == "auto":
            return "auto"
        bad = ParamError(f"{where} must be {self.range_text()}. Got {value!r} instead.")
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            raise bad
        if self.kind == "choice":
            if isinstance(value, str) and value in self.choices:
                return value
            raise bad
        if self.kind in ("int", "seed"):
            if isinstance(value, bool) or not isinstance(value, Integral):
                if isinstance(value, Real) and float(value).is_integer():
                    value = int(value)
                else:
                    raise bad
            value = int(value)
        elif self.kind == "float":
            if isinstance(value, bool) or not isinstance(value, Real):
                raise bad
            value = float(value)
            if not math.isfinite(value):
                raise bad
        if self.low is not None and value < self.low:
            raise bad
        if self.high is not None and value > self.high:
            raise bad
        return value

    @property
    def flag(self) -> str:
        """The ``mvc`` flag: ``--n-clusters`` for ``n_clusters`` (see :func:`cli_flag`)."""
        return cli_flag(self.name)

    def parse(self, text: str) -> Any:
        """Parse a command-line string into a value of this parameter's kind; text that is
        not one raises ParamError naming the flag and what it takes."""
        text = text.strip()
        if self.auto and text.lower() == "auto":
            return "auto"
        if text.lower() in ("none", "auto") and (self.allow_none or self.kind == "seed"):
            return None
        if self.kind == "bool":
            if text.lower() in ("1", "true", "yes", "on"):
                return True
            if text.lower() in ("0", "false", "no", "off"):
                return False
            raise ParamError(f"{self.flag} takes true or false; got {text!r}")
        if self.kind not in ("int", "seed", "float"):
            return text
        try:
            value = float(text)
        except ValueError:
            raise ParamError(f"{self.flag} takes {self.range_text()}; got {text!r}") from None
        if self.kind == "float" or not value.is_integer():
            return value  # a fraction for an integer is refused by check(), with the range
        return int(value)


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else f"{x:g}"


class ParamSpec:
    """An ordered table of :class:`Param`."""

    def __init__(self, *params: Param) -> None:
        names = [p.name for p in params]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate parameter names in {names}")
        self._params = {p.name: p for p in params}

    def __iter__(self) -> Iterator[Param]:
        return iter(self._params.values())

    def __len__(self) -> int:
        return len(self._params)

    def __contains__(self, name: object) -> bool:
        return name in self._params

    def __getitem__(self, name: str) -> Param:
        return self._params[name]

    def names(self) -> list[str]:
        return list(self._params)

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self}

    def validate(self, values: Mapping[str, Any], owner: str = "") -> dict[str, Any]:
        """Check every known parameter; unknown names are an error."""
        unknown = set(values) - set(self._params)
        if unknown:
            raise ParamError(
                f"unknown parameter(s) {sorted(unknown)} for {owner or 'this method'}; "
                f"known: {self.names()}"
            )
        return {k: self._params[k].check(v, owner) for k, v in values.items()}

    def __add__(self, other: ParamSpec) -> ParamSpec:
        merged = dict(self._params)
        merged.update(other._params)
        return ParamSpec(*merged.values())


class Relative(tuple):
    """Tuning grid values given as multiples of the parameter's automatic value on the data at
    hand (a fixed grid misses a parameter whose automatic value scales with the data: ALPC's
    λ1 is 3.16·Σ‖X_v‖²/Σd_v, from below 1 to above 1e7 on the shared files)."""


#: the ``mvc`` command's own flags (data, outputs, experiments): a method parameter of the same
#: name is given as ``--param-<name>`` instead, so the two namespaces never collide (anchor-sc's
#: ``view`` against the data flag ``--view NAME=PATH``). ``tests/core/cli`` checks that this
#: covers every flag the parsers define.
COMMAND_FLAGS = frozenset(
    """--align --alpha --backend --criterion --demo --event-column --fill --fraction --grid
    --group --help --html --id-column --isolate --json --label-column --levels --meta --method
    --methods --missing --missing-values --n-jobs --no-isolate --no-stream --noise-scale
    --noisy-views --out --out-dir --preprocess --profile --quiet --report --run --scheduler
    --seed --seeds --stream --stream-above --time-column --versus --view --views
    --write-back""".split()
)

_ALIASES = {"random_state": "--seed"}


def cli_flag(name: str) -> str:
    """The ``mvc`` flag of the method parameter ``name`` (``--seed`` for the seed)."""
    if name in _ALIASES:
        return _ALIASES[name]
    flag = "--" + name.replace("_", "-")
    return "--param-" + flag[2:] if flag in COMMAND_FLAGS else flag
