"""Bring-your-own-data fixtures written by the tests: two CSV views keyed by id in different
orders (10 % of the ids in only one view, some missing cells), a metadata TSV with string
labels and a numeric column, and AnnData / MuData files in the scverse on-disk layout
(written with h5py: anndata and mudata are not dependencies)."""

from __future__ import annotations

from pathlib import Path

import h5py
import numpy as np
import scipy.sparse as sp

CLASSES = np.array(["Basal", "Her2", "LumA"])


def omics_truth(n: int = 120, seed: int = 0) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Ids, string labels and two well-separated views of the same samples."""
    g = np.random.default_rng(seed)
    ids = np.array([f"TCGA-{i:04d}" for i in range(n)])
    y = np.arange(n) % 3
    views = []
    for d in (12, 6):
        centers = g.normal(scale=6.0, size=(3, d))
        views.append(centers[y] + g.normal(size=(n, d)))
    return ids, CLASSES[y], views


def write_omics_tables(folder: Path, n: int = 120, seed: int = 0) -> dict:
    """rna.csv (comma), protein.tsv (tab), clinical.tsv; returns what was written."""
    g = np.random.default_rng(seed)
    ids, labels, (rna, prot) = omics_truth(n, seed)
    only = g.permutation(n)[: n // 10]  # 10 % of the ids: half only in rna, half only in protein
    no_prot, no_rna = set(only[: only.size // 2].tolist()), set(only[only.size // 2 :].tolist())
    rna_rows = [i for i in g.permutation(n) if i not in no_rna]
    prot_rows = [i for i in g.permutation(n) if i not in no_prot]
    nan_cells = [(rna_rows[3], 2), (rna_rows[10], 5)]
    lines = ["sample," + ",".join(f"gene{j}" for j in range(rna.shape[1]))]
    for i in rna_rows:
        cells = [repr(float(v)) for v in rna[i]]
        for r, c in nan_cells:
            if r == i:
                cells[c] = ""
        lines.append(ids[i] + "," + ",".join(cells))
    (folder / "rna.csv").write_text("\n".join(lines) + "\n")
    lines = ["sample\t" + "\t".join(f"prot{j}" for j in range(prot.shape[1]))]
    for k, i in enumerate(prot_rows):
        cells = [repr(float(v)) for v in prot[i]]
        if k == 7:
            cells[1] = "NA"
        lines.append(ids[i] + "\t" + "\t".join(cells))
    (folder / "protein.tsv").write_text("\n".join(lines) + "\n")
    meta_rows = g.permutation(n)
    lines = ["sample\tsubtype\tage\tsite"]
    lines += [f"{ids[i]}\t{labels[i]}\t{40 + i % 30}\tsite {i % 4}" for i in meta_rows]
    (folder / "clinical.tsv").write_text("\n".join(lines) + "\n")
    return {"ids": ids, "labels": labels, "only_rna": no_prot, "only_prot": no_rna,
            "nan_cells": len(nan_cells) + 1}  # fmt: skip


def _str_dataset(group: h5py.Group, name: str, values) -> None:
    ds = group.create_dataset(name, data=np.asarray(values, dtype=object),
                              dtype=h5py.string_dtype())  # fmt: skip
    ds.attrs["encoding-type"] = "string-array"
    ds.attrs["encoding-version"] = "0.2.0"


def _obs(group: h5py.Group, ids, columns: dict) -> None:
    obs = group.create_group("obs")
    obs.attrs.update({"encoding-type": "dataframe", "encoding-version": "0.2.0",
                      "_index": "_index", "column-order": list(columns)})  # fmt: skip
    _str_dataset(obs, "_index", ids)
    for name, values in columns.items():
        values = np.asarray(values)
        if values.dtype.kind in "US":
            cats, codes = np.unique(values, return_inverse=True)
            cat = obs.create_group(name)
            cat.attrs.update({"encoding-type": "categorical", "encoding-version": "0.2.0",
                              "ordered": False})  # fmt: skip
            cat.create_dataset("codes", data=codes.astype(np.int8))
            _str_dataset(cat, "categories", cats)
        else:
            obs.create_dataset(name, data=values)


def _matrix(group: h5py.Group, name: str, x) -> None:
    if sp.issparse(x):
        kind = "csc_matrix" if x.format == "csc" else "csr_matrix"
        x = x if x.format == "csc" else sp.csr_matrix(x)
        m = group.create_group(name)
        m.attrs.update({"encoding-type": kind, "encoding-version": "0.1.0",
                        "shape": np.array(x.shape)})  # fmt: skip
        for part in ("data", "indices", "indptr"):
            m.create_dataset(part, data=getattr(x, part))
    else:
        group.create_dataset(name, data=np.asarray(x))


def _anndata(group: h5py.Group, x, ids, obs: dict, obsm: dict | None = None) -> None:
    group.attrs.update({"encoding-type": "anndata", "encoding-version": "0.1.0"})
    _matrix(group, "X", x)
    _obs(group, ids, obs)
    sub = group.create_group("obsm")
    sub.attrs.update({"encoding-type": "dict", "encoding-version": "0.1.0"})
    for k, v in (obsm or {}).items():
        _matrix(sub, k, v)


def write_h5ad(path: Path, n: int = 90, seed: int = 1) -> dict:
    """X sparse (CSR), obs with a categorical and a numeric column, obsm X_pca."""
    ids, labels, (a, b) = omics_truth(n, seed)
    cells = np.array([f"cell-{s}" for s in ids])
    x = sp.csr_matrix(np.where(np.abs(a) > 2.0, a, 0.0))
    with h5py.File(path, "w") as f:
        _anndata(f, x, cells, {"cell_type": labels, "n_counts": np.arange(n) * 1.5},
                 {"X_pca": b})  # fmt: skip
    return {"ids": cells, "labels": labels}


def write_h5mu(path: Path, n: int = 90, seed: int = 2) -> dict:
    """Two modalities (rna: CSC sparse, prot: dense) over the same cells, global obs."""
    _, labels, (a, b) = omics_truth(n, seed)
    cells = np.array([f"bc{i:03d}" for i in range(n)])
    order = np.random.default_rng(seed).permutation(n)
    with h5py.File(path, "w") as f:
        f.attrs.update({"encoding-type": "MuData", "encoding-version": "0.1.0"})
        mod = f.create_group("mod")
        _anndata(mod.create_group("rna"), sp.csc_matrix(a), cells, {})
        _anndata(mod.create_group("prot"), b[order], cells[order], {})
        _obs(f, cells, {"celltype": labels, "score": np.linspace(0, 1, n)})
    return {"ids": cells, "labels": labels}
