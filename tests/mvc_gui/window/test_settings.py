"""Saved method parameters keep what the user changed, never the defaults: a default that
improves later (n_neighbors, now sized from the data) still reaches a returning user."""

from __future__ import annotations

import json

from mvc_gui.window import settings


def test_only_changed_values_are_saved(qsettings):
    params = {"n_clusters": 2, "n_neighbors": None, "max_iter": 40, "n_anchors": 256}
    settings.save_params(qsettings, "fmdc", params)
    assert settings.load_params(qsettings, "fmdc") == {"max_iter": 40, "n_anchors": 256}


def test_parameters_saved_by_version_1_are_dropped(qsettings):
    qsettings.setValue("settings_version", 1)
    old = {"n_clusters": 10, "n_neighbors": 15, "max_iter": 100}  # every value, defaults too
    qsettings.setValue("Solver/fmdc", json.dumps(old))
    qsettings.setValue("recent_files", ["/data/a.mat"])
    s = settings.migrate_settings(qsettings)
    assert settings.load_params(s, "fmdc") == {}
    assert settings.recent_files(s) == ["/data/a.mat"]  # only the parameters go
    assert int(s.value("settings_version")) == settings.SETTINGS_VERSION
