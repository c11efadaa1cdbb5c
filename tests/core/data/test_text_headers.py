"""The header of a metadata table of text only (ids, genotypes, diets) is found: its first
row is not read as a sample, its columns keep their names (docs/data_formats.md, "Tables")."""

from __future__ import annotations

import pytest

from core.data.io import DataSpec, ViewSource, load_spec
from core.data.io.tables import read_table

GENOTYPES, DIETS = ("wt", "het", "ko"), ("chow", "hfd")
IDS = [f"mouse_{i}" for i in (4, 35, 7, 112, 18, 9, 250, 61, 3, 40, 77, 1)]


def _write_meta(path, header="mouse_id,genotype,diet") -> None:
    rows = [f"{s},{GENOTYPES[i % 3]},{DIETS[i % 2]}" for i, s in enumerate(IDS)]
    path.write_text("\n".join([header, *rows] if header else rows) + "\n")


def _write_view(path) -> None:
    rows = [f"{s},{i * 0.5:.2f},{(i % 3) * 1.5:.2f}" for i, s in enumerate(IDS)]
    path.write_text("\n".join(["mouse_id,g1,g2", *rows]) + "\n")


def test_a_text_header_over_unique_ids_and_categorical_columns_is_found(tmp_path):
    """The reported table: every cell is text and the id column's name is no usual one;
    the cell lengths vary in every column, so the csv sniffer said "no header"."""
    _write_meta(tmp_path / "meta.csv")
    table = read_table(tmp_path / "meta.csv")
    assert table.header and table.id_name == "mouse_id"
    assert table.ids.tolist() == IDS and list(table.text) == ["genotype", "diet"]


def test_a_first_row_whose_values_recur_in_their_columns_is_data(tmp_path):
    _write_meta(tmp_path / "meta.csv", header=None)
    table = read_table(tmp_path / "meta.csv")
    assert not table.header and table.ids.tolist() == IDS


def test_a_column_the_caller_asks_for_marks_the_header(tmp_path):
    """Two rows and no repeated value: the columns do not tell, the sniffer says no; the
    label column the user named is in the first row, so that row is the header."""
    path = tmp_path / "meta.csv"
    path.write_text("mouse_id,diet\nmouse_4,chow\nmouse_35,hfd\n")
    assert not read_table(path).header
    table = read_table(path, expect=["diet"])
    assert table.header and list(table.text) == ["diet"] and table.ids.tolist() == IDS[:2]
    assert read_table(path, id_column="mouse_id").id_name == "mouse_id"


@pytest.mark.parametrize("flags", [{"label_column": "diet"}, {"id_column": "mouse_id"}])
def test_the_reported_label_and_id_flags_find_their_columns(tmp_path, flags):
    _write_meta(tmp_path / "meta.csv")
    _write_view(tmp_path / "rna.csv")
    spec = DataSpec([ViewSource("rna", str(tmp_path / "rna.csv"))], meta=str(tmp_path / "meta.csv"),
                    **flags)  # fmt: skip
    ds = load_spec(spec)
    assert set(ds.metadata) == {"genotype", "diet"} and ds.ids.tolist() == IDS
    if "label_column" in flags:
        assert ds.class_names == ["chow", "hfd"] and ds.labels.tolist() == [0, 1] * 6


def test_a_headerless_table_asked_for_an_id_column_by_name_says_so(tmp_path):
    _write_meta(tmp_path / "meta.csv", header=None)
    with pytest.raises(Exception, match=r"meta.csv: no id column 'sample': the file has no "
                       r"header row .* 1-based position \(1 to 3\)"):  # fmt: skip
        read_table(tmp_path / "meta.csv", id_column="sample")
