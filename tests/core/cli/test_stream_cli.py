"""``mvc run --stream``: row-block views from the command line, and clear refusals."""

from __future__ import annotations

import csv

import h5py
import numpy as np
import pytest

from core.cli.main import main
from core.data.demo import make_synthetic
from core.numerics.metrics import accuracy


@pytest.fixture(scope="module")
def mat73(tmp_path_factory):
    """A MATLAB v7.3 file (views stored transposed, float32) of 4 separable clusters."""
    ds = make_synthetic(600, (10, 16), 4, seed=2)
    path = tmp_path_factory.mktemp("stream") / "big.mat"
    with h5py.File(path, "w") as f:
        for i, x in enumerate(ds.views):
            f[f"x{i + 1}"] = x.T.astype(np.float32)
            f[f"x{i + 1}"].attrs["MATLAB_class"] = np.bytes_("single")
        f["gt"] = (ds.labels + 1.0)[None, :].T
    return path, ds


def _acc(out: str) -> float:
    return float(out.split("ACC ")[1].split()[0])


def _labels(path) -> np.ndarray:
    with open(path, newline="") as fh:
        return np.array([int(r["cluster"]) for r in csv.DictReader(fh)])


def test_auto_streams_above_the_threshold_and_says_why(mat73, tmp_path, capsys):
    path, _ = mat73
    out = tmp_path / "streamed.csv"
    args = ["run", str(path), "--method", "fmdc", "--n-anchors", "64", "--bkhk-space", "sketch"]
    args += ["--quiet"]  # the streamed anchors are always found on the sketch
    assert main([*args, "--stream-above", "0.0001", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "streaming: the views take" in captured.err and "row blocks" in captured.err
    assert main([*args, "--out", str(tmp_path / "memory.csv")]) == 0
    memory = capsys.readouterr()
    assert "streaming" not in memory.err  # 60 kB: read whole
    # float32 on disk, sketch-space anchors when streamed: the same partition all the same
    assert _acc(captured.out) == pytest.approx(_acc(memory.out), abs=0.01)
    assert accuracy(_labels(tmp_path / "memory.csv"), _labels(out)) > 0.98  # up to renaming


def test_a_method_that_needs_the_views_in_memory_is_refused_by_name(mat73, capsys):
    path, _ = mat73
    code = main(["run", str(path), "--method", "alpc", "--stream-above", "0.0001", "--quiet"])
    assert code == 2
    err = capsys.readouterr().err
    assert "alpc needs the views in memory" in err and "GB" in err
    assert "row blocks: dtll, fmdc" in err  # the methods whose class says they stream


def test_stream_on_a_format_read_whole_says_what_to_convert_to(tmp_path, capsys):
    ds = make_synthetic(50, (3, 4), 2, seed=0)
    np.savez_compressed(tmp_path / "c.npz", X0=ds.views[0], X1=ds.views[1], y=ds.labels)
    assert main(["run", str(tmp_path / "c.npz"), "--method", "fmdc", "--stream"]) == 2
    assert "compressed" in capsys.readouterr().err
    assert main(["run", "--demo", "--method", "fmdc", "--stream"]) == 2
    assert "--stream reads one data file" in capsys.readouterr().err


def test_dtll_runs_on_row_blocks_too(mat73, capsys):
    path, _ = mat73
    assert main(["run", str(path), "--method", "dtll", "--stream", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "streaming: asked for with --stream" in captured.err
    assert _acc(captured.out) > 0.6


def test_streamed_h5ad_with_a_label_column(tmp_path, capsys):
    from table_fixtures import write_h5ad

    write_h5ad(tmp_path / "cells.h5ad", n=120)
    args = ["run", str(tmp_path / "cells.h5ad"), "--method", "fmdc", "--stream", "--quiet"]
    assert main([*args, "--label-column", "cell_type", "--n-clusters", "3"]) == 0
    captured = capsys.readouterr()
    assert "streaming:" in captured.err and "ACC " in captured.out


def test_info_on_a_file_too_big_for_memory_streams_its_summary(mat73, capsys, monkeypatch):
    """`mvc info` above the threshold never loads the views: the summary from one pass per
    view equals the in-memory one, and a NaN is named with its view, row and column."""
    import json

    import core.data.io as io
    import core.data.isolated_load as iso

    path, _ = mat73
    assert main(["info", str(path), "--json", "--no-stream"]) == 0
    whole = json.loads(capsys.readouterr().out)

    def whole_read(*args, **kw):
        raise AssertionError("the file was read whole")

    monkeypatch.setattr(io, "load_dataset", whole_read)
    monkeypatch.setattr(iso, "load_isolated", whole_read)
    assert main(["info", str(path), "--json", "--stream-above", "0.0001"]) == 0
    streamed = json.loads(capsys.readouterr().out)
    for s, w in zip(streamed["views"], whole["views"], strict=True):
        for key in ("shape", "storage", "zero_rows", "integer_valued"):
            assert s[key] == w[key]
        for key in ("density", "min", "max"):
            assert s[key] == pytest.approx(w[key], rel=1e-6)
    assert streamed["class_counts"] == whole["class_counts"]
    assert main(["info", str(path), "--stream-above", "0.0001"]) == 0
    assert "read in row blocks (out-of-core)" in capsys.readouterr().out
    bad = path.with_name("nan.mat")
    bad.write_bytes(path.read_bytes())
    with h5py.File(bad, "r+") as f:
        f["x2"][3, 17] = np.nan  # MATLAB layout: column 3 of sample 17
    assert main(["info", str(bad), "--stream"]) == 2
    assert "nan.mat:x2 has a non-finite value (NaN) at row 17, column 3" in capsys.readouterr().err


def test_a_streamed_run_writes_profiles_and_the_html_report(mat73, tmp_path, capsys):
    """--profile and --html on a file read in row blocks: the profile table is the one the
    in-memory views give for the same labels (means and effect sizes from the blocks)."""
    from core.data.io import load_dataset
    from core.records.profiles_table import profile_rows

    path, _ = mat73
    prof, labels, html = tmp_path / "prof.csv", tmp_path / "labels.csv", tmp_path / "r.html"
    argv = ["run", str(path), "--method", "fmdc", "--quiet", "--stream", "--out", str(labels),
            "--profile", str(prof), "--html", str(html)]  # fmt: skip
    assert main(argv) == 0
    capsys.readouterr()
    with open(prof, newline="") as fh:
        got = list(csv.DictReader(fh))
    want = profile_rows(load_dataset(path), _labels(labels))
    assert got and len(got) == len(want)
    for row, ref in zip(got, want, strict=True):
        assert int(row["feature"]) == ref.feature + 1
        assert float(row["effect_d"]) == pytest.approx(ref.effect_d, rel=1e-5)
    assert "fmdc" in html.read_text(encoding="utf-8").lower()
