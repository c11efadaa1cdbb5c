"""CONTRIBUTING's checklist for a method, held for every registered method: a method that
misses a step fails here by name, so the walk-through cannot drift from what the code needs.

The steps checked elsewhere for every registered method: the parameter table against
``__init__`` and the fit contract (``test_protocol.py``), the import rules
(``tests/test_layering.py``), the teaching text's stages (``tests/mvc_gui/tools/
test_teaching.py``), every input kind and after-run action (``tests/crossing``).
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from core.cli.main import build_parser
from core.data.preprocessing import AUTO_RULES
from core.methods import REGISTRY, BaseSolver
from core.methods.params import COMMAND_FLAGS, Relative, cli_flag

ROOT = Path(__file__).resolve().parents[3]
NAMES = sorted(n for n, cls in REGISTRY.items() if cls.__module__.startswith("core.methods."))
PANELS = {"weights", "anchor_graph", "convergence"}


def _package(cls: type) -> str | None:
    """``fmdc`` for ``core.methods.fmdc.solver``; None for a method in a module of its own
    (the baselines)."""
    parts = cls.__module__.split(".")
    return parts[2] if len(parts) > 3 else None


@pytest.mark.parametrize("name", NAMES)
def test_1_the_class_describes_itself(name):
    cls = REGISTRY[name]
    for attr in ("name", "title", "summary", "reference"):
        assert getattr(cls, attr), f"{cls.__name__}.{attr} is empty"
    assert all(p.help for p in cls.param_spec), "every parameter has a help text (tooltip)"


@pytest.mark.parametrize("name", NAMES)
def test_2_what_it_can_do_is_declared_and_true(name):
    cls = REGISTRY[name]
    own_incomplete = cls._run_incomplete is not BaseSolver._run_incomplete
    assert cls.supports_incomplete == own_incomplete, (
        "supports_incomplete is True exactly when the class implements _run_incomplete"
    )
    assert cls.auto_preprocessing in AUTO_RULES
    assert set(cls.panel_notes) <= PANELS and all(cls.panel_notes.values())
    assert cls.tune_grid, "mvc tune needs a grid (tune_grid) over the main parameters"
    names = {p.name for p in cls.param_spec}
    for param, values in cls.tune_grid.items():
        assert param in names, f"tune_grid names {param!r}, not a parameter"
        if not isinstance(values, Relative):  # relative ones scale the automatic value
            for v in values:
                cls.param_spec.validate({**cls.param_spec.defaults(), param: v}, owner=name)
    assert isinstance(cls.streams, bool)


@pytest.mark.parametrize("name", NAMES)
def test_3_every_parameter_has_its_own_command_line_flag(name):
    """Method parameters and the command's flags never collide (anchor-sc's ``view``
    against ``--view NAME=PATH``): each parameter parses from its flag in every command."""
    cls = REGISTRY[name]
    parser = build_parser(name)
    for p in cls.param_spec:
        flag = cli_flag(p.name)
        assert flag not in COMMAND_FLAGS or flag == "--seed"
        value = str(p.default if p.default is not None else p.low if p.low is not None else 1)
        if p.kind == "choice":
            value = str(p.choices[0])
        for command in (["run", "--demo"], ["tune", "--demo"], ["sweep", "--demo"]):
            extra = (
                ["--out", "x.csv", "--grid", "random_state=0,1"] if command[0] == "sweep" else []
            )
            args = parser.parse_args([*command, "--method", name, flag, value, *extra])
            assert getattr(args, f"param_{p.name}") == value, (command, flag)


def test_3_the_command_flags_list_covers_every_parser():
    """COMMAND_FLAGS (which names a parameter may not take) lists every flag the commands
    define (robustness's own --n-clusters aside: it takes no method parameters), so a new
    data flag cannot silently shadow a parameter."""
    parser = build_parser(None)
    sub = next(a for a in parser._actions if a.dest == "command")
    defined = {
        flag
        for p in sub.choices.values()
        for flag in p._option_string_actions
        if flag.startswith("--")
    } - {"--n-clusters"}
    assert defined <= COMMAND_FLAGS, sorted(defined - COMMAND_FLAGS)


@pytest.mark.parametrize("name", NAMES)
def test_4_to_7_tests_page_teaching_text_and_benchmark_case_exist(name):
    cls = REGISTRY[name]
    pkg = _package(cls)
    if pkg is not None:  # a method package has its own tests and page
        assert (ROOT / f"tests/core/methods/test_{pkg}.py").is_file()
        assert (ROOT / f"docs/methods/{pkg}.md").is_file()
    assert (ROOT / f"resources/teaching/{name}.html").is_file()
    case = ROOT / f"benchmarks/cases/{name.replace('-', '_')}.py"
    assert case.is_file(), f"{case.relative_to(ROOT)}: the benchmark case"


@pytest.mark.parametrize("name", NAMES)
def test_the_registry_found_it_by_its_package(name):
    """Registered because core.methods discovered its module, not because a list names it."""
    cls = REGISTRY[name]
    module = importlib.import_module(cls.__module__)
    assert getattr(module, cls.__name__) is cls
    code = (ROOT / "core/methods/__init__.py").read_text(encoding="utf-8").split('"""')[-1]
    assert cls.__name__ not in code and f'"{name}"' not in code
