"""The window reads files in a child process: a reader that crashes or hangs costs only the
child, Cancel works, the window keeps its dataset and stays responsive."""

from __future__ import annotations

import os
import textwrap

import pytest

from tests.core.data.test_isolated_load import FAKE_READER


@pytest.fixture
def fake_reader(tmp_path, monkeypatch, loaded):
    """The loaded window, its reader replaced by one that crashes or hangs after saying it
    reads variable 'X'."""
    (tmp_path / "fake_reader.py").write_text(textwrap.dedent(FAKE_READER))
    paths = [str(tmp_path), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in paths if p))
    loaded.loading.limits.child_module = "fake_reader"
    bad = tmp_path / "colleague.mat"
    bad.write_bytes(b"not read by the fake reader")

    def use(mode: str) -> str:
        monkeypatch.setenv("FAKE_READER_MODE", mode)
        return str(bad)

    return use


def test_a_crashing_reader_is_a_clear_message_and_the_dataset_stays(qtbot, loaded, fake_reader):
    before = loaded.session
    with qtbot.waitSignal(loaded.load_failed, timeout=120_000) as sig:
        loaded.open_path(fake_reader("crash"))
    message = sig.args[0]
    assert "colleague.mat" in message and "the file is damaged" in message
    assert "crashed (SIGSEGV) while reading variable 'X'" in message
    assert "nothing was loaded" in message
    assert loaded.session is before and loaded.messages.level == "error"
    assert "previous dataset stays loaded" in loaded.messages.text
    assert not loaded.loading.busy and loaded.loading.cancel_button.isHidden()


def test_cancel_stops_a_hanging_reader_and_keeps_the_dataset(qtbot, loaded, fake_reader):
    before = loaded.session
    worker = loaded.open_path(fake_reader("hang"))
    assert not loaded.loading.cancel_button.isHidden()
    # the window stays live while the child reads: the stage label follows its progress
    qtbot.waitUntil(lambda: "variable 'X'" in loaded.stage_label.text(), timeout=120_000)
    assert loaded.progress.value() == 500
    with qtbot.waitSignal(worker.cancelled, timeout=120_000):
        loaded.loading.cancel_button.click()
    assert worker.join(120)
    assert loaded.session is before and "cancelled" in loaded.stage_label.text()
    assert loaded.loading.cancel_button.isHidden() and loaded.messages.level != "error"


def test_a_reader_past_its_time_limit_is_stopped(qtbot, loaded, fake_reader):
    loaded.loading.limits.timeout = 10.0  # (the child must start and say what it reads)
    with qtbot.waitSignal(loaded.load_failed, timeout=120_000) as sig:
        loaded.open_path(fake_reader("hang"))
    assert "did not finish within 10 s" in sig.args[0] and "variable 'X'" in sig.args[0]
    assert loaded.session.dataset.name == "blobs"


def test_a_newer_load_replaces_one_under_way(qtbot, loaded, fake_reader, tmp_path):
    from core.data.dataset import MultiViewDataset
    from core.data.io import save_npz
    from tests.conftest import make_blobs_views

    first = loaded.open_path(fake_reader("hang"))
    loaded.loading.limits.child_module = "core.data.isolated_load"
    views, labels = make_blobs_views(n=90, c=3, dims=(3, 5))
    good = save_npz(MultiViewDataset(views=views, labels=labels, name="next"), tmp_path / "n.npz")
    with qtbot.waitSignal(loaded.data_loaded, timeout=120_000):
        loaded.open_path(str(good))
    assert first.join(120)  # the first child was killed, its result ignored
    assert loaded.session.dataset.name == "next" and loaded.session.dataset.n_samples == 90
