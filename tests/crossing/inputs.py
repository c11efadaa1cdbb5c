"""The input kinds of the crossing matrix: each writes one small data set (3 well separated
clusters) in its own on-disk format and says how ``mvc run`` is pointed at it, which sample
ids the run must report, and what the after-run actions may expect of it.

Adding an input kind = adding an :class:`InputKind` to :data:`INPUT_KINDS`: every method and
every after-run action is then crossed with it (tests/crossing/test_crossing_*.py).

What an action may expect is described here by properties of the data, never by method
names: ``incomplete`` (a sample misses a whole view), ``stream`` (the run reads the views in
row blocks), ``write_back`` (the metadata the clusters can be written back into), ``own_ids``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import h5py
import numpy as np
import scipy.io
from table_fixtures import write_h5ad, write_h5mu, write_omics_tables

from core.methods import REGISTRY

__all__ = ["INPUT_KINDS", "InputKind", "Written", "blobs", "file_digests"]

N = 72  # samples of the generated (id-less) files: 3 clusters of 24
CLASSES = np.array(["alpha", "beta", "gamma"])


@dataclass
class Written:
    """One input written to disk, and what a run on it must produce."""

    kind: str
    #: the arguments that select the data: a FILE, or --view/--meta/--label-column tables.
    #: `mvc predict --run run.json <data_args>` must accept exactly these as well.
    data_args: list[str]
    #: expected sample ids of the run's samples (the data's own ids, else "1".."n")
    ids: list[str]
    #: reference class of every id (text), to check the labels CSV's truth column
    truth: dict[str, str]
    own_ids: bool
    #: some sample misses a whole view (``observed`` is not all True)
    incomplete: bool = False
    #: extra `mvc run` flags that are not data selection (e.g. --stream)
    run_flags: list[str] = field(default_factory=list)
    #: the views are read in row blocks
    stream: bool = False
    #: the file `--write-back NEW` copies with a new column (metadata table or .h5ad/.h5mu);
    #: None: the data has no metadata to write into (a clear refusal is expected)
    write_back: Path | None = None
    #: the suffix of the --write-back target (same format as ``write_back``)
    write_back_suffix: str = ".tsv"
    #: the id column named with --id-column (None: found by the loader)
    id_column: str | None = None
    #: every input file, with its sha256 when written (inputs must stay byte-identical)
    digests: dict[Path, str] = field(default_factory=dict)
    #: the dataset's name the HTML report must show (the file stem)
    dataset_name: str = ""
    #: loads the data as the app does (a MultiViewDataset; row-block views when ``stream``)
    load: Callable[[], object] | None = None
    #: loads the data with its views in memory (what checks compute expected values from)
    memory_load: Callable[[], object] | None = None

    def load_in_memory(self):
        return (self.memory_load or self.load)()

    def paths(self) -> list[Path]:
        return list(self.digests)


@dataclass(frozen=True)
class InputKind:
    name: str
    write: Callable[[Path], Written]

    def __str__(self) -> str:  # the test id
        return self.name


def file_digests(paths) -> dict[Path, str]:
    return {Path(p): hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in paths}


def blobs(n: int = N, dims: tuple[int, ...] = (5, 4, 3), seed: int = 7):
    """Labels 0..2 and well separated Gaussian clusters seen through ``len(dims)`` views."""
    g = np.random.default_rng(seed)
    y = np.arange(n) % 3
    views = []
    for d in dims:
        centers = g.normal(scale=8.0, size=(3, d))
        views.append(centers[y] + g.normal(size=(n, d)))
    return y, views


def _numbered(n: int, classes) -> tuple[list[str], dict[str, str]]:
    """Ids "1".."n" (the data has none) and each sample's class as the file stores it."""
    ids = [str(i) for i in range(1, n + 1)]
    return ids, dict(zip(ids, [str(c) for c in classes], strict=True))


def _load_file(path: Path):
    def load():
        from core.data.io import load_dataset

        return load_dataset(path)

    return load


def _load_spec(spec_kwargs: dict):
    def load():
        from core.data.io import load_spec
        from core.data.io.aligned import DataSpec, ViewSource

        kw = dict(spec_kwargs)
        kw["views"] = [ViewSource.parse(v) for v in kw["views"]]
        return load_spec(DataSpec(**kw))

    return load


# -- MATLAB v5: a cell X of views (n x d), labels Y (1..c) ----------------------------------------
def write_mat_v5(folder: Path) -> Written:
    y, views = blobs()
    path = folder / "blobs_v5.mat"
    cell = np.empty((1, len(views)), dtype=object)
    for i, x in enumerate(views):
        cell[0, i] = x
    scipy.io.savemat(path, {"X": cell, "Y": (y + 1.0)[:, None]})
    ids, truth = _numbered(N, y + 1)  # MATLAB's 1-based labels, as stored
    return Written("mat-v5", [str(path)], ids, truth, own_ids=False,
                   digests=file_digests([path]), dataset_name=path.stem,
                   load=_load_file(path))  # fmt: skip


