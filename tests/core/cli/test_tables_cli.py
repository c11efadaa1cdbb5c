"""`mvc info` / `mvc run` on views from table files, .h5ad and .h5mu: the exported ids are
the input ids, exactly."""

from __future__ import annotations

import csv
import json

import pytest
from table_fixtures import write_h5ad, write_h5mu, write_omics_tables

from core.cli.main import main


def _table_args(folder) -> list[str]:
    return ["--view", f"rna={folder / 'rna.csv'}", "--view", f"protein={folder / 'protein.tsv'}",
            "--meta", str(folder / "clinical.tsv"), "--label-column", "subtype"]  # fmt: skip


def test_info_reports_ids_per_view_shared_and_missing(tmp_path, capsys):
    write_omics_tables(tmp_path)
    assert main(["info", *_table_args(tmp_path)]) == 0  # read in the loader child
    out = capsys.readouterr().out
    assert "(" + str(tmp_path / "rna.csv") in out  # the source names the files, not a temp file
    assert "per view rna: 114, protein: 114; in every view: 108" in out
    assert "missing views (rows stored as zeros, marked unobserved): rna: 6, protein: 6" in out
    assert "imputed with the per-feature mean" in out and "subtype (categorical)" in out


@pytest.mark.parametrize("method", ["fmdc", "kmeans-concat"])
def test_run_exports_the_input_ids_and_string_truth(tmp_path, capsys, method):
    info = write_omics_tables(tmp_path)
    out, rec, back = tmp_path / "labels.csv", tmp_path / "run.json", tmp_path / "clin.tsv"
    args = ["run", "--method", method, *_table_args(tmp_path), "--align", "shared", "--quiet",
            "--out", str(out), "--report", str(rec), "--write-back", str(back)]  # fmt: skip
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "ACC 1.0000" in captured.out
    assert "note: view 'rna': 2 missing cell(s) in 2 sample(s): imputed" in captured.err
    rows = list(csv.reader(out.open()))
    assert rows[0] == ["sample_id", "cluster", "truth"]
    only_one = {info["ids"][i] for i in info["only_rna"] | info["only_prot"]}
    assert {r[0] for r in rows[1:]} == set(info["ids"].tolist()) - only_one
    truth = dict(zip(info["ids"].tolist(), info["labels"].tolist(), strict=True))
    assert all(truth[r[0]] == r[2] for r in rows[1:])
    record = json.loads(rec.read_text())
    assert record["sample_ids"] == [r[0] for r in rows[1:]]
    clusters = {r[0]: r[1] for r in rows[1:]}
    written = list(csv.reader(back.open(), delimiter="\t"))
    assert written[0][-1] == "mvc_cluster"
    assert all(r[-1] == clusters.get(r[0], "") for r in written[1:])


def test_incomplete_samples_are_refused_by_a_complete_only_method_with_a_hint(tmp_path, capsys):
    write_omics_tables(tmp_path)
    assert main(["run", "--method", "kmeans-concat", *_table_args(tmp_path), "--quiet"]) == 2
    assert "use --align shared" in capsys.readouterr().err


def test_h5ad_and_h5mu_runs_keep_obs_names(tmp_path, capsys):
    a = write_h5ad(tmp_path / "a.h5ad")
    out = tmp_path / "a.csv"
    argv = ["run", str(tmp_path / "a.h5ad"), "--method", "fmdc", "--label-column", "cell_type",
            "--quiet", "--out", str(out), "--n-anchors", "16"]  # fmt: skip
    assert main(argv) == 0
    assert [r[0] for r in list(csv.reader(out.open()))[1:]] == a["ids"].tolist()
    m = write_h5mu(tmp_path / "m.h5mu")
    argv = ["run", "--method", "fmdc", "--view", f"rna={tmp_path / 'm.h5mu'}#rna/X",
            "--view", f"prot={tmp_path / 'm.h5mu'}#prot/X", "--meta", str(tmp_path / "m.h5mu"),
            "--label-column", "celltype", "--quiet", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0 and "ACC 1.0000" in capsys.readouterr().out
    assert [r[0] for r in list(csv.reader(out.open()))[1:]] == m["ids"].tolist()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--missing-values", "zero"], "'zero' is not one of mean, median, drop, missing-view"),
        (["--missing-values", "dna=drop"], "no view named 'dna'"),
        (["--label-column", "grade"], "no column 'grade'"),
    ],
)
def test_bad_table_flags_are_named(tmp_path, capsys, extra, message):
    write_omics_tables(tmp_path)
    args = [a for a in _table_args(tmp_path) if a not in ("--label-column", "subtype")]
    assert main(["info", "--no-isolate", *args, *extra]) == 2
    assert message in capsys.readouterr().err


def test_incomplete_samples_run_with_fmdc_and_keep_every_id(tmp_path, capsys):
    info = write_omics_tables(tmp_path)
    out = tmp_path / "labels.csv"
    argv = ["run", "--method", "fmdc", *_table_args(tmp_path), "--quiet", "--out", str(out)]
    assert main(argv) == 0 and "ACC 1.0000" in capsys.readouterr().out
    assert {r[0] for r in list(csv.reader(out.open()))[1:]} == set(info["ids"].tolist())
