"""The trial a new user made with Nutrimouse-like tables, end to end through ``mvc``: a gene and
a lipid table keyed by mouse id (three empty cells, two mice without lipids), a metadata table
of text columns; every method runs (or, needing complete views, refuses by name and runs with
``--align shared``), writes labels with the mice's ids, profiles, a run record and a copy of the
metadata with the clusters, and ``mvc predict`` assigns new mice from their own tables."""

from __future__ import annotations

import csv

import pytest

from core.cli.main import main
from core.methods import REGISTRY
from tests.nutrimouse_tables import nutrimouse, table_args, write_nutrimouse


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    root = tmp_path_factory.mktemp("nutrimouse")
    train = write_nutrimouse(root / "train")
    new = write_nutrimouse(root / "new", nutrimouse(n_per=1, start=41, seed=5), lipid_missing=1)
    return root, train, new


def _rows(path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.parametrize("method", sorted(REGISTRY))
def test_every_method_runs_profiles_writes_back_and_predicts_new_mice(method, tables, capsys):
    root, train, new = tables
    cls = REGISTRY[method]
    out = root / method
    out.mkdir()
    data = [*table_args(train), "--label-column", "diet"]
    meta_before = train["meta"].read_bytes()
    outputs = ["--out", str(out / "labels.csv"), "--report", str(out / "run.json"),
               "--profile", str(out / "profile.csv"),
               "--write-back", str(out / "meta.csv")]  # fmt: skip
    argv = ["run", *data, "--method", method, "--quiet", *outputs]
    align: list[str] = []
    if not cls.supports_incomplete:  # two mice have no lipids: refused by name, nothing written
        assert main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("mvc: error: ")
        assert "miss a view" in err[0] and "--align shared" in err[0]
        assert not any(out.iterdir())
        align = ["--align", "shared"]
    assert main([*argv, *align]) == 0, capsys.readouterr().err
    capsys.readouterr()
    labels = _rows(out / "labels.csv")
    expected = 38 if align else 40
    assert len(labels) == expected and all(r["sample_id"].startswith("mouse_") for r in labels)
    assert {r["truth"] for r in labels} == {"coc", "fish", "lin", "ref", "sun"}
    # write-back: a copy of the metadata with the clusters, the input untouched
    assert train["meta"].read_bytes() == meta_before
    back = {r["mouse_id"]: r for r in _rows(out / "meta.csv")}
    assert {r["sample_id"]: r["cluster"] for r in labels} == {
        k: v["mvc_cluster"] for k, v in back.items() if v["mvc_cluster"] != ""
    }
    profile = _rows(out / "profile.csv")  # features that set clusters apart, by view
    assert profile
    # the two mice without lipids are not counted (as zeros) in the lipid statistics
    counts = {r["view"]: int(r["n_in"]) + int(r["n_out"]) for r in profile}
    assert counts.get("lipids", 38) == 38 and counts.get("genes", expected) == expected
    # new mice, from their own tables (one without lipids), with the run's data flags
    pred = out / "new.csv"
    new_args = [*table_args(new, meta=False), *align]
    assert main(["predict", "--run", str(out / "run.json"), *new_args, "--out", str(pred)]) == 0
    assigned = _rows(pred)
    assert len(assigned) == (9 if align else 10)
    assert {r["sample_id"] for r in assigned} <= {f"mouse_{i}" for i in range(41, 51)}
    clusters = {r["cluster"] for r in labels}
    assert {r["cluster"] for r in assigned} <= clusters


@pytest.mark.parametrize(
    "command",
    [
        ["tune", "--method", "fmdc"],
        ["sweep", "--method", "fmdc", "--grid", "n_neighbors=5,10", "--out", "s.csv"],
        ["robustness", "--method", "fmdc", "--noisy-views", "1", "--out", "r.csv"],
    ],
)
def test_experiments_refuse_samples_missing_a_view_with_what_to_do(command, tables, capsys):
    """tune, sweep and robustness fit on complete views only: two mice without lipids are
    refused by count before any work, naming --align shared."""
    _, train, _ = tables
    assert main([command[0], *table_args(train), *command[1:]]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"mvc: error: mvc {command[0]} needs every view")
    assert "2 sample(s)" in err[0] and "--align shared" in err[0]
