"""The look of the HTML report: inline SVG charts, tables, embedded PNGs, the style sheet.

The report must open offline in any browser and print well, so its figures are plain SVG
or HTML text written here (no JavaScript, no plotting library, no Qt). Every piece of user
text goes through ``html.escape``. Charts scale with the page (``viewBox``, width 100 %).
``core.records.report`` assembles the page from these parts.
"""

from __future__ import annotations

import base64
import colorsys
import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

import numpy as np
from scipy.optimize import linear_sum_assignment

from core.numerics.metrics import confusion_matrix

__all__ = [
    "REPORT_CSS",
    "ReportFigure",
    "bar_chart",
    "cluster_palette",
    "confusion_table",
    "figures_section",
    "html_table",
    "line_chart",
    "nice_ticks",
]

# The first ten match mvc_gui/model/palette.py (Okabe-Ito, then tab10-like tones), so a cluster has
# the same colour in the report as in the app; the GUI passes its exact palette anyway.
BASE_COLORS = (
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7",
    "#56B4E9", "#F0E442", "#7F7F7F", "#8C564B", "#17BECF",
)  # fmt: skip
INK, GRID, MUTED = "#2b3440", "#e3e7ed", "#6b7686"
_FONT = 12


def cluster_palette(n: int) -> list[str]:
    """``n`` distinct hex colours: the base ten, then golden-angle hues."""
    out = list(BASE_COLORS[:n])
    for i in range(len(out), n):
        hue = (i * 0.618033988749895) % 1.0
        r, g, b = colorsys.hls_to_rgb(hue, 0.45 + 0.1 * (i % 3) / 2, 0.65)
        out.append(f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}")
    return out


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values from at most lo to at least hi (steps of 1, 2 or 5 times a power
    of ten)."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [lo]
    raw = (hi - lo) / max(count, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    # from the step at or below lo to the step at or above hi: the axis ends on a label
    first, last = math.floor(lo / step + 1e-9), math.ceil(hi / step - 1e-9)
    return [0.0 if k == 0 else k * step for k in range(first, last + 1)]


def _num(x: float) -> str:
    """Coordinates with two decimals: short files, no visible rounding."""
    return f"{x:.2f}".rstrip("0").rstrip(".")


def _label(x: float) -> str:
    return f"{x:.4g}"


def _tick_labels(ticks: Sequence[float]) -> list[str]:
    """Labels with just the decimals the step needs ("-10,200", "2.96"), exponents only for
    very large or small values."""
    step = abs(ticks[1] - ticks[0]) if len(ticks) > 1 else abs(ticks[0]) or 1.0
    big = max(abs(t) for t in ticks)
    if big >= 1e7 or step < 1e-4:
        return [f"{t:.3g}" for t in ticks]
    decimals = max(0, math.ceil(-math.log10(step) - 1e-9))
    return [f"{t:,.{decimals}f}" for t in ticks]


def _open(width: int, height: int, title: str, css_class: str) -> list[str]:
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart {escape(css_class)}" '
        f'viewBox="0 0 {width} {height}" width="100%" style="max-width:{width}px" '
        f'role="img" aria-label="{escape(title)}" font-size="{_FONT}" fill="{INK}">',
        f"<title>{escape(title)}</title>",
    ]


def _y_axis(
    lines: list[str], ticks: list[float], ymap, left: int, right: int, label: str, mid: float
) -> None:
    for t, text in zip(ticks, _tick_labels(ticks), strict=True):
        y = _num(ymap(t))
        lines.append(f'<line x1="{left}" x2="{right}" y1="{y}" y2="{y}" stroke="{GRID}"/>')
        lines.append(
            f'<text x="{left - 6}" y="{y}" text-anchor="end" dominant-baseline="middle">'
            f"{escape(text)}</text>"
        )
    if label:
        lines.append(
            f'<text transform="translate(14 {_num(mid)}) rotate(-90)" text-anchor="middle" '
            f'fill="{MUTED}">{escape(label)}</text>'
        )


