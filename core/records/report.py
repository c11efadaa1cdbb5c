"""An HTML report of one run: one self-contained file to hand out or print.

``build_report(result, summary, figures)`` returns the page as text: data summary, method
and every parameter (defaults marked), seed, metrics, convergence, timings, charts drawn as
inline SVG (``core.records.svg_charts``), optional PNG figures from the app embedded as data URIs,
package versions and the ``mvc run`` command that repeats the run. No external assets, no
scripts: it opens offline in any browser. All user text is escaped. ``write_report`` writes
it atomically. Qt-free: the CLI (``mvc run --html``) and the GUI share it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from datetime import datetime
from html import escape
from pathlib import Path
from typing import Any

import numpy as np

from core.data.atomic import atomic_write, check_writable
from core.data.preprocessing import AUTO_RULES
from core.methods.base import normalized_weights
from core.numerics.k_estimate import candidate_evidence, coarse_note, describe_estimate
from core.records.reproduce import plain, reproduce_command, solver_class, view_indices
from core.records.runs import RunResult, package_versions
from core.records.svg_charts import (
    REPORT_CSS,
    ReportFigure,
    bar_chart,
    cluster_palette,
    confusion_table,
    figures_section,
    html_table,
    line_chart,
)

__all__ = [
    "ReportFigure",
    "build_report",
    "reproduce_command",
    "write_report",
]

METRICS = (
    ("acc", "ACC", "best one-to-one matching of clusters to classes (Hungarian), share of samples"),
    ("nmi", "NMI", "normalised mutual information (arithmetic-mean normalisation)"),
    ("nmi_max", "NMI (max)", "mutual information normalised by the larger entropy"),
    ("purity", "Purity", "share of samples in the majority class of their cluster"),
    ("ari", "ARI", "adjusted Rand index: pair agreement corrected for chance (0 random, 1 same)"),
    ("f_score", "F-score", "pairwise F-score: harmonic mean of pair precision and recall"),
)


def _fmt(value: Any) -> str:
    value = plain(value)
    if value is None:
        return "auto"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _data_section(result: RunResult, summary: Mapping | None) -> str:
    rec = {**result.dataset, **(summary or {})}
    n = rec.get("n_samples", int(result.labels.size))
    facts = [
        ("Name", escape(str(rec.get("name", "?")))),
        ("Source", escape(str(rec.get("source", "")))),
    ]
    facts.append(("Samples", f"{int(n):,}"))
    out = ['<section id="data"><h2>Data</h2>']
    classes, counts = rec.get("classes"), rec.get("class_counts")
    if classes:
        text = ", ".join(
            f"{escape(str(c))}&nbsp;({k})" for c, k in zip(classes, counts or [], strict=False)
        )
        facts.append(("Classes", f"{len(classes)}: {text}"))
    else:
        facts.append(("Classes", "no labels in the data"))
    out.append(html_table(["", ""], [(k, v) for k, v in facts], "facts"))
    idx = view_indices(result, summary)
    pre = result.preprocessing
    if summary and summary.get("views"):
        dtypes = (summary.get("meta") or {}).get("dtypes") or []
        rows = []
        for i, v in enumerate(summary["views"]):
            used = idx is not None and i in idx
            how = pre[idx.index(i)] if used and idx.index(i) < len(pre) else ""
            rows.append(
                [
                    str(i + 1),
                    escape(str(v["name"])),
                    f"{v['shape'][0]:,} &times; {v['shape'][1]:,}",
                    escape(str(v.get("storage", ""))),
                    f"{100 * float(v.get('density', 1)):.1f}&nbsp;%",
                    escape(str(dtypes[i])) if i < len(dtypes) and dtypes[i] else "",
                    f"{v['min']:.4g} &hellip; {v['max']:.4g}" if "min" in v else "",
                    str(v.get("zero_rows", "")),
                    escape(how) if used else "",
                    "yes" if used else ("?" if idx is None else "<b>not used</b>"),
                ]
            )
        heads = (
            "#|view|size (n &times; d)|storage|non-zeros|stored as|value range|"
            "all-zero rows|preprocessing|used"
        ).split("|")
    else:
        dims = rec.get("dims") or [""] * len(result.view_names)
        rows = [
            [str(i + 1), escape(name), f"{int(n):,} &times; {d}", escape(how)]
            for i, (name, d, how) in enumerate(
                zip(result.view_names, dims, pre or [""] * len(dims), strict=False)
            )
        ]
        heads = ["#", "view", "size (n &times; d)", "preprocessing"]
    out.append("<h3>Views</h3>" + html_table(heads, rows, "views"))
    warnings = list((summary or {}).get("warnings") or [])
    if warnings:
        items = "".join(f"<li>{escape(str(w))}</li>" for w in warnings)
        out.append(f'<h3>Loader warnings</h3><ul class="warnings">{items}</ul>')
    out.append("</section>")
    return "\n".join(out)


def _method_section(result: RunResult) -> str:
    cls = solver_class(result.method)
    title = escape(cls.title if cls and cls.title else result.method)
    out = [
        f'<section id="method"><h2>Method</h2><p class="lead"><b>{title}</b> '
        f"(<code>{escape(result.method)}</code>)</p>"
    ]
    if cls and cls.summary:
        out.append(f"<p>{escape(cls.summary)}</p>")
    if cls and cls.reference:
        out.append(f'<p class="ref">Reference: {escape(cls.reference)}</p>')
    spec = {p.name: p for p in cls.param_spec} if cls else {}
    names = list(spec) + sorted(set(result.params) - set(spec))
    rows = []
    for name in (k for k in names if k in result.params):
        value, p = result.params[name], spec.get(name)
        changed = p is not None and value != p.default
        mark = '<span class="badge changed">changed</span>' if changed else "default"
        shown = escape(_fmt(value))
        if value is None and result.resolved_params.get(name) is not None:
            shown = f"automatic: {escape(_fmt(result.resolved_params[name]))}"
        rows.append(
            [
                f"{escape(p.display if p else name)}<br><code>{escape(name)}</code>",
                f"<b>{shown}</b>" if changed else shown,
                escape(_fmt(p.default)) if p else "?",
                mark if p else "not in the table",
                escape(p.help) if p else "",
            ]
        )
    if cls and any(p.startswith("auto") for p in result.preprocessing):
        rule = AUTO_RULES.get(cls.auto_preprocessing, ("", ""))[1]
        out.append(
            f'<p class="note">Automatic preprocessing for this method: {escape(rule)} '
            f"(rule <code>{escape(cls.auto_preprocessing)}</code>).</p>"
        )
    out.append("<h3>Parameters</h3>")
    out.append(html_table(["parameter", "value", "default", "", "meaning"], rows, "params"))
    if est := result.n_clusters_estimate:
        out.append(_estimate_html(est))
    out.append("</section>")
    return "\n".join(out)


def _estimate_html(est: Mapping[str, Any]) -> str:
    """The estimated number of clusters with its ranked candidates and their evidence."""
    rows = [
        [
            str(k),
            "" if gap is None else f"{gap:.2f}",
            "" if stab is None else f"{stab:.2f}",
        ]
        for k, gap, stab in candidate_evidence(est)
    ]
    return (
        f"<p>Number of clusters estimated without labels: <b>{escape(describe_estimate(est))}"
        "</b>. Candidates, best first: gap score (1 = the largest drop of the anchor-graph "
        "spectrum) and stability (agreement of clusterings of random subsamples, 1 = "
        "identical).</p>\n"
        + (f"<p>Note: {escape(note)}.</p>\n" if (note := coarse_note(est)) else "")
        + html_table(["k", "gap score", "stability"], rows, "k-candidates")
    )


def _results_section(result: RunResult, summary: Mapping | None, colors: Sequence[str]) -> str:
    out = ['<section id="results"><h2>Results</h2>']
    if result.metrics:
        rows = [
            [name, f'<span data-metric="{key}">{result.metrics[key]:.4f}</span>', meaning]
            for key, name, meaning in METRICS
            if key in result.metrics
        ]
        out.append(html_table(["metric", "value", "meaning"], rows, "metrics"))
    else:
        out.append(
            '<p class="note">The true labels were not available, so no accuracy '
            "metrics (ACC, NMI, ARI...) could be computed.</p>"
        )
    status = (
        "stopped by the user (partial result)"
        if result.stopped_early
        else "converged"
        if result.converged
        else "stopped at the iteration limit (max_iter)"
    )
    out.append(f"<p>{result.n_iter} iterations, <b>{status}</b>.</p>")
    if result.timings:
        total = result.timings.get("total") or sum(result.timings.values())
        rows = [
            [escape(k), f"{v:.3f}", f"{100 * v / total:.0f}&nbsp;%" if total else ""]
            for k, v in result.timings.items()
        ]
        out.append(
            "<h3>Time per stage</h3>" + html_table(["stage", "seconds", "share"], rows, "times")
        )
    cls = solver_class(result.method)
    ylabel = cls.objective_label if cls else "objective"
    out.append("<h3>Objective per iteration</h3>")
    out.append(
        line_chart(
            result.objective_history,
            title="Objective per iteration",
            y_label=ylabel,
            css_class="objective",
        )
    )
    pair = []
    if result.view_weights:
        w = normalized_weights(result.view_weights)
        names = list(result.view_names) or [f"view {i + 1}" for i in range(w.size)]
        title = "View weights (sum 1)"
        chart = bar_chart(w, names, title=title, y_label="weight", css_class="weights")
        pair.append("<h3>Learned view weights</h3>" + chart)
    ids, sizes = np.unique(np.asarray(result.labels), return_counts=True)
    fills = [colors[int(i) % len(colors)] for i in ids]
    chart = bar_chart(
        sizes,
        [str(int(i)) for i in ids],
        title="Samples per cluster",
        y_label="samples",
        value_format="{:.0f}",
        css_class="sizes",
        colors=fills,
    )
    pair.append("<h3>Cluster sizes</h3>" + chart)
    out.append('<div class="pair">' + "".join(f"<div>{p}</div>" for p in pair) + "</div>")
    if result.true_labels is not None:
        names = list((summary or {}).get("classes") or [])
        out.append("<h3>Confusion with the true labels</h3>")
        out.append(confusion_table(result.true_labels, result.labels, names, colors))
    if result.history:
        out.append("<h3>Other series recorded per iteration</h3>")
        extra = []
        for key, series in result.history.items():
            chart = line_chart(
                series,
                title=f"{key} per iteration",
                y_label=str(key),
                css_class="extra",
                color="#6b7686",
                width=460,
                height=200,
            )
            extra.append(f'<div><p class="note">{escape(str(key))}</p>{chart}</div>')
        out.append('<div class="pair">' + "".join(extra) + "</div>")
    out.append("</section>")
    return "\n".join(out)


def _tail(result: RunResult, summary: Mapping | None) -> str:
    command, notes = reproduce_command(result, summary)
    note = "".join(f"<li>{escape(n)}</li>" for n in notes)
    versions = result.versions or package_versions()
    rows = [[escape(k), escape(str(v))] for k, v in versions.items()]
    return (
        '<section id="reproduce"><h2>Reproduce this run</h2><p>The same seed and parameters '
        "give the same clusters. From a terminal where MVC Studio is installed:</p>"
        f'<pre class="command">{escape(command)}</pre>'
        + (f'<ul class="note">{note}</ul>' if note else "")
        + '</section>\n<section id="versions"><h2>Versions</h2>'
        + html_table(["package", "version"], rows, "versions")
        + "</section>"
    )


def _when(created: str) -> str:
    try:
        return datetime.fromisoformat(created).strftime("%Y-%m-%d %H:%M %Z").strip()
    except ValueError:
        return created


def build_report(
    result: RunResult,
    summary: Mapping[str, Any] | None = None,
    figures: Sequence[ReportFigure] = (),
    *,
    cluster_colors: Sequence[str] | None = None,
    profiles_section: str = "",
) -> str:
    """The report as one HTML page.

    summary : ``MultiViewDataset.summary()`` of the file the run used (all its views);
    without it the run's own ``dataset`` record is used (fewer details).
    figures : PNG pictures to embed (the app's embedding and anchor-graph plots).
    cluster_colors : hex colour per cluster id (the app passes its palette).
    profiles_section : HTML of the cluster profiles (``profiles_table.profiles_html``).
    """
    rec = {**result.dataset, **(summary or {})}
    cls = solver_class(result.method)
    method = cls.title.split(":")[0] if cls and cls.title else result.method
    name, when = str(rec.get("name", "dataset")), _when(result.created)
    k = int(np.max(result.labels)) + 1 if result.labels.size else 1
    colors = list(cluster_colors or []) or cluster_palette(max(k, 1))
    seed = result.params.get("random_state")
    cards = [
        ("samples", f"{int(rec.get('n_samples', result.labels.size)):,}"),
        ("clusters", str(np.unique(result.labels).size)),
        ("iterations", str(result.n_iter)),
        ("seed", "none (random)" if seed is None else escape(str(seed))),
    ]
    cards += [
        (label, f"{result.metrics[key]:.4f}")
        for key, label, _ in METRICS
        if key in result.metrics and key != "nmi_max"
    ]
    card_html = "".join(f'<div class="card"><span>{k}</span><b>{v}</b></div>' for k, v in cards)
    version = escape(str(result.versions.get("mvc-studio", "")))
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="MVC Studio">
<title>{escape(f"{name} – {method} – {when}")}</title>
<style>{REPORT_CSS}</style>
</head>
<body>
<header><h1>{escape(name)} <span>&middot; {escape(method)}</span></h1>
<p class="sub">Clustering run of {escape(when)} &middot; MVC Studio {version}</p>
<div class="cards">{card_html}</div></header>
<main>
{_data_section(result, summary)}
{_method_section(result)}
{_results_section(result, summary, colors)}
{profiles_section}
{figures_section(figures)}
{_tail(result, summary)}
</main>
<footer>Made with MVC Studio. This page is self-contained: it needs no network and prints
as is.</footer>
</body>
</html>
"""


def write_report(
    path: str | os.PathLike[str],
    result: RunResult,
    summary: Mapping[str, Any] | None = None,
    figures: Sequence[ReportFigure] = (),
    **kw: Any,
) -> Path:
    """Build the report and write it atomically (temporary file + rename)."""
    check_writable(path)
    return atomic_write(path, build_report(result, summary, figures, **kw))