# -- MATLAB v7.3: HDF5 with a 512-byte MATLAB header, dimensions reversed, a cell of refs -------
def _write_mat73(path: Path, views: list[np.ndarray], y: np.ndarray) -> None:
    with h5py.File(path, "w", userblock_size=512) as h5:
        refs = h5.create_group("#refs#")
        cell = np.empty((len(views), 1), dtype=h5py.ref_dtype)
        for i, x in enumerate(views):
            ds = refs.create_dataset(f"r{i}", data=np.asarray(x).T)  # MATLAB n x d, stored d x n
            ds.attrs["MATLAB_class"] = np.bytes_("double")
            cell[i, 0] = ds.ref
        ds = h5.create_dataset("X", data=cell, dtype=h5py.ref_dtype)
        ds.attrs["MATLAB_class"] = np.bytes_("cell")
        ds = h5.create_dataset("Y", data=(y + 1.0)[None, :])  # MATLAB n x 1, stored 1 x n
        ds.attrs["MATLAB_class"] = np.bytes_("double")
    head = b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: test HDF5 schema 1.00 ."
    with open(path, "r+b") as fh:
        fh.write(head.ljust(116) + b"\x00" * 8 + b"\x00\x02IM")


def write_mat_v73(folder: Path) -> Written:
    y, views = blobs(seed=8)
    path = folder / "blobs_v73.mat"
    _write_mat73(path, views, y)
    ids, truth = _numbered(N, y + 1)
    return Written("mat-v73", [str(path)], ids, truth, own_ids=False,
                   digests=file_digests([path]), dataset_name=path.stem,
                   load=_load_file(path))  # fmt: skip


# -- NumPy .npz (MVC Studio layout: X0, X1, ..., y, view_names) ----------------------------------
def write_npz(folder: Path) -> Written:
    y, views = blobs(seed=9)
    path = folder / "blobs.npz"
    np.savez_compressed(path, X0=views[0], X1=views[1], X2=views[2], y=CLASSES[y],
                        view_names=np.array(["colour", "shape", "texture"]))  # fmt: skip
    ids, truth = _numbered(N, CLASSES[y])
    return Written("npz", [str(path)], ids, truth, own_ids=False,
                   digests=file_digests([path]), dataset_name=path.stem,
                   load=_load_file(path))  # fmt: skip


# -- id-keyed tables: rna.csv + protein.tsv (rows in other orders, empty cells, ids missing a
#    whole view) and clinical.tsv with the text label column 'subtype' ---------------------------
TABLE_N = 60


def _tables(folder: Path, align: str) -> Written:
    info = write_omics_tables(folder, n=TABLE_N, seed=3)
    rna, prot, meta = folder / "rna.csv", folder / "protein.tsv", folder / "clinical.tsv"
    args = ["--view", f"rna={rna}", "--view", f"protein={prot}", "--meta", str(meta),
            "--label-column", "subtype"]  # fmt: skip
    ids = info["ids"].tolist()
    truth = dict(zip(ids, info["labels"].tolist(), strict=True))
    partial = {ids[i] for i in info["only_rna"] | info["only_prot"]}
    assert partial, "the tables must have samples missing a whole view"
    if align == "shared":
        args += ["--align", "shared"]
        ids = [i for i in ids if i not in partial]
    spec = {"views": [f"rna={rna}", f"protein={prot}"], "meta": str(meta),
            "label_column": "subtype", "align": align}  # fmt: skip
    return Written(f"tables-{align}", args, ids, truth, own_ids=True,
                   incomplete=align == "all", write_back=meta, write_back_suffix=".tsv",
                   digests=file_digests([rna, prot, meta]), dataset_name=rna.stem,
                   load=_load_spec(spec))  # fmt: skip


def write_tables(folder: Path) -> Written:
    return _tables(folder, "all")


def write_tables_shared(folder: Path) -> Written:
    return _tables(folder, "shared")