def line_chart(
    ys: Sequence[float],
    *,
    title: str,
    x_label: str = "iteration",
    y_label: str = "",
    css_class: str = "line",
    color: str = "#0072B2",
    width: int = 900,
    height: int = 280,
) -> str:
    """A line over x = 1..len(ys); the polyline (class ``series``) has one point per finite
    value, so the chart shows exactly the recorded iterations."""
    values = [float(y) for y in ys]
    pts = [(i + 1, y) for i, y in enumerate(values) if math.isfinite(y)]
    left, right, top, bottom = 78, width - 16, 14, height - 42
    lines = _open(width, height, title, css_class)
    if not pts:
        lines.append(
            f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle" fill="{MUTED}">'
            "no values recorded</text></svg>"
        )
        return "\n".join(lines)
    lo, hi = min(y for _, y in pts), max(y for _, y in pts)
    if hi - lo <= 1e-12 * max(abs(hi), 1.0):  # flat: give it a visible band
        pad = max(abs(hi) * 0.05, 1e-3)
        lo, hi = lo - pad, hi + pad
    ticks = nice_ticks(lo, hi)
    lo, hi = min(lo, ticks[0]), max(hi, ticks[-1])
    n = len(values)

    def xmap(x: float) -> float:
        return left + (right - left) * ((x - 1) / (n - 1) if n > 1 else 0.5)

    def ymap(y: float) -> float:
        return bottom - (bottom - top) * (y - lo) / (hi - lo)

    _y_axis(lines, ticks, ymap, left, right, y_label, (top + bottom) / 2)
    xticks = [t for t in (nice_ticks(1, n, 6) if n > 1 else [1]) if 1 <= t <= n]
    if xticks and xticks[0] - 1 >= 0.08 * n:  # the first iteration is always labelled
        xticks.insert(0, 1)
    for t in xticks:
        if float(t).is_integer():
            x = _num(xmap(t))
            lines.append(
                f'<line x1="{x}" x2="{x}" y1="{bottom}" y2="{bottom + 4}" stroke="{INK}"/>'
            )
            lines.append(f'<text x="{x}" y="{bottom + 17}" text-anchor="middle">{int(t)}</text>')
    lines.append(f'<line x1="{left}" x2="{right}" y1="{bottom}" y2="{bottom}" stroke="{INK}"/>')
    lines.append(
        f'<text x="{(left + right) / 2}" y="{height - 6}" text-anchor="middle" '
        f'fill="{MUTED}">{escape(x_label)}</text>'
    )
    coords = " ".join(f"{_num(xmap(x))},{_num(ymap(y))}" for x, y in pts)
    lines.append(
        f'<polyline class="series" points="{coords}" fill="none" stroke="{color}" '
        'stroke-width="2" stroke-linejoin="round"/>'
    )
    if len(pts) <= 60:  # markers make single iterations readable; too dense beyond that
        for x, y in pts:
            lines.append(
                f'<circle cx="{_num(xmap(x))}" cy="{_num(ymap(y))}" r="2.5" fill="{color}">'
                f"<title>{x_label} {x}: {escape(_label(y))}</title></circle>"
            )
    lines.append("</svg>")
    return "\n".join(lines)


