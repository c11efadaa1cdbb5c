"""The HTML run report: content, escaping, charts, no-label runs and `mvc run --html`."""

from __future__ import annotations

import base64
import csv
import re
import shlex
import struct
import xml.etree.ElementTree as ET
import zlib
from html import unescape
from html.parser import HTMLParser

import numpy as np
import pytest

from core.cli.main import main
from core.data.dataset import MultiViewDataset
from core.methods import FMDC
from core.numerics.metrics import all_metrics
from core.records.report import ReportFigure, build_report, reproduce_command, write_report
from core.records.runs import RunResult, package_versions
from core.records.svg_charts import bar_chart, line_chart, nice_ticks
from tests.conftest import make_blobs_views

VOID = {"meta", "br", "img", "hr", "input", "link", "col", "area", "base", "source", "wbr"}
SVG = "http://www.w3.org/2000/svg"
HOSTILE = "<script>alert('x')</script>"


class _Checker(HTMLParser):
    """Fails on a closing tag that does not match the open one (html.parser is lenient)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-5:])
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def parse(html: str) -> _Checker:
    checker = _Checker()
    checker.feed(html)
    checker.close()
    assert checker.stack == [], checker.stack
    return checker


def svgs(html: str) -> dict[str, ET.Element]:
    """Every inline chart, parsed as XML (so each is well-formed), by its css class."""
    out = {}
    for text in re.findall(r"<svg .*?</svg>", html, flags=re.S):
        root = ET.fromstring(text)
        out[root.get("class").split()[1]] = root
    return out


def tiny_png(w: int = 3, h: int = 2) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * w for _ in range(h))
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


@pytest.fixture(scope="module")
def hostile_run():
    """A real FMDC run on a dataset whose every name is an HTML injection attempt."""
    views, labels = make_blobs_views(n=120, c=3, dims=(4, 6, 5))
    ds = MultiViewDataset(
        views=views,
        labels=labels,
        view_names=[HOSTILE, "b&w", "third"],
        class_names=["<i>one</i>", "two", "three"],
        name="<b>toy</b>",
        source="/tmp/<evil>.mat",
        warnings=["<img src=x onerror=alert(1)>"],
    )
    model = FMDC(n_clusters=3, n_anchors=16, n_neighbors=5, random_state=11).fit(ds.views)
    result = RunResult.from_solver(
        model,
        true_labels=ds.labels,
        view_names=ds.view_names,
        dataset={"name": ds.name, "source": ds.source, "n_samples": ds.n_samples},
        preprocessing=["none", "auto: zscore", "l2"],
        total_seconds=0.5,
    )
    return ds, result


def test_report_holds_metrics_parameters_seed_and_versions(hostile_run):
    ds, result = hostile_run
    html = build_report(result, ds.summary())
    page = parse(html)
    expected = all_metrics(ds.labels, result.labels)
    shown = dict(re.findall(r'data-metric="(\w+)">([0-9.]+)<', html))
    assert set(shown) == {"acc", "nmi", "nmi_max", "purity", "ari", "f_score"}
    for key, text in shown.items():
        assert text == f"{expected[key]:.4f}"
    # every parameter, with the changed ones marked (n_clusters 3, anchors 16, neighbours 5,
    # seed 11 differ from the defaults; max_iter does not)
    rows = re.findall(r"<tr>(.*?)</tr>", html.split('class="params"')[1].split("</table>")[0])
    by_name = {re.search(r"<code>(\w+)</code>", r).group(1): r for r in rows[1:]}
    assert set(by_name) == {p.name for p in FMDC.param_spec}
    for name in ("n_clusters", "n_anchors", "n_neighbors", "random_state"):
        assert "changed" in by_name[name], name
    assert "changed" not in by_name["max_iter"] and "<td>100</td>" in by_name["max_iter"]
    assert "<span>seed</span><b>11</b>" in html
    text = " ".join(page.text)
    for package, version in package_versions().items():
        assert f"<td>{package}</td><td>{version}</td>" in html
    assert f"{result.n_iter} iterations" in text
    assert FMDC.title in text and FMDC.reference in text


def test_charts_are_well_formed_and_match_the_run(hostile_run):
    ds, result = hostile_run
    charts = svgs(build_report(result, ds.summary()))
    line = charts["objective"].find(f"{{{SVG}}}polyline")
    points = line.get("points").split()
    assert len(points) == len(result.objective_history) == result.n_iter
    ys = np.array([float(p.split(",")[1]) for p in points])
    # larger objective = higher on the page = smaller y coordinate
    order = np.argsort(result.objective_history, kind="stable")
    assert np.all(np.diff(ys[order]) <= 1e-9) or np.ptp(result.objective_history) == 0
    bars = charts["weights"].findall(f"{{{SVG}}}rect")
    heights = np.array([float(b.get("height")) for b in bars])
    w = np.asarray(result.view_weights) / np.sum(result.view_weights)
    assert len(bars) == 3
    np.testing.assert_allclose(heights / heights.max(), w / w.max(), atol=0.02)
    sizes = charts["sizes"].findall(f"{{{SVG}}}rect")
    counts = np.bincount(result.labels)
    assert [int(b.find(f"{{{SVG}}}title").text.split(": ")[1]) for b in sizes] == list(counts)


def test_hostile_names_are_escaped_everywhere(hostile_run):
    ds, result = hostile_run
    html = build_report(result, ds.summary(), [ReportFigure(HOSTILE, tiny_png(), HOSTILE)])
    page = parse(html)
    assert "<script" not in html.lower() and "<img src=x" not in html
    assert not any(t in ("script", "i") for t, _ in page.tags)  # the page itself uses neither
    assert [t for t, _ in page.tags if t == "img"] == ["img"]  # only the figure
    assert not any("onerror" in attrs for _, attrs in page.tags)
    assert "&lt;script&gt;" in html and "&lt;b&gt;toy&lt;/b&gt;" in html
    assert "&lt;i&gt;one&lt;/i&gt;" in html and "onerror=alert(1)&gt;" in html
    # the SVG labels too: the weights chart names the hostile view as text
    names = [t.text for t in svgs(html)["weights"].iter(f"{{{SVG}}}title")]
    assert any(HOSTILE in (n or "") for n in names)
    # the reproduce command quotes the hostile path for the shell, then escapes it
    command = unescape(re.search(r'<pre class="command">(.*?)</pre>', html, re.S).group(1))
    assert shlex.split(command)[2] == "/tmp/<evil>.mat"


def test_figures_are_embedded_as_png_data():
    views, labels = make_blobs_views(n=60, c=2, dims=(3, 4))
    model = FMDC(n_clusters=2, n_anchors=8, random_state=0).fit(views)
    result = RunResult.from_solver(model, true_labels=labels, view_names=["a", "b"])
    png = tiny_png(5, 4)
    html = build_report(result, None, [ReportFigure("Embedding", png, "coloured by clusters")])
    srcs = [a["src"] for t, a in parse(html).tags if t == "img"]
    assert len(srcs) == 1 and srcs[0].startswith("data:image/png;base64,")
    assert base64.b64decode(srcs[0].split(",", 1)[1]) == png
    with pytest.raises(ValueError, match="not PNG"):
        ReportFigure("x", b"GIF89a...")


def test_report_without_labels(tmp_path):
    views, _ = make_blobs_views(n=90, c=3, dims=(4, 5))
    ds = MultiViewDataset(views=views, name="unlabelled", source="demo:nothing")
    model = FMDC(n_clusters=3, n_anchors=16, random_state=0).fit(ds.views)
    result = RunResult.from_solver(model, view_names=ds.view_names, dataset={"name": ds.name})
    path = write_report(tmp_path / "r.html", result, ds.summary())
    html = path.read_text(encoding="utf-8")
    parse(html)
    assert "data-metric" not in html and 'class="confusion"' not in html
    assert "true labels were not available" in html
    assert "no labels in the data" in html
    assert "sizes" in svgs(html) and "objective" in svgs(html)
    _, notes = reproduce_command(result, ds.summary())
    assert any("generated in the app" in n for n in notes)


def test_chart_helpers_edge_cases():
    assert nice_ticks(0, 1, 5) == [0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]
    t = nice_ticks(2.963, 3.004)
    assert t[0] <= 2.963 and t[-1] >= 3.004 and len(t) <= 8
    svg = line_chart([3.0, float("nan"), 1.0, float("inf")], title="t")
    root = ET.fromstring(svg)
    assert len(root.find(f"{{{SVG}}}polyline").get("points").split()) == 2
    assert "no values" in line_chart([], title="empty")
    root = ET.fromstring(bar_chart([1, 0, 2], ["<a>", "b", "c"], title="&"))
    assert len(root.findall(f"{{{SVG}}}rect")) == 3


def test_mvc_run_html_and_its_reproduce_command(tmp_path, capsys):
    report, first = tmp_path / "r.html", tmp_path / "first.csv"
    args = ["run", "--demo", "blobs_noisy_view", "--method", "fmdc", "--views", "1,2,4"]
    args += ["--n-neighbors", "7", "--tol", "1e-7", "--seed", "3", "--quiet"]
    assert main([*args, "--out", str(first), "--html", str(report)]) == 0
    assert f"HTML report written to {report}" in capsys.readouterr().out
    html = report.read_text(encoding="utf-8")
    parse(html)
    assert html.count("<b>not used</b>") == 1 and "noise 8-D" in html
    command = unescape(re.search(r'<pre class="command">(.*?)</pre>', html, re.S).group(1))
    argv = shlex.split(command)
    assert argv[:2] == ["mvc", "run"]
    assert argv[argv.index("--views") + 1] == "1,2,4"
    assert argv[argv.index("--seed") + 1] == "3" and argv[argv.index("--tol") + 1] == "1e-07"
    again = tmp_path / "again.csv"
    assert main([*argv[1:], "--quiet", "--out", str(again)]) == 0
    assert list(csv.reader(first.open())) == list(csv.reader(again.open()))


def test_mvc_run_html_unwritable_path_exits_2(tmp_path, capsys):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    target = blocker / "r.html"
    code = main(
        ["run", "--demo", "two_moons", "--method", "fmdc", "--quiet", "--html", str(target)]
    )
    assert code == 2
    err = capsys.readouterr().err
    # refused before loading and running, with the reason
    assert err == f"mvc: error: cannot write --html {target}: {blocker} is a file, not a folder\n"
    assert blocker.read_text() == "not a folder"
    assert main(["run", "--demo", "--method", "fmdc", "--html", str(tmp_path)]) == 2
    assert "is a folder: give a file name" in capsys.readouterr().err


def test_report_of_an_auto_k_run_says_the_estimate(tmp_path):
    views, _ = make_blobs_views(n=90, c=3, dims=(4, 5))
    ds = MultiViewDataset(views=views, name="unlabelled", source="demo:nothing")
    model = FMDC(n_clusters="auto", n_anchors=16, random_state=0).fit(ds.views)
    result = RunResult.from_solver(model, view_names=ds.view_names, dataset={"name": ds.name})
    html = write_report(tmp_path / "r.html", result, ds.summary()).read_text(encoding="utf-8")
    assert "Number of clusters estimated without labels: <b>k = 3 (also plausible: " in html
    assert "<p>Note: a small estimate can be the coarse split of finer groups" in html
    table = html.split('<table class="k-candidates">')[1].split("</table>")[0]
    ranked = result.n_clusters_estimate["ranked"]
    assert table.count("<tr>") == 1 + len(ranked) and "<td>3</td>" in table  # header + each
    command, _ = reproduce_command(result, ds.summary())
    assert "--n-clusters auto" in command