# -- tables whose id column is not the first one, named with --id-column: a semicolon CSV and
#    a TSV view, a metadata CSV; rows in other orders, complete views ----------------------------
def write_tables_id_column(folder: Path) -> Written:
    from table_fixtures import omics_truth

    n, g = 63, np.random.default_rng(6)
    ids, labels, (a, b) = omics_truth(n, seed=6)
    ids = np.array([f"P{i:03d}-{s[-2:]}" for i, s in enumerate(ids)])
    img, txt, meta = folder / "image.csv", folder / "text.tsv", folder / "patients.csv"
    lines = ["f1;f2;patient;" + ";".join(f"f{j}" for j in range(3, a.shape[1] + 1))]
    for i in g.permutation(n):
        cells = [repr(float(v)) for v in a[i]]
        lines.append(";".join([*cells[:2], str(ids[i]), *cells[2:]]))
    img.write_text("\n".join(lines) + "\n")
    lines = ["\t".join([*(f"t{j}" for j in range(b.shape[1])), "patient"])]
    lines += ["\t".join([*(repr(float(v)) for v in b[i]), str(ids[i])]) for i in g.permutation(n)]
    txt.write_text("\n".join(lines) + "\n")
    lines = ["group,patient,age"] + [
        f"{labels[i]},{ids[i]},{30 + i % 40}" for i in g.permutation(n)
    ]
    meta.write_text("\n".join(lines) + "\n")
    args = ["--view", f"image={img}", "--view", f"text={txt}", "--meta", str(meta),
            "--id-column", "patient", "--label-column", "group"]  # fmt: skip
    spec = {"views": [f"image={img}", f"text={txt}"], "meta": str(meta), "id_column": "patient",
            "label_column": "group"}  # fmt: skip
    return Written("tables-id-column", args, ids.tolist(),
                   dict(zip(ids.tolist(), labels.tolist(), strict=True)), own_ids=True,
                   write_back=meta, write_back_suffix=".csv", id_column="patient",
                   digests=file_digests([img, txt, meta]), dataset_name=img.stem,
                   load=_load_spec(spec))  # fmt: skip


# -- AnnData .h5ad: two matrices of one file as views (--view NAME=FILE#KEY), its obs as the
#    metadata (--meta FILE) --------------------------------------------------------------------
def write_h5ad_views(folder: Path) -> Written:
    path = folder / "cells.h5ad"
    info = write_h5ad(path, n=75, seed=4)
    args = ["--view", f"expr={path}#X", "--view", f"pca={path}#obsm/X_pca",
            "--meta", str(path), "--label-column", "cell_type"]  # fmt: skip
    ids = info["ids"].tolist()
    spec = {"views": [f"expr={path}#X", f"pca={path}#obsm/X_pca"], "meta": str(path),
            "label_column": "cell_type"}  # fmt: skip
    return Written("h5ad", args, ids, dict(zip(ids, info["labels"].tolist(), strict=True)),
                   own_ids=True, write_back=path, write_back_suffix=".h5ad",
                   digests=file_digests([path]), dataset_name=path.stem,
                   load=_load_spec(spec))  # fmt: skip


# -- MuData .h5mu as a FILE: one view per modality, the global obs as metadata -----------------
def write_h5mu_file(folder: Path) -> Written:
    path = folder / "multiome.h5mu"
    info = write_h5mu(path, n=66, seed=5)
    ids = info["ids"].tolist()

    def load():  # as the app does: the file's default views, then Load metadata's label column
        from dataclasses import replace

        from core.data.io import anndata_spec, load_spec

        return load_spec(replace(anndata_spec(path, "h5mu"), label_column="celltype"))

    return Written("h5mu", [str(path), "--label-column", "celltype"], ids,
                   dict(zip(ids, info["labels"].tolist(), strict=True)), own_ids=True,
                   write_back=path, write_back_suffix=".h5mu", digests=file_digests([path]),
                   dataset_name=path.stem, load=load)  # fmt: skip


# -- streamed: a MATLAB v7.3 file read in row blocks (mvc run FILE --stream) --------------------
def write_streamed(folder: Path) -> Written:
    y, views = blobs(n=90, dims=(6, 4), seed=10)
    path = folder / "rows_v73.mat"
    _write_mat73(path, views, y)
    ids, truth = _numbered(90, y + 1)

    def load():
        from core.data.streamed import open_streamed, with_note

        return with_note(open_streamed(path), "asked for in the test (row blocks)")

    return Written("streamed", [str(path)], ids, truth, own_ids=False, run_flags=["--stream"],
                   stream=True, digests=file_digests([path]), dataset_name=path.stem,
                   load=load, memory_load=_load_file(path))  # fmt: skip


#: every registered method, every after-run action: the matrix's other two axes
METHODS = sorted(REGISTRY)
ACTIONS = ["labels", "write-back", "profile", "predict", "session", "html", "explain"]

INPUT_KINDS: list[InputKind] = [
    InputKind("mat-v5", write_mat_v5),
    InputKind("mat-v73", write_mat_v73),
    InputKind("npz", write_npz),
    InputKind("tables-all", write_tables),
    InputKind("tables-shared", write_tables_shared),
    InputKind("tables-id-column", write_tables_id_column),
    InputKind("h5ad", write_h5ad_views),
    InputKind("h5mu", write_h5mu_file),
    InputKind("streamed", write_streamed),
]