def bar_chart(
    values: Sequence[float],
    names: Sequence[str],
    *,
    title: str,
    y_label: str = "",
    colors: Sequence[str] | str = "#5b7fa6",
    value_format: str = "{:.3f}",
    css_class: str = "bars",
    width: int = 460,
    height: int = 240,
) -> str:
    """Vertical bars (class ``bar``) with their names below and values above (when few)."""
    vals = [float(v) if math.isfinite(float(v)) else 0.0 for v in values]
    n = len(vals)
    fills = [colors] * n if isinstance(colors, str) else list(colors)
    left, right, top = 64, width - 12, 18
    long_names = max((len(s) for s in names), default=0) > 8 or n > 16
    bottom = height - (58 if long_names else 30)
    lines = _open(width, height, title, css_class)
    hi = max(max(vals, default=0.0), 0.0)
    ticks = nice_ticks(0.0, hi if hi > 0 else 1.0, 4)
    top_val = max(hi, ticks[-1]) or 1.0

    def ymap(y: float) -> float:
        return bottom - (bottom - top) * y / top_val

    _y_axis(lines, ticks, ymap, left, right, y_label, (top + bottom) / 2)
    slot = (right - left) / max(n, 1)
    every = max(1, math.ceil(n / 40))  # thin out names when there are many bars
    for i, (v, name) in enumerate(zip(vals, names, strict=True)):
        x = left + slot * (i + 0.15)
        y = ymap(v)
        text = escape(value_format.format(v))
        lines.append(
            f'<rect class="bar" x="{_num(x)}" y="{_num(y)}" width="{_num(slot * 0.7)}" '
            f'height="{_num(bottom - y)}" fill="{fills[i % len(fills)]}">'
            f"<title>{escape(name)}: {text}</title></rect>"
        )
        cx = _num(left + slot * (i + 0.5))
        if n <= 20:
            lines.append(f'<text x="{cx}" y="{_num(y - 4)}" text-anchor="middle">{text}</text>')
        if i % every == 0:
            short = name if len(name) <= 14 else name[:13] + "\u2026"
            if long_names:
                lines.append(
                    f'<text transform="translate({cx} {bottom + 10}) rotate(35)" '
                    f'font-size="11">{escape(short)}</text>'
                )
            else:
                lines.append(
                    f'<text x="{cx}" y="{bottom + 17}" text-anchor="middle">{escape(short)}</text>'
                )
    lines.append(f'<line x1="{left}" x2="{right}" y1="{bottom}" y2="{bottom}" stroke="{INK}"/>')
    lines.append("</svg>")
    return "\n".join(lines)


def confusion_table(
    truth: Sequence[int] | np.ndarray,
    labels: Sequence[int] | np.ndarray,
    class_names: Sequence[str],
    colors: Sequence[str],
    max_size: int = 40,
) -> str:
    """Classes x clusters counts as an HTML table shaded by the share of each class; the
    clusters are ordered by their best (Hungarian) match, which is framed."""
    truth, labels = np.asarray(truth), np.asarray(labels)
    cm = confusion_matrix(truth, labels)
    classes, clusters = np.unique(truth), np.unique(labels)
    if max(cm.shape) > max_size:  # an unreadable table: say so instead
        return (
            f'<p class="note">{cm.shape[0]} classes &times; {cm.shape[1]} clusters: '
            "too large to show.</p>"
        )
    rows, cols = linear_sum_assignment(-cm)
    order = [int(c) for _, c in sorted(zip(rows, cols, strict=True))]
    order += [c for c in range(cm.shape[1]) if c not in order]  # unmatched clusters last
    matched = set(zip(rows.tolist(), cols.tolist(), strict=True))
    head = "".join(
        f'<th><span class="swatch" style="background:{colors[int(clusters[c]) % len(colors)]}">'
        f"</span>{int(clusters[c])}</th>"
        for c in order
    )
    body = []
    for r, cls in enumerate(classes):
        total = max(int(cm[r].sum()), 1)
        name = class_names[int(cls)] if 0 <= int(cls) < len(class_names) else str(cls)
        cells = []
        for c in order:
            share = cm[r, c] / total
            ink = "#fff" if share > 0.55 else "inherit"
            best = ' class="match"' if (r, c) in matched else ""
            cells.append(
                f'<td{best} style="background:rgba(0,114,178,{share:.3f});color:{ink}">'
                f"{int(cm[r, c])}</td>"
            )
        body.append(f"<tr><th>{escape(str(name))}</th>{''.join(cells)}<td>{total}</td></tr>")
    return (
        '<table class="confusion"><thead><tr><th>class \\ cluster</th>'
        f"{head}<th>total</th></tr></thead><tbody>{''.join(body)}</tbody></table>"
        '<p class="note">Rows: true classes; columns: clusters, ordered by their best match '
        "(framed); shade: share of the class.</p>"
    )


def html_table(headers: Sequence[str], rows: Sequence[Sequence[str]], cls: str = "") -> str:
    """Cells are HTML already (escape user text before)."""
    head = "".join(f"<th>{h}</th>" for h in headers)
    body = "\n".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>\n{body}\n</tbody></table>'


