"""Clusters written back as a new column of the user's own data, matched by sample id.

* a metadata table (CSV/TSV): every row and column kept as text, the new column appended
  (empty where the table lists a sample the run did not have), same delimiter;
* an ``.h5ad`` / ``.h5mu``: a copy of the file with a new integer column in (the global)
  ``obs`` (-1 where the run did not have the sample), ``column-order`` updated.

The input is never modified: the output must be another path, and it is written atomically.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from core.data.atomic import atomic_path, atomic_write
from core.data.dataset import DataError

__all__ = ["write_back"]


def write_back(
    source: str | os.PathLike[str],
    target: str | os.PathLike[str],
    ids: Sequence[str],
    labels: np.ndarray,
    *,
    column: str = "mvc_cluster",
    id_column: str | None = None,
) -> Path:
    """Write ``source`` with a new column ``column`` (cluster of each id) to ``target``."""
    src, dst = Path(source), Path(target)
    if not src.exists():
        raise DataError(f"{src}: no such file to write the clusters back into")
    if dst.resolve() == src.resolve():
        raise DataError(f"{dst.name}: choose a new file: the input is never overwritten")
    by_id = dict(zip((str(i) for i in ids), np.asarray(labels).tolist(), strict=True))
    if src.suffix.lower() in (".h5ad", ".h5mu"):
        return _write_h5(src, dst, by_id, column)
    return _write_table(src, dst, by_id, column, id_column)


def _write_table(src: Path, dst: Path, by_id: dict, column: str, id_column: str | None) -> Path:
    from core.data.io.tables import read_table, sniff_table

    layout = sniff_table(src)
    table = read_table(src, id_column=id_column)  # finds the id column the loader used
    if table.ids is None or layout.header is None:
        raise DataError(f"{src.name}: needs a header and an id column to add a column by id")
    if column in layout.header:
        raise DataError(f"{src.name} already has a column {column!r}: choose another name")
    with open(src, encoding="utf-8-sig", newline="") as fh:
        rows = [r for r in csv.reader(fh, delimiter=layout.delimiter) if any(c.strip() for c in r)]
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=layout.delimiter, lineterminator="\n")
    writer.writerow(rows[0] + [column])
    for row, sample in zip(rows[1:], table.ids.tolist(), strict=True):
        value = by_id.get(sample)
        writer.writerow([*row, "" if value is None else str(value)])
    return atomic_write(dst, buf.getvalue())


def _write_h5(src: Path, dst: Path, by_id: dict, column: str) -> Path:
    import h5py

    from core.data.io.anndata import read_obs

    ids, columns = read_obs(src)
    if column in columns:
        raise DataError(f"{src.name}: obs already has a column {column!r}: choose another name")
    values = np.array([by_id.get(s, -1) for s in ids.tolist()], dtype=np.int64)
    with atomic_path(dst) as tmp:
        shutil.copyfile(src, tmp)
        with h5py.File(tmp, "r+") as f:
            obs = f["obs"]
            ds = obs.create_dataset(column, data=values)
            ds.attrs["encoding-type"] = "array"
            ds.attrs["encoding-version"] = "0.2.0"
            order = [c.decode() if isinstance(c, bytes) else str(c)
                     for c in obs.attrs.get("column-order", [])]  # fmt: skip
            obs.attrs.create("column-order", [*order, column], dtype=h5py.string_dtype())
    return dst
