"""Feature names travel with table and AnnData views (cluster profiles and the GUI's colour
by a feature show them): table headers, ``var_names``; none for headerless tables or obsm."""

from __future__ import annotations

import h5py
import numpy as np
from table_fixtures import _str_dataset, write_h5ad, write_omics_tables

from core.data.io import DataSpec, ViewSource, load_dataset, load_spec
from core.records.profiles_table import feature_names_of


def test_table_headers_name_the_features_and_headerless_tables_get_numbers(tmp_path):
    write_omics_tables(tmp_path)
    rows = (tmp_path / "protein.tsv").read_text().splitlines()[1:]  # the same table, no header
    (tmp_path / "bare.tsv").write_text("\n".join(rows) + "\n")
    spec = DataSpec(views=[ViewSource("rna", str(tmp_path / "rna.csv")),
                           ViewSource("bare", str(tmp_path / "bare.tsv"), None)],
                    id_column="1")  # fmt: skip
    ds = load_spec(spec)
    header = (tmp_path / "rna.csv").read_text().splitlines()[0].split(",")
    assert feature_names_of(ds, 0, ds.dims[0]) == header[1:]
    assert feature_names_of(ds, 1, ds.dims[1]) == [f"f{j + 1}" for j in range(ds.dims[1])]


def test_anndata_var_names_name_x_and_an_obsm_matrix_gets_numbers(tmp_path):
    path = tmp_path / "cells.h5ad"
    write_h5ad(path)
    with h5py.File(path, "a") as f:
        d = f["X"].attrs["shape"][1]
        var = f.create_group("var")
        var.attrs.update({"encoding-type": "dataframe", "encoding-version": "0.2.0",
                          "_index": "_index", "column-order": []})  # fmt: skip
        genes = np.array([f"GENE{j}" for j in range(d)])
        _str_dataset(var, "_index", genes)
    ds = load_dataset(str(path))
    assert ds.meta["feature_names"] == [genes.tolist()]
    pca = load_spec(DataSpec(views=[ViewSource("pca", str(path), "obsm/X_pca")]))
    assert "feature_names" not in pca.meta
