"""Open a data file with its views as row-block sources (out-of-core), and decide when to.

:func:`open_streamed` returns a :class:`~core.data.dataset.MultiViewDataset` whose views are
:class:`~core.data.blocks.RowBlockSource` objects: nothing of the views is read when the
file is opened; labels, ids and metadata (one value per sample) are read whole. Formats:

==========================  ===================================================================
file                        views
==========================  ===================================================================
MATLAB v7.3 ``.mat``        the cell ``X`` (or ``data``, ``fea``...) or the matrices ``x1..xV``;
                            labels ``Y``/``gt``/...; each matrix read in its stored orientation;
                            sparse matrices too (:mod:`core.data.csc`)
``.h5ad`` / ``.h5mu``       ``X`` (dense, CSR read through ``indptr`` slices, or CSC); obs
``.npz`` (``np.savez``)     ``X0, X1, ...`` stored uncompressed; labels ``y``
a dataset store folder      its ``view<i>.npy`` (dense) or CSR parts (:mod:`core.data.store`)
==========================  ===================================================================

Sparse views stored column-major (MATLAB's sparse n x d, AnnData ``csc_matrix``) are converted
once to a row-major copy on disk (:mod:`core.data.csc`). Compressed ``.npz`` members, MATLAB v5
files (compressed) and CSV cannot be read by rows: the error says so and what to convert to.
:func:`stream_reason` says whether a file's views would not fit in memory (its estimate
against the available RAM).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import replace
from pathlib import Path

import numpy as np

from core.data.blocks import HDF5Source, RowBlockSource
from core.data.csc import CscSource
from core.data.dataset import DataError, MultiViewDataset, error_text
from core.data.io.assemble import natural_key
from core.data.sources import CsrSource, NpzMemberSource

__all__ = [
    "available_ram",
    "estimate_bytes",
    "open_streamed",
    "stream_reason",
    "with_note",
    "worth_checking",
]

_LABELS = tuple(
    "y gt gnd truth truelabel truelabels true_label true_labels labels label y0 groundtruth "
    "ground_truth target targets class_labels classlabels".split()
)
_VIEW_GROUPS = ("x", "data", "fea", "feas", "features", "feature", "views", "xs", "x_all")
_X_KEY = re.compile(r"^[Xx](\d+)$")

#: the views are streamed when they would take more than this share of the available RAM as
#: float64 (the solver, the preprocessing copy and the graph need the rest)
RAM_SHARE = 0.5


def available_ram() -> int:
    """Bytes of RAM available now (``MemAvailable``; the physical size when unknown)."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def estimate_bytes(ds: MultiViewDataset) -> int:
    """Bytes the views take in memory as float64 (dense) or CSR (sparse)."""
    total = 0
    for v in ds.views:
        n, d = v.shape
        if getattr(v, "sparse", False) or hasattr(v, "nnz"):
            nnz = int(v.nnz) if hasattr(v, "nnz") else _csr_nnz(v)
            total += 12 * nnz + 8 * (n + 1)
        else:
            total += 8 * n * d
    return total


def _csr_nnz(v: object) -> int:
    with v._open() as (_, _, indptr):  # type: ignore[attr-defined]
        return int(indptr[-1])


def worth_checking(path: str | os.PathLike[str], threshold: int | None = None) -> bool:
    """False when the file is so small on disk (< 1/20 of the limit) that its views surely
    fit: then it is not even opened here (the isolated reader child reads it)."""
    p = Path(path)
    try:
        size = sum(f.stat().st_size for f in p.iterdir()) if p.is_dir() else p.stat().st_size
    except OSError:
        return False
    limit = threshold if threshold is not None else int(RAM_SHARE * available_ram())
    return size * 20 > limit


def stream_reason(
    path: str | os.PathLike[str], ram: int | None = None, threshold: int | None = None
) -> str | None:
    """Why ``path`` should be streamed (a sentence), or None when it fits in memory.

    ``threshold`` (bytes) replaces ``RAM_SHARE`` x the available RAM (tests, the GUI option).
    Files that cannot be streamed give None (they are read whole, as before).
    """
    try:
        ds = open_streamed(path)
    except DataError:
        return None
    need = estimate_bytes(ds)
    limit = threshold if threshold is not None else int(RAM_SHARE * (ram or available_ram()))
    if need <= limit:
        return None
    rule = "the set threshold" if threshold is not None else f"{RAM_SHARE:.0%} of the free RAM"
    return (
        f"the views take {need / 2**30:.2f} GB as float64, more than {limit / 2**30:.2f} GB "
        f"({rule}): read in row blocks"
    )


