"""Named groups in session files: kept exactly, checked on reading, optional for old files."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.records.session_file import (
    DataSource,
    SessionFileError,
    SessionState,
    StoredGroup,
    load_session,
    save_session,
)


def _state(groups, n=500):
    source = DataSource("demo", "handwritten", n, ["a", "b"], demo="handwritten")
    return SessionState(source, [True, True], ["auto", "auto"], "fmdc", {}, groups=groups)


def test_groups_round_trip_with_names_colours_and_indices(tmp_path):
    rng = np.random.default_rng(0)
    big = np.sort(rng.choice(500, 321, replace=False))
    groups = [StoredGroup("tumour core", big, "#d55e00"), StoredGroup("edge", np.array([0, 499]))]
    path = save_session(tmp_path / "s.mvcs.json", _state(groups))
    back = load_session(path).groups
    assert [(g.name, g.colour) for g in back] == [("tumour core", "#d55e00"), ("edge", None)]
    np.testing.assert_array_equal(back[0].indices, big)
    np.testing.assert_array_equal(back[1].indices, [0, 499])


def test_a_session_without_groups_opens_with_none(tmp_path):
    path = save_session(tmp_path / "s.json", _state([]))
    record = json.loads(path.read_text())
    record.pop("groups")  # as written before groups existed
    path.write_text(json.dumps(record))
    assert load_session(path).groups == []


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda g: g.update(indices=None), r"groups\[0\].indices must be an object"),
        (lambda g: g.pop("name"), r"groups\[0\]: the key 'name' is missing"),
        (lambda g: g.update(colour=3), r"groups\[0\]: 'colour' must be str"),
    ],
)
def test_bad_groups_are_refused_naming_the_key(tmp_path, edit, message):
    path = save_session(tmp_path / "s.json", _state([StoredGroup("a", np.arange(5))]))
    record = json.loads(path.read_text())
    edit(record["groups"][0])
    path.write_text(json.dumps(record))
    with pytest.raises(SessionFileError, match=message):
        load_session(path)


def test_indices_beyond_the_data_and_repeated_names_are_refused(tmp_path):
    outside = _state([StoredGroup("a", np.array([1, 600]))])
    with pytest.raises(SessionFileError, match=r"groups\[0\].indices: .* 0..499"):
        load_session(save_session(tmp_path / "s.json", outside))
    twice = _state([StoredGroup("a", np.array([1])), StoredGroup("a", np.array([2]))])
    with pytest.raises(SessionFileError, match="used twice"):
        load_session(save_session(tmp_path / "t.json", twice))
