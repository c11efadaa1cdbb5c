"""Parameter panels are generated for every registered solver."""

from __future__ import annotations

import pytest

from core.methods import REGISTRY
from mvc_gui.panels.method_panel import MethodPanel
from mvc_gui.panels.param_form import ParamForm


@pytest.mark.parametrize("name", sorted(set(REGISTRY) | {"fake"}))
def test_form_for_every_registered_solver(qtbot, name):
    cls = REGISTRY[name]
    form = ParamForm(cls.param_spec)
    qtbot.addWidget(form)
    values = form.values()
    assert set(values) == set(cls.param_spec.names())
    assert values == cls.param_spec.defaults()
    cls.from_params(values)  # the defaults shown validate
    for p in cls.param_spec:
        assert p.help in form.editors[p.name].toolTip()


def test_edit_reset_and_log_slider(qtbot):
    form = ParamForm(REGISTRY["fake"].param_spec)
    qtbot.addWidget(form)
    lam = form.editors["lam"]
    assert lam._slider is not None
    lam._slider.setValue(0)
    assert lam.value() == pytest.approx(1e-4)
    lam._box.stepBy(4)
    assert lam.value() == pytest.approx(1e-3)
    form.set_values({"mode": "b", "n_anchors": 50, "unknown": 1, "max_iter": -5})
    v = form.values()
    assert v["mode"] == "b" and v["n_anchors"] == 50 and v["max_iter"] == 100
    form.editors["n_anchors"].set_value(None)
    assert form.values()["n_anchors"] is None
    form.reset_defaults()
    assert form.values() == REGISTRY["fake"].param_spec.defaults()


def test_method_panel_lists_registry_and_cluster_default(qtbot):
    panel = MethodPanel()
    qtbot.addWidget(panel)
    names = [panel.combo.itemData(i) for i in range(panel.combo.count())]
    assert names == list(REGISTRY)
    panel.set_method("fake")
    assert "Fake solver" in panel.help.text() and "tests/mvc_gui" in panel.help.text()
    panel.set_default_clusters(7)
    assert panel.params()["n_clusters"] == 7
    panel.set_params({"n_clusters": 3})
    panel.reset_defaults()
    assert panel.params()["n_clusters"] == 7