def with_note(ds: MultiViewDataset, reason: str) -> MultiViewDataset:
    """``ds`` with why it is streamed among its warnings (shown) and in ``meta``."""
    note = f"read in row blocks (out-of-core): {reason}"
    return replace(ds, warnings=[*ds.warnings, note], meta={**ds.meta, "stream_reason": reason})


def open_streamed(path: str | os.PathLike[str], name: str | None = None) -> MultiViewDataset:
    """The dataset in ``path`` with its views as row-block sources (see the module doc).

    Raises
    ------
    DataError
        For a format that cannot be read by rows (named, with what to convert to), or a file
        whose views cannot be found.
    """
    p = Path(path)
    if p.is_dir():
        if not (p / "manifest.json").exists():
            raise DataError(f"{p.name}: a folder of CSV files cannot be read in row blocks")
        return _open_store(p, name)
    from core.data.io import detect_format

    fmt = detect_format(p)
    try:
        if fmt == "mat73":
            return _open_mat73(p, name)
        if fmt in ("h5ad", "h5mu"):
            return _open_anndata(p, fmt, name)
        if fmt == "npz":
            return _open_npz(p, name)
    except DataError as exc:
        msg = str(exc)
        raise DataError(msg if msg.startswith(p.name) else f"{p.name}: {msg}") from exc
    except (OSError, KeyError, ValueError) as exc:
        raise DataError(f"{p.name}: cannot read in row blocks ({error_text(exc)})") from exc
    hint = {
        "mat5": "MATLAB v5/v7 files are compressed: save with -v7.3 (HDF5)",
        "mat4": "MATLAB v4 files cannot be read by rows: save with -v7.3 (HDF5)",
    }.get(fmt, "convert it to .h5ad, MATLAB v7.3 or an uncompressed .npz (np.savez)")
    raise DataError(f"{p.name}: a {fmt} file cannot be read in row blocks: {hint}")


def _labels_from(values: np.ndarray | None, n: int, where: str) -> np.ndarray | None:
    if values is None:
        return None
    flat = np.asarray(values).ravel()
    if flat.size != n:
        raise DataError(f"{where} has {flat.size} labels for {n} samples")
    return flat


def _dataset(
    views: list[RowBlockSource], labels, name: str, source: str, **extra
) -> MultiViewDataset:
    n = views[0].shape[0]
    labels = _labels_from(labels, n, f"label variable {extra.pop('label_where', '')}".strip())
    warnings = list(extra.pop("warnings", []))
    return MultiViewDataset(
        views=views, labels=labels, name=name, source=source, warnings=warnings,
        meta={"streamed": True, **extra.pop("meta", {})}, **extra,
    )  # fmt: skip


# ----------------------------------------------------------------------------- MATLAB v7.3


def _matlab_class(obj: object) -> str:
    value = obj.attrs.get("MATLAB_class", b"")
    return value.decode() if isinstance(value, bytes) else str(value)


