"""AnnData (``.h5ad``) and MuData (``.h5mu``) files read with h5py from their on-disk layout.

The layout is documented by scverse ("AnnData on-disk format", encoding-type attributes):

* an AnnData group holds ``X`` (a dense dataset, or a group with ``encoding-type``
  ``csr_matrix`` / ``csc_matrix``: ``data``, ``indices``, ``indptr`` and a ``shape`` attribute),
  ``obs`` (a ``dataframe`` group: its ``_index`` attribute names the id column, ``column-order``
  lists the columns; a column is a dataset, or a ``categorical`` group of ``codes`` and
  ``categories``, code -1 meaning missing), ``layers/<name>`` and ``obsm/<name>`` matrices;
* a MuData file has one AnnData group per modality under ``mod/`` and a global ``obs``.

We read the layout with h5py (already a dependency) instead of importing anndata/mudata: those
bring pandas, anndata's own stack and more (tens of MB in the packaged app) to read a few
arrays. The tests write their fixtures with h5py in the same layout.
"""

from __future__ import annotations

from pathlib import Path

import h5py
import numpy as np
import scipy.sparse as sp

from core.data.dataset import DataError, detail

__all__ = ["is_anndata", "matrix_keys", "modalities", "read_matrix", "read_obs"]


def _kind(node: h5py.HLObject) -> str:
    value = node.attrs.get("encoding-type", "")
    return value.decode() if isinstance(value, bytes) else str(value)


def is_anndata(path: Path) -> str | None:
    """``"h5ad"`` or ``"h5mu"`` when the HDF5 file is AnnData / MuData, else None."""
    try:
        with h5py.File(path, "r") as f:
            kind = _kind(f).lower()
            if kind == "mudata" or ("mod" in f and "obs" in f):
                return "h5mu"
            if kind == "anndata" or ("X" in f and "obs" in f):
                return "h5ad"
    except OSError:
        return None
    return None


def _strings(ds: h5py.Dataset) -> np.ndarray:
    if ds.dtype.kind in "SO":
        return np.asarray(ds.asstr()[()], dtype=str)
    return np.asarray(ds[()]).astype(str)


def _matrix(node: h5py.HLObject, where: str) -> np.ndarray | sp.csr_matrix:
    if isinstance(node, h5py.Dataset):
        arr = np.asarray(node[()], dtype=np.float64)
        if arr.ndim != 2:
            raise DataError(f"{where} is not a matrix (shape {arr.shape})")
        return arr
    kind = _kind(node)
    if kind not in ("csr_matrix", "csc_matrix"):
        raise DataError(f"{where}: unsupported encoding {kind or 'none'!r} (expected a matrix)")
    shape = tuple(int(s) for s in node.attrs["shape"])
    parts = (node["data"][()].astype(np.float64), node["indices"][()], node["indptr"][()])
    cls = sp.csr_matrix if kind == "csr_matrix" else sp.csc_matrix
    try:
        mat = cls(parts, shape=shape)
        mat.check_format(full_check=True)
    except (ValueError, IndexError) as exc:
        raise DataError(f"{where} is a damaged sparse matrix ({detail(exc)})") from exc
    return mat.tocsr()


def _obs_ids(group: h5py.Group, where: str) -> np.ndarray:
    obs = group["obs"]
    index = obs.attrs.get("_index", "_index")
    index = index.decode() if isinstance(index, bytes) else str(index)
    if index not in obs:
        raise DataError(f"{where}: obs has no index column {index!r}")
    return _strings(obs[index])


def _open(path: Path) -> h5py.File:
    try:
        return h5py.File(path, "r")
    except OSError as exc:
        raise DataError(f"{path.name}: cannot open as HDF5 ({detail(exc)})") from exc


def _anndata_group(f: h5py.File, key: str | None) -> tuple[h5py.Group, str]:
    """The AnnData group and the matrix key inside it (``X``, ``layers/a``, ``obsm/b``)."""
    key = (key or "").strip("/")
    if "mod" not in f:
        return f, key or "X"
    mod, _, rest = key.partition("/")
    if not mod or mod not in f["mod"]:
        have = ", ".join(f["mod"].keys())
        raise DataError(f"no modality {mod!r} (modalities: {have}); give e.g. '#<mod>/X'")
    return f["mod"][mod], rest or "X"


def read_matrix(path: Path, key: str | None) -> tuple[np.ndarray, np.ndarray | sp.csr_matrix, dict]:
    """Ids (obs_names) and the matrix ``key`` of an .h5ad, or of a modality of an .h5mu."""
    with _open(path) as f:
        group, inner = _anndata_group(f, key)
        if inner not in group:
            have = ", ".join(matrix_keys(path))
            raise DataError(f"{path.name}: no matrix {key or inner!r} (available: {have})")
        where = f"{path.name}#{key or inner}"
        values = _matrix(group[inner], where)
        ids = _obs_ids(group, where)
    if values.shape[0] != ids.size:
        raise DataError(f"{where}: {values.shape[0]} rows but {ids.size} obs names")
    return ids, values, {}