@dataclass(frozen=True)
class ReportFigure:
    """A picture made elsewhere (e.g. a GUI plot), embedded as PNG. ``width`` is its width
    on the page in CSS pixels (default: the image's; a 2x screen grab passes half)."""

    title: str
    png: bytes
    caption: str = ""
    width: int | None = None

    def __post_init__(self) -> None:
        if not self.png.startswith(b"\x89PNG\r\n\x1a\n") or self.png[12:16] != b"IHDR":
            raise ValueError(f"figure {self.title!r} is not PNG data")

    @property
    def display_width(self) -> int:
        return self.width or int.from_bytes(self.png[16:20], "big")


def figures_section(figures: Sequence[ReportFigure]) -> str:
    """The pictures as PNG data URIs (the page stays one file), side by side when they fit."""
    if not figures:
        return ""
    out = ['<section id="figures"><h2>Figures from the app</h2><div class="figures">']
    for fig in figures:
        data = base64.b64encode(fig.png).decode("ascii")
        cap = f"<br>{escape(fig.caption)}" if fig.caption else ""
        out.append(
            f'<figure style="width:{fig.display_width}px">'
            f'<img src="data:image/png;base64,{data}" alt="{escape(fig.title)}">'
            f"<figcaption><b>{escape(fig.title)}</b>{cap}</figcaption></figure>"
        )
    out.append("</div></section>")
    return "\n".join(out)


# print-friendly: A4 pages, no breaks inside tables or charts, colours kept when printed
REPORT_CSS = """
:root{--ink:#2b3440;--muted:#6b7686;--line:#d9dee5;--accent:#0072B2;--soft:#f4f6f9}
*{box-sizing:border-box}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
 color:var(--ink);max-width:1000px;margin:0 auto;padding:24px 28px 40px}
h1{font-size:28px;margin:0}h1 span{color:var(--muted);font-weight:400}
h2{font-size:20px;border-bottom:2px solid var(--accent);padding-bottom:3px;margin:34px 0 10px}
h3{font-size:16px;margin:22px 0 6px}
.sub{color:var(--muted);margin:2px 0 14px}
.cards{display:flex;flex-wrap:wrap;gap:8px}
.card{border:1px solid var(--line);border-radius:6px;padding:6px 12px;min-width:92px;
 background:var(--soft)}
.card span{display:block;font-size:12px;color:var(--muted);text-transform:uppercase}
.card b{font-size:19px}
table{border-collapse:collapse;margin:6px 0 10px;font-size:14px}
th,td{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
thead th{background:var(--soft)}
table.facts thead{display:none}table.facts td:first-child{font-weight:600;width:110px}
table.params td:nth-child(5){color:var(--muted);font-size:13px}
table.views td:nth-child(3){white-space:nowrap}
table.confusion td{text-align:right;min-width:34px}
table.confusion td.match{outline:2px solid var(--ink);outline-offset:-2px;font-weight:700}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px}
.badge{font-size:12px;padding:1px 6px;border-radius:8px}
.changed{background:#fde7c7;color:#7a4500}
code,pre{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace;font-size:13px}
pre.command{background:var(--soft);border:1px solid var(--line);padding:10px;
 white-space:pre-wrap;overflow-wrap:anywhere}
.note,.ref{color:var(--muted)}ul.warnings li{color:#9a5b00}
svg.chart{display:block;margin:4px 0 8px}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:0 24px}
.figures{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}
figure{margin:12px 0;max-width:100%}
figure img{display:block;width:100%;height:auto;border:1px solid var(--line)}
figcaption{font-size:13px;color:var(--muted)}
footer{margin-top:36px;color:var(--muted);font-size:12px;border-top:1px solid var(--line);
 padding-top:6px}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}
@page{size:A4;margin:14mm}
@media print{body{font-size:11pt;max-width:none;padding:0}
 h2{break-after:avoid}h3{break-after:avoid}
 table,svg,figure,pre,.cards{break-inside:avoid}
 figure{max-width:48%}}
"""
