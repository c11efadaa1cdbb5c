"""File > Export HTML report...: the real window writes a report with its two plots as PNG."""

from __future__ import annotations

import base64
import re

from PySide6.QtGui import QImage

from mvc_gui.tools.report import export_report


def _finished(qtbot, win, layout=False, **params):
    win.method_panel.set_params({"n_clusters": 3, "max_iter": 8, **params})
    with qtbot.waitSignal(win.controller.run_finished, timeout=60_000):
        win.run()
    if layout:  # the embedding comes from its own worker
        qtbot.waitUntil(
            lambda: win.plots["embedding"].xy is not None and not win.embedder.busy,
            timeout=120_000,
        )


def _export(qtbot, win, path):
    """Export and wait for the outcome (the worker may end before a signal spy connects)."""
    assert export_report(win, str(path)) is not None
    qtbot.waitUntil(lambda: "Wrote" in win.stage_label.text(), timeout=60_000)
    return path.read_text(encoding="utf-8")


def test_menu_entry_sits_in_the_file_menu_before_quit(window):
    actions = window.file_menu.actions()
    assert window.tools.report_action in actions
    assert actions.index(window.tools.report_action) < actions.index(window.quit_action)


def test_export_writes_report_with_two_embedded_pngs(qtbot, loaded, tmp_path, monkeypatch):
    loaded.resize(1400, 900)
    loaded.show()
    _finished(qtbot, loaded, layout=True, lam=3.0)
    target = tmp_path / "report.html"
    monkeypatch.setattr(loaded, "ask_save_path", lambda *a: str(target))
    loaded.tools.report_action.trigger()
    qtbot.waitUntil(target.exists, timeout=60_000)
    html = target.read_text(encoding="utf-8")
    images = re.findall(r'<img src="data:image/png;base64,([^"]+)" alt="([^"]+)"', html)
    assert [alt for _, alt in images] == ["Embedding", "Anchor graph"]
    for data, alt in images:
        img = QImage.fromData(base64.b64decode(data), "PNG")
        assert not img.isNull() and img.width() > 100 and img.height() > 100, alt
    result = loaded.controller.history.result
    assert f'data-metric="acc">{result.metrics["acc"]:.4f}<' in html
    # the GUI's parameters and seed, with the changed one marked
    assert "A log-scale weight." in html and "--lam 3.0" in html and "--seed 0" in html
    row = re.search(r"<tr><td>lam<br><code>lam</code></td>(.*?)</tr>", html).group(1)
    assert "changed" in row
    assert "alpha" in html and "beta" in html  # view names from the dataset summary
    qtbot.waitUntil(lambda: "Wrote" in loaded.stage_label.text(), timeout=120_000)
    assert loaded.messages.level != "error"


def test_export_without_a_run_or_to_a_bad_path_says_so(qtbot, loaded, tmp_path):
    assert export_report(loaded, str(tmp_path / "r.html")) is None
    assert loaded.messages.level == "error" and "run a method first" in loaded.messages.text
    _finished(qtbot, loaded)
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    assert export_report(loaded, str(blocker / "r.html")) is not None
    qtbot.waitUntil(lambda: loaded.messages.level == "error", timeout=60_000)
    assert "is a file, not a folder" in loaded.messages.text
    assert blocker.read_text() == "x"


def test_a_run_of_other_data_is_reported_without_the_plots(qtbot, loaded, tmp_path, small_dataset):
    """The run on display may belong to another dataset than the loaded one (a run re-shown
    from the run list): the plots and data details of the loaded data must not be mixed in."""
    from core.data.dataset import MultiViewDataset
    from mvc_gui.model.data_session import DataSession

    _finished(qtbot, loaded)
    ds = MultiViewDataset(views=small_dataset.views[:1], name="other", source="elsewhere")
    loaded.session = DataSession(ds)
    html = _export(qtbot, loaded, tmp_path / "r.html")
    assert "<img" not in html and "<h1>blobs" in html
    assert loaded.messages.level == "warning" and "Another dataset" in loaded.messages.text
