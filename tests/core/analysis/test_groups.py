"""Named groups, their composition and lists of sample ids (core/analysis/groups.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.analysis.groups import (
    MISSING,
    Composition,
    GroupSet,
    SampleGroup,
    composition,
    read_ids,
    write_ids,
)
from core.data.dataset import DataError


def test_group_indices_are_sorted_unique_and_a_mask_is_accepted():
    g = SampleGroup("a", np.array([5, 1, 5, 3]))
    assert g.indices.tolist() == [1, 3, 5] and g.size == 3
    mask = np.zeros(6, dtype=bool)
    mask[[0, 4]] = True
    assert SampleGroup("b", mask).indices.tolist() == [0, 4]
    assert g.mask(6).nonzero()[0].tolist() == [1, 3, 5]


def test_groupset_names_are_unique_and_kept_in_order():
    gs = GroupSet()
    gs.add("tumour", [1, 2])
    gs.add("normal", [3])
    with pytest.raises(ValueError, match="exists already"):
        gs.add("tumour", [4])
    with pytest.raises(ValueError, match="needs a name"):
        gs.add("  ", [4])
    assert gs.names() == ["tumour", "normal"] and len(gs) == 2
    gs.rename("normal", "healthy")
    with pytest.raises(ValueError, match="exists already"):
        gs.rename("healthy", "tumour")
    assert [g.name for g in gs] == ["tumour", "healthy"]
    assert gs.get("healthy").indices.tolist() == [3]
    gs.remove("tumour")
    assert gs.names() == ["healthy"]
    with pytest.raises(KeyError, match="no group named 'tumour'"):
        gs.get("tumour")


def test_as_labels_later_groups_win():
    gs = GroupSet()
    gs.add("a", [0, 1, 2])
    gs.add("b", [2, 3])
    assert gs.as_labels(5).tolist() == [0, 0, 1, 1, -1]


def test_groupset_round_trips_through_json_and_checks_the_sample_count():
    gs = GroupSet()
    gs.add("a", [0, 4], colour="#ff0000")
    gs.add("b", [1])
    back = GroupSet.from_dict(json.loads(json.dumps(gs.to_dict())), n_samples=5)
    assert back.names() == ["a", "b"]
    assert back.get("a").indices.tolist() == [0, 4] and back.get("a").colour == "#ff0000"
    with pytest.raises(DataError, match=r"group .a.: .* outside 0\.\.3"):
        GroupSet.from_dict(gs.to_dict(), n_samples=4)


def test_composition_counts_clusters_categories_and_numeric_bins():
    n = 100
    labels = np.repeat([0, 1, 2], [40, 40, 20])
    diet = np.array(["fish", "corn"] * 50, dtype=object)
    diet[0] = ""  # no value
    age = np.arange(n, dtype=float)
    age[1] = np.nan
    group = np.arange(0, 20)  # cluster 0 only; the youngest samples
    comp = composition(group, labels, {"diet": diet, "age": age})
    assert isinstance(comp, Composition)
    assert comp.size == 20 and comp.n == n and comp.share == pytest.approx(0.2)
    assert comp.by_cluster == {0: 20, 1: 0, 2: 0}
    assert comp.by_column["diet"] == {"corn": 10, "fish": 9, MISSING: 1}
    bins = comp.by_column["age"]
    assert sum(bins.values()) == 20 and bins[MISSING] == 1
    first = next(iter(bins))  # the lowest quintile of the whole column holds all others
    assert first.startswith("[0,") and bins[first] == 19


def test_composition_reads_few_valued_integers_as_categories():
    genotype = np.array([1.0, 2.0] * 10)
    comp = composition([0, 1, 2], None, {"genotype": genotype})
    assert comp.by_column["genotype"] == {"1": 2, "2": 1}
    assert comp.by_cluster == {}


def test_composition_refuses_indices_of_other_data():
    with pytest.raises(DataError, match="other data"):
        composition([0, 10], np.zeros(5, dtype=int), {})


def test_ids_round_trip_and_unknown_ids_are_named(tmp_path):
    ids = np.array([f"s{i}" for i in range(10)])
    path = write_ids(tmp_path / "g.txt", [7, 2, 2], ids)
    assert path.read_text() == "s2\ns7\n"
    assert read_ids(path, ids).tolist() == [2, 7]
    (tmp_path / "bad.txt").write_text("# chosen by hand\ns1\n\nzz\ns3\n")
    with pytest.raises(DataError, match=r"1 id\(s\) not in the data \('zz'\)"):
        read_ids(tmp_path / "bad.txt", ids)
    (tmp_path / "empty.txt").write_text("\n# nothing\n")
    with pytest.raises(DataError, match="lists no sample ids"):
        read_ids(tmp_path / "empty.txt", ids)
    with pytest.raises(DataError, match="no file"):
        read_ids(tmp_path / "absent.txt", ids)


def test_ids_as_indices_when_the_data_has_no_ids(tmp_path):
    path = write_ids(tmp_path / "g.txt", [3, 1])
    assert path.read_text() == "1\n3\n"
    assert read_ids(path, n=5).tolist() == [1, 3]
    with pytest.raises(DataError, match=r"outside 0\.\.1"):
        read_ids(path, n=2)
    (tmp_path / "t.txt").write_text("1\nabc\n")
    with pytest.raises(DataError, match="'abc' is not a sample index"):
        read_ids(tmp_path / "t.txt")
