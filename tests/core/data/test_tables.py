"""Views from table files aligned by sample id, metadata, missing values, AnnData / MuData,
MATLAB files in train/test parts, and write-back of the clusters."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.io as sio
import scipy.sparse as sp
from table_fixtures import omics_truth, write_h5ad, write_h5mu, write_omics_tables

from core.data.dataset import DataError
from core.data.io import DataSpec, ViewSource, load_dataset, load_spec
from core.data.io.tables import read_table
from core.records.write_back import write_back


def _spec(folder, **kw) -> DataSpec:
    views = [ViewSource("rna", str(folder / "rna.csv")),
             ViewSource("protein", str(folder / "protein.tsv"))]  # fmt: skip
    return DataSpec(views=views, meta=str(folder / "clinical.tsv"), **kw)


def test_views_are_aligned_by_id_with_absent_views_marked(tmp_path):
    info = write_omics_tables(tmp_path)
    ds = load_spec(_spec(tmp_path, label_column="subtype"))
    ids, labels, (rna, prot) = omics_truth()
    assert sorted(ds.ids.tolist()) == sorted(ids.tolist()) and ds.n_samples == 120
    pos = {s: i for i, s in enumerate(ids.tolist())}
    src = np.array([pos[s] for s in ds.ids.tolist()])
    # every observed row is the sample's own row (up to the 3 imputed cells)
    has_rna, has_prot = ds.observed[:, 0], ds.observed[:, 1]
    close = np.isclose(ds.views[0][has_rna], rna[src[has_rna]])
    assert (~close).sum() == 2 and np.isclose(ds.views[1][has_prot], prot[src[has_prot]]).sum() == (
        has_prot.sum() * 6 - 1
    )
    only_rna = {ids[i] for i in info["only_rna"]}
    assert {s for s, p in zip(ds.ids, has_prot, strict=True) if not p} == only_rna
    assert not ds.views[1][~has_prot].any()  # absent rows are zeros, marked unobserved
    assert [ds.class_names[c] for c in ds.labels] == labels[src].tolist()
    assert ds.metadata_columns()["site"] == "categorical"
    assert ds.metadata_column("age")[0] == 40 + src[0] % 30
    assert ds.meta["ids_per_view"][0] == {"view": "rna", "ids": 114, "shared": 108}
    notes = " ".join(ds.warnings)
    assert "2 missing cell(s) in 2 sample(s): imputed with the per-feature mean" in notes
    assert "12 sample(s) are missing from some views" in notes


@pytest.mark.parametrize(
    ("missing", "n", "rna_observed", "note"),
    [
        (["drop"], 117, 111, "those samples dropped"),
        (["rna=median"], 120, 114, "per-feature median"),
        (["rna=missing-view"], 120, 112, "marked missing for them"),
    ],
)
def test_missing_value_policies_are_applied_and_counted(tmp_path, missing, n, rna_observed, note):
    write_omics_tables(tmp_path)
    ds = load_spec(_spec(tmp_path, missing=missing))
    assert ds.n_samples == n and int(ds.observed[:, 0].sum()) == rna_observed
    assert any(note in w for w in ds.warnings) and np.isfinite(ds.views[0]).all()


def test_shared_alignment_keeps_the_samples_every_view_has(tmp_path):
    write_omics_tables(tmp_path)
    ds = load_spec(_spec(tmp_path, align="shared", label_column="subtype"))
    assert ds.n_samples == 108 and ds.complete


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("dup.csv", "id,a\nx,1\nA,2\nx,3\n",
         "dup.csv: column 'id': duplicate sample id 'x' in data rows 1 and 3"),
        ("word.csv", "id,a,b\nA,1,2\nB,2,oops\n",
         "word.csv: column 'b', data row 2 (line 3): 'oops' is not"),
        ("noid.csv", "id,a\nx,1\n", "noid.csv: no id column 'sample'"),
        ("other.csv", "sample,a\nq,1\nr,2\n", "share no sample id"),
    ],
)  # fmt: skip
def test_bad_tables_get_one_line_messages_naming_file_column_and_row(tmp_path, name, text, message):
    (tmp_path / "good.csv").write_text("sample,g\nA,1\nB,2\nC,3\n")
    (tmp_path / name).write_text(text)
    id_column = "sample" if name in ("noid.csv", "other.csv") else None
    spec = DataSpec(
        views=[
            ViewSource("good", str(tmp_path / "good.csv")),
            ViewSource("x", str(tmp_path / name)),
        ],
        id_column=id_column,
    )
    with pytest.raises(DataError) as err:
        load_spec(spec)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_text_columns_of_a_view_are_reported_and_kept_as_metadata(tmp_path):
    (tmp_path / "v.tsv").write_text("S1\tb1\t0.5\t1\nS2\tb2\t0.7\t2\nS3\tb1\t\t3\n")
    table = read_table(tmp_path / "v.tsv")  # no header: the text first column holds the ids
    assert table.ids.tolist() == ["S1", "S2", "S3"] and list(table.text) == ["column 2"]
    ds = load_spec(DataSpec(views=[ViewSource("v", str(tmp_path / "v.tsv"))]))
    assert ds.metadata["v:column 2"].tolist() == ["b1", "b2", "b1"]
    assert any("column 'column 2' is not numeric" in w for w in ds.warnings)
    assert ds.views[0][2, 0] == pytest.approx(0.6)  # the mean of 0.5 and 0.7


def test_anndata_and_mudata_files_load_with_ids_metadata_and_sparse_views(tmp_path):
    a = write_h5ad(tmp_path / "a.h5ad")
    ds = load_dataset(tmp_path / "a.h5ad").with_reference_labels("cell_type")
    assert ds.ids.tolist() == a["ids"].tolist() and sp.issparse(ds.views[0])
    assert [ds.class_names[c] for c in ds.labels] == a["labels"].tolist()
    pca = load_spec(DataSpec(views=[ViewSource.parse(f"pca={tmp_path / 'a.h5ad'}#obsm/X_pca")]))
    assert pca.dims == [6] and pca.ids.tolist() == a["ids"].tolist()
    m = write_h5mu(tmp_path / "m.h5mu")
    ds = load_dataset(tmp_path / "m.h5mu")
    assert ds.ids.tolist() == m["ids"].tolist()  # in the global obs order
    _, _, (rna, prot) = omics_truth(90, 2)
    assert np.allclose(ds.views[ds.view_names.index("prot")], prot)
    assert np.allclose(ds.views[ds.view_names.index("rna")].toarray(), rna)
    assert ds.metadata["celltype"].tolist() == m["labels"].tolist()


def test_write_back_adds_a_column_by_id_and_never_touches_the_input(tmp_path):
    write_omics_tables(tmp_path)
    ds = load_spec(_spec(tmp_path, label_column="subtype"))
    clusters = np.arange(ds.n_samples) % 3
    meta = tmp_path / "clinical.tsv"
    before = meta.read_bytes()
    out = write_back(meta, tmp_path / "clinical_clusters.tsv", ds.ids.tolist(), clusters)
    back = read_table(out)
    assert meta.read_bytes() == before and "mvc_cluster" in back.columns
    want = dict(zip(ds.ids.tolist(), clusters.tolist(), strict=True))
    got = back.values[:, back.columns.index("mvc_cluster")]
    assert got.tolist() == [want[s] for s in back.ids.tolist()]
    with pytest.raises(DataError, match="never overwritten"):
        write_back(meta, meta, ds.ids.tolist(), clusters)
    write_h5mu(tmp_path / "m.h5mu")
    before = (tmp_path / "m.h5mu").read_bytes()
    ds = load_dataset(tmp_path / "m.h5mu")
    write_back(tmp_path / "m.h5mu", tmp_path / "m2.h5mu", ds.ids.tolist(), clusters[:90])
    again = load_dataset(tmp_path / "m2.h5mu")
    assert (tmp_path / "m.h5mu").read_bytes() == before
    assert again.metadata["mvc_cluster"].tolist() == clusters[:90].tolist()


def test_matlab_file_in_train_and_test_parts_loads_as_one_dataset(tmp_path):
    g = np.random.default_rng(0)
    y = np.arange(50) % 2
    sio.savemat(tmp_path / "parts.mat", {
        "x1_train": g.normal(size=(30, 4)) + 5 * y[:30, None],
        "x1_test": g.normal(size=(20, 4)) + 5 * y[30:, None],
        "x2_train": (g.normal(size=(30, 3)) + 5 * y[:30, None]).T,  # features x samples
        "x2_test": (g.normal(size=(20, 3)) + 5 * y[30:, None]).T,
        "gt_train": y[:30, None] + 1, "gt_test": y[30:, None] + 1,
    })  # fmt: skip
    ds = load_dataset(tmp_path / "parts.mat")
    assert ds.n_samples == 50 and ds.dims == [4, 3] and ds.labels.tolist() == y.tolist()
    assert any("parts (train + test): joined in that order" in w for w in ds.warnings)


@pytest.mark.parametrize(
    ("text", "header"),
    [
        ("sample,group\nS0001,g0\nS0002,g1\nS0003,g0\n", ["sample", "group"]),  # id name
        (
            "patient\tsubtype\tstage\nP01\tLumA\tII\nP02\tBasal\tIII\nP03\tLumB\tI\n",
            ["patient", "subtype", "stage"],
        ),
        ("S0001,tumour\nS0002,normal\nS0003,tumour\n", None),  # text only, no header
    ],
)
def test_text_only_metadata_tables_have_their_header_found(tmp_path, text, header):
    """A metadata table of text only (ids, groups): the header row is not read as a
    sample, and its columns keep their names (they were "column 2" and one id too many)."""
    path = tmp_path / ("meta.tsv" if "\t" in text else "meta.csv")
    path.write_text(text)
    table = read_table(path)
    assert table.header == (header is not None)
    assert len(table.ids) == 3 and table.ids[0] in ("S0001", "P01")
    if header is not None:
        assert list(table.text) == header[1:]