def read_var_names(path: Path, key: str | None) -> list[str] | None:
    """The feature names (``var_names``) of matrix ``key``: X and layers share the group's
    ``var`` index; an ``obsm`` entry (e.g. a PCA) has none (None)."""
    with _open(path) as f:
        group, inner = _anndata_group(f, key)
        if inner.startswith("obsm") or "var" not in group:
            return None
        var = group["var"]
        index = var.attrs.get("_index", "_index")
        index = index.decode() if isinstance(index, bytes) else str(index)
        return _strings(var[index]).tolist() if index in var else None


def _text(value: object) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def modalities(f: h5py.File, where: str = "", notes: list[str] | None = None) -> list[str]:
    """The modalities of a MuData file in its order (``mod/``'s ``mod-order`` attribute).

    An order that names a modality the file does not have, leaves one out or lists one twice
    does not decide what is read: every stored modality is read, in the listed order first,
    and ``notes`` gets a sentence saying so (never a modality silently dropped or invented)."""
    present = list(f["mod"].keys())
    order = f["mod"].attrs.get("mod-order")
    if order is None:
        return present
    listed = [_text(m) for m in np.ravel(order)]
    out = list(dict.fromkeys(m for m in listed if m in present))
    extra = [m for m in present if m not in out]
    absent = [m for m in listed if m not in present]
    twice = sorted({m for m in listed if listed.count(m) > 1})
    if (absent or extra or twice) and notes is not None:
        problems = []
        if absent:
            problems.append("names " + ", ".join(repr(m) for m in absent) + " (not in the file)")
        if extra:
            problems.append("leaves out " + ", ".join(repr(m) for m in extra))
        if twice:
            problems.append("lists " + ", ".join(repr(m) for m in twice) + " twice")
        lead = f"{where}: " if where else ""
        notes.append(
            f"{lead}the modality order (mod-order) {'; '.join(problems)}: read the "
            f"{len(present)} stored modalities {', '.join(repr(m) for m in out + extra)}"
        )
    return out + extra


def matrix_keys(path: Path, notes: list[str] | None = None) -> list[str]:
    """Every matrix that can be a view (``X``, ``layers/...``, ``obsm/...``; per modality);
    ``notes`` gets what is wrong with the modality order (:func:`modalities`)."""
    keys = []
    with _open(path) as f:
        if "mod" in f:
            groups = [(f"{m}/", f["mod"][m]) for m in modalities(f, path.name, notes)]
        else:
            groups = [("", f)]
        for prefix, g in groups:
            if "X" in g:
                keys.append(f"{prefix}X")
            for sub in ("layers", "obsm"):
                if sub in g:
                    keys.extend(f"{prefix}{sub}/{k}" for k in g[sub])
    return keys


def read_obs(
    path: Path, notes: list[str] | None = None
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The ids and columns of the (global) obs table: numbers as float, the rest as text
    (categorical columns decoded from codes + categories; missing codes become "").

    A column whose length is not the number of obs names, or whose category codes point past
    its categories, is damaged: it is left out, and ``notes`` says so (never cut to fit)."""
    notes = notes if notes is not None else []
    with _open(path) as f:
        obs = f["obs"]
        ids = _obs_ids(f, path.name)
        index = obs.attrs.get("_index", "_index")
        order = [_text(c) for c in np.ravel(obs.attrs.get("column-order", list(obs.keys())))]
        columns: dict[str, np.ndarray] = {}
        for name in order:
            if name == index or name not in obs:
                continue
            node = obs[name]
            if isinstance(node, h5py.Group) and _kind(node) == "categorical":
                codes = node["codes"][()].astype(np.int64).ravel()
                cats = np.append(_strings(node["categories"]), "")
                if codes.size and (codes.max() >= cats.size - 1 or codes.min() < -1):
                    notes.append(
                        f"{path.name}: obs column {name!r} is damaged (a category code of "
                        f"{int(codes.max())} for {cats.size - 1} categories): left out"
                    )
                    continue
                value = cats[np.where(codes < 0, cats.size - 1, codes)]
            elif isinstance(node, h5py.Group) and "values" in node and "mask" in node:
                values = node["values"][()].astype(np.float64).ravel()  # nullable int / bool
                mask = node["mask"][()].astype(bool).ravel()
                if mask.size != values.size:
                    notes.append(
                        f"{path.name}: obs column {name!r} is damaged ({values.size} values, "
                        f"{mask.size} mask entries): left out"
                    )
                    continue
                value = np.where(mask, np.nan, values)
            elif isinstance(node, h5py.Dataset) and node.dtype.kind in "iufb":
                value = node[()].astype(np.float64).ravel()
            elif isinstance(node, h5py.Dataset):
                value = _strings(node).ravel()
            else:
                continue
            if value.shape[0] != ids.size:
                notes.append(
                    f"{path.name}: obs column {name!r} has {value.shape[0]} values for "
                    f"{ids.size} obs names: left out (a column must have one value per cell)"
                )
                continue
            columns[name] = value
    return ids, columns
