"""A dataset on disk that other processes open memory-mapped, without copying it.

A loader child writes the dataset it read into a store folder; the app opens it with
:func:`open_store` (the views are memory maps of the store's ``.npy`` files, so the
operating system shares their pages with every process that opens the same store, and
nothing is copied through a pipe). Arrays are uncompressed ``.npy`` files; names, warnings,
ids and metadata columns are in ``manifest.json`` and beside it.

Layout::

    manifest.json          format, version, names, source, warnings, meta, kinds
    view<i>.npy            a dense view (float64, C order)
    view<i>_data.npy ...   a CSR view: _data, _indices, _indptr
    labels.npy             (optional) 0-based labels
    ids.npy, observed.npy  (optional) sample ids, the observed-views mask
    meta_<j>.npy           (optional) metadata columns, named in the manifest
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from core.data.atomic import atomic_write
from core.data.dataset import DataError, MultiViewDataset

__all__ = ["STORE_FORMAT", "open_store", "read_summary", "write_store"]

STORE_FORMAT = "mvc-studio dataset store"
_VERSION = 1


def _save(folder: Path, name: str, array: np.ndarray) -> None:
    np.save(folder / f"{name}.npy", np.ascontiguousarray(array), allow_pickle=False)


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return str(value)
    return value


def write_store(
    dataset: MultiViewDataset, folder: str | os.PathLike[str], *, summary: bool = False
) -> Path:
    """Write ``dataset`` into ``folder`` (created); the manifest is written last. ``summary``
    also stores ``dataset.summary()`` (a pass over all the data: cheaper in the writer than in
    a GUI process, where it would hold the interpreter lock)."""
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    kinds = []
    for i, view in enumerate(dataset.views):
        if sp.issparse(view):
            csr = view.tocsr()
            _save(root, f"view{i}_data", csr.data)
            _save(root, f"view{i}_indices", csr.indices)
            _save(root, f"view{i}_indptr", csr.indptr)
            kinds.append({"kind": "csr", "shape": list(csr.shape)})
        else:
            _save(root, f"view{i}", np.asarray(view))
            kinds.append({"kind": "dense", "shape": list(view.shape)})
    if dataset.labels is not None:
        _save(root, "labels", dataset.labels)
    if dataset.sample_ids is not None:
        _save(root, "ids", dataset.sample_ids.astype(str))
    if dataset.observed is not None:
        _save(root, "observed", dataset.observed)
    columns = []
    for j, (key, column) in enumerate(dataset.metadata.items()):
        arr = np.asarray(column)
        _save(root, f"meta_{j}", arr if arr.dtype.kind in "biuf" else arr.astype(str))
        columns.append(key)
    manifest = {
        "format": STORE_FORMAT,
        "version": _VERSION,
        "views": kinds,
        "view_names": list(dataset.view_names),
        "class_names": list(dataset.class_names),
        "name": dataset.name,
        "source": dataset.source,
        "warnings": list(dataset.warnings),
        "meta": {k: _jsonable(v) for k, v in dataset.meta.items()},
        "labels": dataset.labels is not None,
        "ids": dataset.sample_ids is not None,
        "observed": dataset.observed is not None,
        "metadata": columns,
    }
    if summary:
        manifest["summary"] = json.loads(json.dumps(dataset.summary(), default=str))
    atomic_write(root / "manifest.json", json.dumps(manifest))
    return root


def read_summary(folder: str | os.PathLike[str]) -> dict | None:
    """The summary written with the store, or None."""
    try:
        return json.loads((Path(folder) / "manifest.json").read_text()).get("summary")
    except (OSError, ValueError):
        return None


def _load(root: Path, name: str, mmap: bool) -> np.ndarray:
    return np.load(root / f"{name}.npy", mmap_mode="r" if mmap else None, allow_pickle=False)


def open_store(folder: str | os.PathLike[str], *, mmap: bool = True) -> MultiViewDataset:
    """The dataset in ``folder``; with ``mmap`` its arrays are read-only memory maps."""
    root = Path(folder)
    try:
        manifest = json.loads((root / "manifest.json").read_text())
    except (OSError, ValueError) as exc:
        raise DataError(f"{root}: not a complete dataset store ({exc})") from exc
    if manifest.get("format") != STORE_FORMAT or manifest.get("version") != _VERSION:
        raise DataError(f"{root}: unknown dataset store format")
    views = []
    for i, spec in enumerate(manifest["views"]):
        if spec["kind"] == "csr":
            parts = [_load(root, f"view{i}_{p}", mmap) for p in ("data", "indices", "indptr")]
            views.append(sp.csr_matrix(tuple(parts), shape=tuple(spec["shape"])))
        else:
            views.append(_load(root, f"view{i}", mmap))
    metadata = {
        key: np.asarray(_load(root, f"meta_{j}", False))
        for j, key in enumerate(manifest.get("metadata", []))
    }
    return MultiViewDataset(
        views=views,
        labels=_load(root, "labels", False) if manifest["labels"] else None,
        view_names=manifest["view_names"],
        class_names=manifest["class_names"],
        name=manifest["name"],
        source=manifest["source"],
        warnings=manifest["warnings"],
        meta=manifest["meta"],
        sample_ids=_load(root, "ids", False) if manifest.get("ids") else None,
        metadata=metadata,
        observed=_load(root, "observed", False) if manifest.get("observed") else None,
    )
