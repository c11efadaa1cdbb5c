"""Every panel of every registered method shows something or says why not (issue 14,
item 5): after a short run on (part of) the demo digits and on a sparse text file, at two
window sizes. Screenshots go to ``tmp_path`` (or ``$MVC_SCREENSHOTS`` when set, for the
docs)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from core.data.dataset import MultiViewDataset
from core.data.demo import load_demo
from core.methods import REGISTRY

METHODS = ("alpc", "fmdc", "kmeans-concat", "anchor-sc", "dtll", "mvsc-hfd", "rg-mvc")
SIZES = ((1280, 800), (1600, 1000))


def _digits(n: int = 400) -> MultiViewDataset:
    ds = load_demo("handwritten")
    rows = np.random.default_rng(0).choice(ds.n_samples, n, replace=False)
    return MultiViewDataset(
        views=[ds.views[v][rows] for v in (0, 2)],
        labels=ds.labels[rows],
        view_names=[ds.view_names[v] for v in (0, 2)],
        name="digits-400",
        source="demo:handwritten (400 rows, 2 views)",
    )


def _sparse_text() -> MultiViewDataset:
    """BBCSport when the shared datasets are there, else a small synthetic word-count
    corpus: three topics, two vocabularies (views), sparse counts."""
    root = os.environ.get("MVC_DATASETS")
    if root and (Path(root) / "BBCSport.mat").exists():
        from core.data.io import load_dataset

        return load_dataset(str(Path(root) / "BBCSport.mat"))
    rng = np.random.default_rng(1)
    n, c = 240, 3
    labels = np.repeat(np.arange(c), n // c)
    views = []
    for d in (300, 200):
        topic = rng.dirichlet(np.full(d, 0.05), size=c)
        counts = np.stack([rng.multinomial(40, topic[k]) for k in labels]).astype(float)
        views.append(sp.csr_matrix(counts))
    return MultiViewDataset(views=views, labels=labels, name="topics", source="synthetic text")


def _check_panels(win, method: str) -> list[str]:
    """What is wrong: a panel that is empty and says nothing, or a clipped title."""
    p, problems = win.plots, []
    h = win.controller.history
    notes = REGISTRY[method].panel_notes
    if not p["weights"].target.any() and p["weights"].note.isHidden():
        problems.append("weights: neither bars nor a note")
    if p["weights"].plot_shown and not p["weights"].target.any():
        problems.append("weights: an empty axis")
    if "weights" in notes and p["weights"].note.text() != notes["weights"]:
        problems.append("weights: not the note the method declares")
    for shown, name in zip(p["weights"].tick_texts, p["weights"].names, strict=True):
        head, _, tail = shown.strip().partition("\u2026")  # a name, maybe shortened
        if not (name.startswith(head) and name.endswith(tail)) or len(head + tail) < 2:
            problems.append(f"weights: the axis says {shown!r} for the view {name!r}")
    conv = p["convergence"]
    if "convergence" in notes:
        if conv.plot_shown or conv.note.text() != notes["convergence"]:
            problems.append("convergence: the declared note does not replace the curves")
    else:
        if conv.curve.getData()[1] is None and h.objective:
            problems.append("convergence: no objective curve")
        curves = (*conv.metric_curves.values(), *conv.final_points.values())
        if not any(c.getData()[1] is not None and len(c.getData()[1]) for c in curves):
            problems.append("scores: empty")
        if not h.metric_iterations and conv.note.isHidden():
            problems.append("scores: only final points, but no note saying why")
    if p["heatmap"].heat is None and p["heatmap"].note.isHidden():
        problems.append("anchor graph: empty and no note")
    if p["heatmap"].heat is None and p["heatmap"].plot_shown:
        problems.append("anchor graph: an empty axis")
    if "anchor_graph" in notes and p["heatmap"].note.text() != notes["anchor_graph"]:
        problems.append("anchor graph: not the note the method declares")
    if p["heatmap"].heat is not None:
        vb = p["heatmap"].plot.getViewBox()
        if vb.width() < 60 or vb.height() < 60:
            problems.append(f"anchor graph squeezed to {vb.width():.0f} x {vb.height():.0f} px")
    if p["confusion"].image.image is None:
        problems.append("confusion: empty")
    for name, box in p.items():
        if box.title.width() < box.title.sizeHint().width():
            problems.append(f"{name}: title clipped ({box.title.text()!r})")
        if not box.note.isHidden() and box.note.height() < box.note.heightForWidth(
            box.note.width()
        ):
            problems.append(f"{name}: note clipped")
    return [f"{method}: {p}" for p in problems]


@pytest.mark.parametrize("data", ["digits", "sparse-text"])
def test_every_method_every_panel(qtbot, window, tmp_path, data):
    from mvc_gui.model.data_session import DataSession

    assert set(METHODS) <= set(REGISTRY)
    out = Path(os.environ.get("MVC_SCREENSHOTS") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    ds = _digits() if data == "digits" else _sparse_text()
    window.set_session(DataSession(ds), ds.summary())
    window.method_panel.refresh_methods()
    problems = []
    for method in METHODS:
        window.method_panel.set_method(method)
        window.method_panel.set_params({"n_clusters": ds.n_classes, "max_iter": 3})
        with qtbot.waitSignal(window.controller.run_finished, timeout=120_000):
            window.run()
        for w, h in SIZES:
            window.resize(w, h)
            window.show()
            qtbot.wait(150)
            assert window.width() == w, f"the window cannot shrink to {w} px"
            problems += _check_panels(window, method)
            window.grab().save(str(out / f"{data}_{method}_{w}x{h}.png"))
    assert not problems, "\n".join(problems)