def _open_mat73(p: Path, name: str | None) -> MultiViewDataset:
    import h5py

    with h5py.File(p, "r") as f:
        keys = [k for k in f if not k.startswith("#")]
        lower = {k.lower(): k for k in keys}
        label_key = next((lower[k] for k in _LABELS if k in lower), None)
        labels = None
        if label_key is not None and isinstance(f[label_key], h5py.Dataset):
            labels = np.asarray(f[label_key][()]).ravel()
        cells = [
            k for k in keys if isinstance(f[k], h5py.Dataset) and _matlab_class(f[k]) == "cell"
        ]
        cell = next((k for k in cells if k.lower() in _VIEW_GROUPS), None)
        if cell is not None:
            refs = np.asarray(f[cell][()], dtype=object).T.ravel(order="F")
            names = [f[r].name for r in refs]
            wheres = [f"{cell}{{{i + 1}}}" for i in range(len(names))]
        else:
            mats = [
                k for k in keys
                if k != label_key and min(_h5_shape(f[k]) or (0,)) > 1
                and (labels is None or labels.size in _h5_shape(f[k]))
                and (isinstance(f[k], h5py.Group) or f[k].dtype.kind in "biuf")
            ]  # fmt: skip
            names = sorted(mats, key=natural_key)
            wheres = list(names)
        if not names:
            raise DataError("no views found to read in row blocks (a cell X, or matrices x1..xV)")
        shapes = []
        for nm, where in zip(names, wheres, strict=True):
            shape = _h5_shape(f[nm])
            if shape is None:
                raise DataError(f"{where} is not a numeric matrix (or a sparse one)")
            shapes.append(shape)
        notes = _label_views(f, names, wheres, shapes, labels, label_key)
        if notes:  # a view list pointing at the labels: those views are left out
            keep = [i for i, w in enumerate(wheres) if not any(f"({w!r})" in t for t in notes)]
            if not keep:
                raise DataError(f"{notes[0]}; no other view is left to cluster")
            names, wheres, shapes = ([a[i] for i in keep] for a in (names, wheres, shapes))
        sparse = [isinstance(f[nm], h5py.Group) for nm in names]
    n = labels.size if labels is not None else _common_n(shapes)
    views = []
    for nm, where, shape, is_sparse in zip(names, wheres, shapes, sparse, strict=True):
        if len(shape) != 2 or n not in shape:
            raise DataError(
                f"{where} is {shape[::-1]} in MATLAB order: no dimension of {n} samples"
            )
        # MATLAB n x d is stored (d, n): samples along the second axis; d x n is stored (n, d)
        if not is_sparse:
            src = HDF5Source(p, nm, matlab=shape[1] == n)
        elif shape[1] == n:  # sparse n x d: columns (features) together, converted once
            src = CscSource(p, nm, (n, shape[0]))
        else:  # sparse d x n: each sample's column is one row of the view, read directly
            src = CsrSource(p, nm, (n, shape[1]), parts=("data", "ir", "jc"))
        src.label = f"{p.name}:{where}"
        views.append(src)
    ds = _dataset(
        views, labels, name or p.stem, str(p), label_where=label_key or "", warnings=notes
    )
    return _with_indicator(p, ds, {*names, label_key})


def _label_views(f, names, wheres, shapes, labels, label_key) -> list[str]:
    """Notes for the views that are the label variable, or one column that repeats the labels
    (a relabelling): the answer given as a view (``core.data.dataset.label_leaks``)."""
    from core.data.dataset import encode_labels, label_leaks, leak_message

    if labels is None or label_key is None:
        return []
    target = f[label_key].name
    codes = encode_labels(labels)[0]
    out = []
    for k, (nm, shape) in enumerate(zip(names, shapes, strict=True)):
        same = f[nm].name == target
        if not same and len(shape) == 2 and 1 in shape and labels.size in shape:
            column = np.asarray(f[nm][()], dtype=np.float64).reshape(-1, 1)
            leaks = label_leaks([column], codes, labels)
            same = bool(leaks)
        if same:
            how = [(k, "equals {labels}" if f[nm].name == target else leaks[0][1])]
            text = leak_message(how, wheres, f"the reference labels ({label_key!r})")
            out.append(f"left out: {text}")
    return out


def _with_indicator(p: Path, ds: MultiViewDataset, used: set) -> MultiViewDataset:
    """Incomplete views marked by an n x V 0/1 variable (``MissingStatus``...), checked against
    the all-zero rows as the in-memory loader does (``core.data.io.missing_views``); the
    zero-row pass is made only when such a variable exists."""
    import h5py

    from core.data.io.missing_views import find_indicator, mark_missing_views

    n, nv = ds.n_samples, ds.n_views
    with h5py.File(p, "r") as f:
        small = {
            k: np.asarray(f[k][()]).T for k in f
            if k not in used and not k.startswith("#") and isinstance(f[k], h5py.Dataset)
            and f[k].dtype.kind in "biuf" and sorted(f[k].shape) == sorted((n, nv))
        }  # fmt: skip
    if nv < 2 or find_indicator(small, n, nv) is None:
        return ds
    return mark_missing_views(ds, small)


def _h5_shape(node: object) -> tuple[int, ...] | None:
    """A MATLAB variable's HDF5 shape (dimensions reversed); for a sparse matrix, the shape
    its dense form would have (None: not a numeric matrix)."""
    import h5py

    if isinstance(node, h5py.Dataset):
        return node.shape if node.dtype.kind in "biuf" else None
    if "MATLAB_sparse" in node.attrs and "jc" in node:
        return (int(node["jc"].shape[0]) - 1, int(node.attrs["MATLAB_sparse"]))
    return None


