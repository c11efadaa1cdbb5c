"""Plain-words explanations of every method for the teaching dock (Qt-free).

Each method's text lives in ``resources/teaching/<name>.html`` (teachers can edit it without
touching code): what it optimises (main formula in HTML with Unicode math), its steps in
the order the solver runs them, each tagged with the ``IterationState.stage`` during which
it runs (so the dock can highlight the step being executed), what to watch in the plots,
where our implementation deliberately differs from the paper, and the meaning of the
per-iteration ``extras``. The texts follow our solvers and their corrected specifications
(``docs/methods/*.md``), not only the papers. A method without a file (registered later)
gets a text built from its class summary.

File format: elements ``<title>``, ``<goal>``, ``<formula>``, ``<symbols>``, one
``<step stage="..." title="...">`` per step in run order, ``<watch>``, ``<deviation>``,
``<extra key="...">`` and ``<maximises/>`` for objectives that increase; their contents are
Qt rich text.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from resources import resource_path

__all__ = [
    "STAGE_TITLES",
    "MethodText",
    "Step",
    "describe_state",
    "load_text",
    "method_text",
    "render_header",
    "render_html",
]

STAGE_TITLES = {
    "preprocessing": "Preprocessing",
    "anchors": "Anchors",
    "graph": "Graphs",
    "init": "Initialisation",
    "iterating": "Each iteration",
    "postprocess": "Post-processing",
    "done": "Result",
}
HIGHLIGHT = "#fff1b8"
FORMULA_STYLE = "font-family:'DejaVu Serif','Cambria Math',serif; font-size:11pt;"
_TAGS = "title|goal|formula|symbols|step|watch|deviation|extra"
_ELEMENT = re.compile(rf"<({_TAGS})\b([^>]*)>(.*?)</\1>", re.S)
_ATTR = re.compile(r'(\w+)="([^"]*)"')


@dataclass(frozen=True)
class Step:
    stage: str  # the IterationState.stage during which this step runs
    title: str
    text: str


PREPROCESS = Step(
    "preprocessing",
    "Prepare the views",
    "each view is preprocessed as chosen in the Data panel (<i>auto</i>: rows scaled to "
    "length 1 for sparse, count, histogram or pixel views, z-score otherwise).",
)


@dataclass(frozen=True)
class MethodText:
    name: str
    title: str
    goal: str
    formula: str
    symbols: str
    steps: tuple[Step, ...]
    watch: tuple[str, ...]
    deviations: tuple[str, ...] = ()
    extras: Mapping[str, str] = field(default_factory=dict)
    maximises: bool = False

    def stages(self) -> list[str]:
        """Stages in the order of the steps (each once)."""
        return list(dict.fromkeys(s.stage for s in self.steps))

    def steps_of(self, stage: str) -> list[Step]:
        return [s for s in self.steps if s.stage == stage]


def load_text(name: str, source: str) -> MethodText:
    """Parse a teaching text (the file format of the module docstring)."""
    found: dict[str, list[tuple[dict[str, str], str]]] = {}
    for tag, attrs, content in _ELEMENT.findall(source):
        found.setdefault(tag, []).append((dict(_ATTR.findall(attrs)), " ".join(content.split())))

    def one(tag: str) -> str:
        items = found.get(tag, [])
        if len(items) != 1:
            raise ValueError(f"teaching text {name!r}: expected one <{tag}>, found {len(items)}")
        return items[0][1]

    steps = []
    for attrs, content in found.get("step", []):
        if attrs.get("stage") not in STAGE_TITLES or "title" not in attrs:
            raise ValueError(f"teaching text {name!r}: a <step> needs a known stage and a title")
        steps.append(Step(attrs["stage"], attrs["title"], content))
    if not any(s.stage == "preprocessing" for s in steps):
        steps.insert(0, PREPROCESS)
    return MethodText(
        name=name,
        title=one("title"),
        goal=one("goal"),
        formula=one("formula"),
        symbols=found["symbols"][0][1] if "symbols" in found else "",
        steps=tuple(steps),
        watch=tuple(c for _, c in found.get("watch", [])),
        deviations=tuple(c for _, c in found.get("deviation", [])),
        extras={a["key"]: c for a, c in found.get("extra", []) if "key" in a},
        maximises="<maximises/>" in source,
    )


@cache
def method_text(name: str) -> MethodText:
    """The explanation of method ``name`` (a generic one built from its class if no file)."""
    path = resource_path("teaching", f"{name}.html")
    if path.is_file():
        return load_text(name, path.read_text(encoding="utf-8"))
    from core.methods import REGISTRY

    cls = REGISTRY.get(name)
    summary = html.escape(cls.summary) if cls and cls.summary else "No description available."
    decreases = bool(getattr(cls, "objective_decreases", True))
    generic = (
        ("anchors", "Anchors", "the method chooses its anchors (representative points)."),
        ("graph", "Graphs", "it builds its graphs from the views."),
        ("init", "Start", "it sets up its starting point."),
        ("iterating", "Update", "one update of all its variables (one point on the curve)."),
        ("postprocess", "Labels", "it turns its result into labels."),
        ("done", "Result", "the final labels and fitted attributes are ready."),
    )
    return MethodText(
        name=name,
        title=html.escape((cls.title if cls else "") or name),
        goal=summary,
        formula=html.escape(cls.objective_label) if cls else "objective",
        symbols="",
        steps=(PREPROCESS, *(Step(st, title, t) for st, title, t in generic)),
        watch=(
            f"The objective should {'decrease' if decreases else 'increase'}.",
            "No step-by-step explanation is written for this method yet "
            f"(add <code>resources/teaching/{html.escape(name)}.html</code>).",
        ),
        maximises=not decreases,
    )


def render_header(text: MethodText) -> str:
    """Title and main formula (the dock keeps them in view above the scrolling text)."""
    return (
        f"<b style='font-size:11pt'>{text.title}</b>"
        f"<p align='center' style=\"{FORMULA_STYLE} margin:4px 0 0 0\">{text.formula}</p>"
    )


def render_html(text: MethodText, stage: str | None = None, header: bool = True) -> str:
    """The explanation as Qt rich text, with the steps of ``stage`` highlighted (without
    title and formula when ``header`` is False)."""
    out = [f"<h3 style='margin:0'>{text.title}</h3>"] if header else []
    out.append(f"<p><b>Goal.</b> {text.goal}</p>")
    if header:
        out.append(f"<p align='center' style=\"{FORMULA_STYLE}\">{text.formula}</p>")
    if text.symbols:
        out.append(f"<p style='color:#4a5563'>{text.symbols}</p>")
    out.append("<p><b>Steps</b> (highlighted: what the solver is doing)</p>")
    out.append("<table width='100%' cellspacing='0' cellpadding='3'>")
    for st in text.stages():
        bg = f" bgcolor='{HIGHLIGHT}'" if st == stage else ""
        mark = "<a name='now'></a>\u25b6 " if st == stage else ""
        head = STAGE_TITLES.get(st, st)
        out.append(f"<tr><td{bg} colspan='2'><b>{mark}{head}</b></td></tr>")
        steps = text.steps_of(st)
        for i, step in enumerate(steps, 1):
            num = f"{i}." if st == "iterating" and len(steps) > 1 else "\u2022"
            out.append(
                f"<tr><td{bg} valign='top' width='22'>{num}</td>"
                f"<td{bg}><i>{step.title}</i>: {step.text}</td></tr>"
            )
    out.append("</table>")
    out.append("<p><b>What to watch in the plots</b></p><ul>")
    out.extend(f"<li>{w}</li>" for w in text.watch)
    out.append("</ul>")
    if text.deviations:
        out.append("<p><b>Where our solver differs from the paper</b></p><ul>")
        out.extend(f"<li>{d}</li>" for d in text.deviations)
        out.append("</ul>")
    return "".join(out)


def describe_state(
    text: MethodText,
    state: Any,
    previous_objective: float | None = None,
    metrics: Mapping[str, float] | None = None,
) -> str:
    """Rich text on the step just executed; ``state`` is an IterationState or a Snapshot,
    ``metrics`` (ACC, NMI, ARI) those of its labels when the true labels are known."""
    stage = state.stage
    if getattr(state, "final", False) or stage == "done":
        done = " ".join(s.text for s in text.steps_of("done"))
        head = f"<b>Finished</b> after {state.iteration} iterations: {done}"
    elif stage == "iterating":
        names = " \u2192 ".join(s.title for s in text.steps_of("iterating"))
        head = f"<b>Iteration {state.iteration} just ran</b>: {names}."
    else:
        head = f"<b>{STAGE_TITLES.get(stage, html.escape(stage))}</b>"
        message = getattr(state, "message", "")
        return head + (f": {html.escape(message)}." if message else ".")
    parts = [head]
    obj = state.objective
    if obj is not None:
        line = f"Objective {obj:.6g}"
        if previous_objective is not None and stage == "iterating":
            delta = obj - previous_objective
            sign = "+" if delta >= 0 else "\u2212"
            line += f" ({sign}{abs(delta):.3g})"
            wrong = -delta if text.maximises else delta
            if wrong > 1e-9 * max(1.0, abs(obj)):
                line += " <span style='color:#b03a2e'>against the expected direction</span>"
        parts.append(line + ".")
    extras = getattr(state, "extras", None) or {}
    for key, meaning in text.extras.items():
        if key in extras:
            value = float(extras[key])
            shown = f"{int(value)}" if value == int(value) and abs(value) < 1e15 else f"{value:.4g}"
            parts.append(f"<i>{html.escape(key)}</i> = {shown} ({meaning}).")
    scores = [
        f"{k.upper()} {metrics[k]:.3f}" for k in ("acc", "nmi", "ari") if k in (metrics or {})
    ]
    if scores:
        parts.append(", ".join(scores) + ".")
    return " ".join(parts)
