"""Errors while reading table views name the user's files, lines and columns: never the
description file the command line hands its loader child, never a bare "view 1 ... row 26"."""

from __future__ import annotations

import json
import sys
import textwrap

import h5py
import numpy as np
import pytest
import scipy.sparse as sp
from table_fixtures import _anndata

from core.data.dataset import DataError
from core.data.io import DataSpec, ViewSource, load_spec
from core.data.isolated_load import load_isolated


def _write_view(path, bad: dict | None = None, n: int = 30) -> None:
    """``id,g1,g2,g3`` over ids s0.. ; ``bad`` replaces cells: {(data row, column): text}."""
    rows = [[f"s{i}", f"{i * 0.1:.2f}", f"{i % 3}.5", f"{(i * 7) % 5}"] for i in range(n)]
    for (r, c), text in (bad or {}).items():
        rows[r][c] = text
    path.write_text("\n".join(",".join(r) for r in [["id", "g1", "g2", "g3"], *rows]) + "\n")


def _spec(tmp_path, view: str = "rna.csv", **kw) -> DataSpec:
    return DataSpec([ViewSource("rna", str(tmp_path / view))], **kw)


@pytest.mark.parametrize("text", ["inf", "-Infinity", "1e999"])
def test_an_infinite_cell_names_the_file_the_line_and_the_column(tmp_path, text):
    _write_view(tmp_path / "rna.csv", {(25, 2): text})
    with pytest.raises(DataError) as err:
        load_spec(_spec(tmp_path))
    assert str(err.value).startswith(
        f"rna.csv: column 'g2', data row 26 (line 27): {text!r} is infinite"
    )


def test_the_line_counts_blank_lines_and_a_headerless_file(tmp_path):
    path = tmp_path / "rna.csv"
    path.write_text("s1,1,2\n\ns2,3,inf\ns3,4,5\n")
    with pytest.raises(DataError, match=r"rna.csv: column 'column 3', data row 2 \(line 3\)"):
        load_spec(_spec(tmp_path))


@pytest.mark.parametrize("sparse", [False, True])
def test_an_infinite_value_in_an_h5ad_view_names_the_matrix_sample_and_feature(tmp_path, sparse):
    x = np.arange(40.0).reshape(10, 4) + 1
    x[6, 2] = np.inf
    with h5py.File(tmp_path / "cells.h5ad", "w") as f:
        _anndata(f, sp.csr_matrix(x) if sparse else x, [f"c{i}" for i in range(10)], {})
    spec = DataSpec([ViewSource("x", str(tmp_path / "cells.h5ad"), "X")])
    with pytest.raises(DataError, match=r"cells.h5ad#X: 1 non-finite value\(s\), first inf at "
                       r"sample 7 \(id 'c6'\), feature 3"):  # fmt: skip
        load_spec(spec)


def _description(tmp_path, **kw) -> str:
    """The description file the CLI writes for its table flags (relative paths here)."""
    spec = DataSpec([ViewSource("rna", "rna.csv")], **kw)
    path = tmp_path / "tables.json"
    path.write_text(spec.to_json())
    return str(path)


@pytest.mark.parametrize(
    ("bad", "kw", "message"),
    [
        ({(4, 1): "oops"}, {}, r"^rna.csv: column 'g1', data row 5 \(line 6\): 'oops' is not a"),
        ({}, {"id_column": "sample"}, r"^rna.csv: no id column 'sample' \(columns: 'id', 'g1'"),
        ({}, {"label_column": "subtype"}, r"^--label-column: no column 'subtype' \(no metadata"),
        ({(3, 0): "s1"}, {}, r"^rna.csv: column 'id': duplicate sample id 's1'"),
    ],
)
def test_a_description_read_in_the_child_names_the_tables_not_itself(tmp_path, bad, kw, message):
    _write_view(tmp_path / "rna.csv", bad)
    with pytest.raises(DataError, match=message) as err:
        load_isolated(_description(tmp_path, **kw))
    assert "tables.json" not in str(err.value)


def test_a_description_is_read_in_the_child_with_its_files_in_the_progress(tmp_path):
    _write_view(tmp_path / "rna.csv")
    said: list[str] = []
    ds = load_isolated(_description(tmp_path), progress=lambda f, what: said.append(what))
    assert ds.n_samples == 30 and ds.source == str(tmp_path / "tables.json")
    assert "rna.csv (view 'rna')" in said


DYING_READER = """
import json, os, signal
print(json.dumps({"fraction": 0.2, "what": "rna.csv (view 'rna')"}), flush=True)
os.kill(os.getpid(), signal.SIGSEGV)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="signals are POSIX")
def test_a_child_dying_on_a_description_names_the_tables(tmp_path, monkeypatch):
    (tmp_path / "dying_reader.py").write_text(textwrap.dedent(DYING_READER))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    _write_view(tmp_path / "rna.csv")
    with pytest.raises(DataError) as err:
        load_isolated(_description(tmp_path), child_module="dying_reader")
    assert str(err.value) == (
        "rna.csv: the file is damaged: the reader crashed (SIGSEGV) while reading rna.csv "
        "(view 'rna'); nothing was loaded"
    )
    assert "tables.json" not in str(err.value)


def test_a_malformed_description_is_still_named(tmp_path):
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({"format": "mvc-studio-tables", "views": [{"nome": "x"}]}))
    with pytest.raises(DataError, match=r"mine.json: table data description: bad or missing"):
        load_isolated(path)


def test_missing_value_policies_are_named_by_their_flag(tmp_path):
    """``--missing`` is the robustness experiment's flag; the tables' is ``--missing-values``."""
    _write_view(tmp_path / "rna.csv", {(2, 1): ""})
    with pytest.raises(DataError, match=r"^--missing-values: 'often' is not one of mean"):
        load_spec(_spec(tmp_path, missing=["often"]))
    with pytest.raises(DataError, match=r"^--missing-values: no view named 'dna'"):
        load_spec(_spec(tmp_path, missing=["dna=drop"]))
    ds = load_spec(_spec(tmp_path, missing=["rna=drop"]))
    assert any("(--missing-values rna=drop)" in w for w in ds.warnings)
