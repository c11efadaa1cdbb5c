"""The GUI session preprocesses 'auto' by the selected method's rule (Qt-free model)."""

from __future__ import annotations

from core.data.demo import load_demo
from core.methods import REGISTRY
from mvc_gui.model.data_session import DataSession


def test_auto_follows_the_selected_methods_rule():
    session = DataSession(load_demo("handwritten"))
    _, fitted = session.prepared()
    assert "auto: l2" in [t.label for t in fitted]  # FMDC's rule: l2 on the pixel/Fourier views
    key = session.key
    session.set_auto_rule(REGISTRY["mvsc-hfd"].auto_preprocessing)
    assert session.key != key and not session.chosen  # the shown choice is cleared
    _, fitted = session.prepared()
    chosen = [t.label for t in fitted]
    assert chosen == ["auto: zscore"] * 6
    assert session.chosen == dict(enumerate(chosen))  # what the dataset panel shows