def _common_n(shapes: list[tuple[int, ...]]) -> int:
    common = set(shapes[0]).intersection(*map(set, shapes[1:]))
    if not common:
        raise DataError("no labels and no sample count shared by every view")
    return shapes[0][1] if shapes[0][1] in common else max(common)


# ----------------------------------------------------------------------------- AnnData


def _open_anndata(p: Path, fmt: str, name: str | None) -> MultiViewDataset:
    import h5py

    from core.data.io.anndata import _kind, modalities, read_obs

    notes: list[str] = []
    ids, metadata = read_obs(p, notes)
    views, view_names = [], []
    with h5py.File(p, "r") as f:
        if fmt == "h5mu":
            mods = modalities(f, p.name, notes)
            groups = [(m, f"mod/{m}/X") for m in mods if "X" in f["mod"][m]]
            _same_order(f, [m for m, _ in groups], ids)
        else:
            groups = [(p.stem, "X")]
        specs = [(vn, key, f[key]) for vn, key in groups]
        for vn, key, node in specs:
            if isinstance(node, h5py.Dataset):
                views.append(("dense", key, None))
            elif _kind(node) in ("csr_matrix", "csc_matrix"):
                kind = "csr" if _kind(node) == "csr_matrix" else "csc"
                views.append((kind, key, tuple(int(s) for s in node.attrs["shape"])))
            else:
                raise DataError(
                    f"{key} is encoded {_kind(node) or 'unknown'!r}: only dense, CSR or CSC "
                    "matrices can be read by rows"
                )
            view_names.append(vn)
    sources = [
        HDF5Source(p, key, matlab=False) if kind == "dense"
        else CsrSource(p, key, shape) if kind == "csr"
        else CscSource(p, key, shape, ("data", "indices", "indptr"))
        for kind, key, shape in views
    ]  # fmt: skip
    return MultiViewDataset(
        views=sources, name=name or p.stem, source=str(p), view_names=view_names,
        sample_ids=ids, metadata=metadata, meta={"streamed": True}, warnings=notes,
    )  # fmt: skip


def _same_order(f, mods: list[str], ids: np.ndarray) -> None:
    """Row blocks of several modalities line up only if they list the same samples in order."""
    from core.data.io.anndata import _obs_ids

    for m in mods:
        group = f["mod"][m]
        if "obs" in group and not np.array_equal(_obs_ids(group, m), ids):
            raise DataError(
                f"modality {m!r} lists its cells in another order than obs (or other cells): "
                "such files are aligned in memory, not streamed"
            )


# ----------------------------------------------------------------------------- NPZ, store


def _open_npz(p: Path, name: str | None) -> MultiViewDataset:
    import zipfile

    with zipfile.ZipFile(p) as zf:
        members = [m.removesuffix(".npy") for m in zf.namelist()]
    numbered = sorted((m for m in members if _X_KEY.match(m)), key=natural_key)
    if not numbered:
        raise DataError("no views X0, X1, ... (dense) to read in row blocks")
    sources = [NpzMemberSource(p, f"{m}.npy") for m in numbered]
    small = {}
    with np.load(p, allow_pickle=False) as archive:
        for key in ("y", "labels", "view_names", "name"):
            if key in archive.files:
                small[key] = archive[key]
    labels = small.get("y", small.get("labels"))
    view_names = [str(s) for s in small["view_names"]] if "view_names" in small else []
    stored = str(small["name"]) if "name" in small else None
    return MultiViewDataset(
        views=sources, labels=labels, view_names=view_names, name=name or stored or p.stem,
        source=str(p), meta={"streamed": True},
    )  # fmt: skip


def _open_store(root: Path, name: str | None) -> MultiViewDataset:
    from core.data.blocks import NpySource
    from core.data.store import open_store

    manifest = json.loads((root / "manifest.json").read_text())
    sources: list[RowBlockSource] = []
    for i, spec in enumerate(manifest["views"]):
        if spec["kind"] == "csr":
            sources.append(CsrSource(root, f"view{i}", tuple(spec["shape"]), hdf5=False))
        else:
            sources.append(NpySource(root / f"view{i}.npy"))
    full = open_store(root, mmap=True)  # memory maps: nothing read but labels, ids, metadata
    return MultiViewDataset(
        views=sources, labels=full.labels, view_names=full.view_names,
        class_names=full.class_names, name=name or full.name, source=full.source,
        warnings=full.warnings, meta={**full.meta, "streamed": True},
        sample_ids=full.sample_ids, metadata=full.metadata, observed=full.observed,
    )  # fmt: skip
