"""What the crossing matrix checks after a run, shared by the CLI and the app matrix.

Failures are reported as ``CAUSE: details`` (``pytest.fail``, no traceback) so that the
failing cells can be grouped by cause. Whether a combination is supported is derived from
properties of the method class and of the written input, never from method names.
"""

from __future__ import annotations

import csv
import hashlib
import re
from pathlib import Path

import numpy as np
import pytest

from .inputs import Written

__all__ = [
    "agreement", "check_explain", "check_inputs_unchanged", "check_labels", "check_profile_rows",
    "check_write_back", "fail", "names_typed", "read_labels", "run_refusal", "streams",
]  # fmt: skip


def fail(cause: str, details: str = "") -> None:
    """Fail the cell with ``CAUSE | details`` (the cause groups the cells in a report)."""
    pytest.fail(f"{cause} | {details}" if details else cause, pytrace=False)


def streams(cls: type) -> bool:
    """Whether a method reads row-block views (``--stream``)."""
    return bool(getattr(cls, "streams", cls.name in ("fmdc", "dtll")))


def run_refusal(cls: type, w: Written) -> str | None:
    """Why a run of ``cls`` on this input must be refused (None: it must run)."""
    if w.stream and not streams(cls):
        return f"{cls.name} does not read row blocks (the input is streamed)"
    if w.incomplete and not cls.supports_incomplete:
        return f"{cls.name} needs every view of every sample (a sample misses a view)"
    return None


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def names_typed(message: str, argv: list[str], method: str) -> bool:
    """Does an error message name something the user typed: a flag (``--stream``), a file
    (its name), a view name, a column or value, or the method (``rg-mvc`` also as RGMVC)?"""
    words: list[str] = []
    for i, a in enumerate(argv):
        if i == 0 and a in ("run", "predict", "info"):
            continue
        if a.startswith("--"):
            if re.search(rf"(?<![\w-]){re.escape(a)}(?![\w-])", message):
                return True
            continue
        name, eq, rest = a.partition("=")
        if eq and "/" not in name:  # NAME=PATH[#KEY]
            words.append(name)
            a = rest
        path = a.split("#")[0]
        if "/" in path or "\\" in path:
            words.append(Path(path).name)
        elif a != method:
            words.append(a)
    if any(re.search(rf"(?<![\w.-]){re.escape(w)}(?![\w-])", message) for w in words if w):
        return True
    return _norm(method) in _norm(message)


# -- labels -------------------------------------------------------------------------------------
def read_labels(path: Path) -> tuple[list[str], list[list[str]]]:
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    return rows[0], rows[1:]


def labels_by_id(path: Path) -> dict[str, int]:
    _header, rows = read_labels(path)
    return {r[0]: int(r[1]) for r in rows}


def agreement(a: dict[str, int], b: dict[str, int]) -> float:
    shared = sorted(set(a) & set(b))
    return float(np.mean([a[k] == b[k] for k in shared])) if shared else 0.0


def _best_match_accuracy(truth: list[str], clusters: list[int]) -> float:
    from core.numerics.metrics import accuracy

    _, codes = np.unique(np.asarray(truth), return_inverse=True)
    return float(accuracy(codes, np.asarray(clusters)))


def check_labels(path: Path, w: Written, what: str = "labels CSV") -> dict[str, int]:
    """One row per sample with the data's own ids (else 1..n), a cluster column, the truth
    column (when present) the data's own class of that id; the ids are on the right rows
    (the clusters match the written classes)."""
    if not Path(path).exists():
        fail(f"{what} not written", str(path))
    header, rows = read_labels(path)
    if header[:2] != ["sample_id", "cluster"]:
        fail(f"{what}: unexpected header", repr(header))
    ids = [r[0] for r in rows]
    if len(set(ids)) != len(ids):
        fail(f"{what}: duplicate sample ids", f"{len(ids) - len(set(ids))} duplicates")
    if set(ids) != set(w.ids) or len(ids) != len(w.ids):
        extra, missing = sorted(set(ids) - set(w.ids)), sorted(set(w.ids) - set(ids))
        fail(f"{what}: the rows are not the data's samples",
             f"{len(ids)} rows for {len(w.ids)} samples; not in the data {extra[:3]}, "
             f"missing {missing[:3]}")  # fmt: skip
    try:
        clusters = [int(r[1]) for r in rows]
    except ValueError as exc:
        fail(f"{what}: a cluster is not an integer", str(exc))
    if min(clusters) < 0:
        fail(f"{what}: negative cluster", str(min(clusters)))
    if "truth" in header:
        col = header.index("truth")
        wrong = [r[0] for r in rows if r[col] != w.truth[r[0]]]
        if wrong:
            fail(f"{what}: truth column differs from the data's classes",
                 f"{len(wrong)} ids, first {wrong[0]!r}")  # fmt: skip
    acc = _best_match_accuracy([w.truth[i] for i in ids], clusters)
    if acc < 0.9:
        fail(f"{what}: clusters do not follow the ids' classes", f"accuracy {acc:.3f} < 0.9")
    return dict(zip(ids, clusters, strict=True))


# -- inputs never modified ------------------------------------------------------------------------
def check_inputs_unchanged(w: Written) -> None:
    for path, digest in w.digests.items():
        now = hashlib.sha256(path.read_bytes()).hexdigest()
        if now != digest:
            fail("an input file was modified", path.name)


# -- write-back -----------------------------------------------------------------------------------
def check_write_back(target: Path, w: Written, clusters: dict[str, int]) -> None:
    """The new file has the column ``mvc_cluster`` with each id's cluster (empty / -1 for the
    rows the run did not have); every input file is byte-identical."""
    check_inputs_unchanged(w)
    if not Path(target).exists():
        fail("write-back file not written", str(target))
    if w.write_back_suffix in (".h5ad", ".h5mu"):
        from core.data.io.anndata import read_obs

        ids, columns = read_obs(target)
        if "mvc_cluster" not in columns:
            fail("write-back: no obs column mvc_cluster", f"columns {sorted(columns)}")
        got = dict(zip(ids.tolist(), np.asarray(columns["mvc_cluster"]).tolist(), strict=True))
        old_ids, old_columns = read_obs(w.write_back)
        if ids.tolist() != old_ids.tolist() or set(columns) - {"mvc_cluster"} != set(old_columns):
            fail("write-back: the copy lost or changed obs", f"{sorted(columns)}")
        want = {i: clusters.get(i, -1) for i in ids.tolist()}
    else:
        with open(target, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh, delimiter="\t" if target.suffix == ".tsv" else ","))
        with open(w.write_back, newline="", encoding="utf-8") as fh:
            before = list(csv.reader(fh, delimiter="\t" if target.suffix == ".tsv" else ","))
        if rows[0][-1:] != ["mvc_cluster"]:
            fail("write-back: no column mvc_cluster", repr(rows[0]))
        if [r[:-1] for r in rows] != before:
            fail("write-back: the copy changed the table's own cells")
        c = before[0].index(w.id_column) if w.id_column else 0
        got = {r[c]: r[-1] for r in rows[1:]}
        want = {r[c]: "" if r[c] not in clusters else str(clusters[r[c]]) for r in rows[1:]}
    wrong = [k for k in want if got.get(k) != want[k]]
    if wrong:
        first = wrong[0]
        detail = f"{len(wrong)} ids, first {first!r}: {got.get(first)!r} != {want[first]!r}"
        fail("write-back: mvc_cluster differs from the labels by id", detail)


# -- profiles -------------------------------------------------------------------------------------
def _column(x, j: int) -> np.ndarray:
    col = x[:, j]
    return np.asarray(col.toarray()).ravel() if hasattr(col, "toarray") else np.asarray(col)


def check_profile_rows(rows: list[dict], ds, clusters: dict[str, int], what: str) -> None:
    """``rows``: dicts with view, cluster, feature (1-based), mean_in, mean_out. Each mean must
    be over the samples that HAVE the view (a sample missing a view is not counted)."""
    if not rows:
        fail(f"{what}: no profile rows", "3 well separated clusters must have distinct features")
    ids = ds.ids.tolist()
    missing = [i for i in ids if i not in clusters]
    if missing:
        fail(f"{what}: labels lack samples of the data", f"first {missing[0]!r}")
    labels = np.array([clusters[i] for i in ids])
    names = list(ds.view_names)
    for r in rows:
        if r["view"] not in names:
            fail(f"{what}: unknown view in the profiles", repr(r["view"]))
        v, k, j = names.index(r["view"]), int(r["cluster"]), int(r["feature"]) - 1
        seen = np.ones(len(ids), bool) if ds.observed is None else ds.observed[:, v]
        x = _column(ds.views[v], j)
        for key, sel in (("mean_in", seen & (labels == k)), ("mean_out", seen & (labels != k))):
            want = float(x[sel].mean())
            got = float(r[key])
            if not np.isclose(got, want, rtol=1e-4, atol=1e-6):
                absent = int(np.count_nonzero(~seen))
                cause = (
                    f"{what} count samples missing a view"
                    if absent
                    else f"{what}: {key} differs from the data"
                )
                fail(cause, f"{r['view']} feature {j + 1} cluster {k}: {key} {got:.6g} written, "
                            f"{want:.6g} over the {int(sel.sum())} samples that have the view "
                            f"({absent} sample(s) miss it)")  # fmt: skip


# -- explain --------------------------------------------------------------------------------------
def _csv_rows(path: Path, what: str) -> list[dict[str, str]]:
    if not Path(path).exists():
        fail(f"{what} not written", Path(path).name)
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def check_explain(folder: Path, ds, group: list[str], what: str) -> None:
    """The tables of ``mvc explain --group`` (or the app's workbench) in ``folder``, for the
    group of ids ``group`` against the rest of ``ds`` (views in memory): every feature of every
    view compared over the samples that HAVE the view (n_a, n_b, the means), the group's
    composition, a row per metadata column, and each view clustered alone (one clustering
    at least follows the run: the data has 3 well separated clusters)."""
    ids = ds.ids.tolist()
    in_group = np.isin(np.asarray(ids), np.asarray(group))
    rows = _csv_rows(folder / "compare.csv", f"{what} compare.csv")
    for v, name in enumerate(ds.view_names):
        mine = [r for r in rows if r["view"] == name]
        x = ds.views[v]
        if len(mine) != x.shape[1]:
            fail(f"{what}: compare.csv lacks features", f"{name}: {len(mine)} of {x.shape[1]}")
        seen = np.ones(len(ids), bool) if ds.observed is None else ds.observed[:, v]
        n_a, n_b = int((seen & in_group).sum()), int((seen & ~in_group).sum())
        got = {(int(r["n_a"]), int(r["n_b"])) for r in mine}
        if got != {(n_a, n_b)}:
            absent = int(np.count_nonzero(~seen))
            cause = f"{what}: compare.csv counts samples missing a view" if absent else (
                f"{what}: compare.csv n_a/n_b differ from the group")  # fmt: skip
            fail(cause, f"{name}: {sorted(got)} written, ({n_a}, {n_b}) expected")
        top = mine[0]
        j = int(top["feature"]) - 1
        want = float(_column(x, j)[seen & in_group].mean())
        if not np.isclose(float(top["mean_a"]), want, rtol=1e-4, atol=1e-6):
            detail = f"{name} feature {j + 1}: {top['mean_a']} written, {want:.6g} expected"
            fail(f"{what}: compare.csv mean_a differs from the data", detail)
    comp = _csv_rows(folder / "composition.csv", f"{what} composition.csv")
    size = [int(r["count"]) for r in comp if r["group"] == "group" and r["column"] == "size"]
    by_cluster = sum(int(r["count"]) for r in comp
                     if r["group"] == "group" and r["column"] == "cluster")  # fmt: skip
    if size != [len(group)] or by_cluster != len(group):
        fail(f"{what}: composition.csv does not count the group",
             f"size {size}, by cluster {by_cluster}, group of {len(group)}")  # fmt: skip
    assoc = _csv_rows(folder / "association.csv", f"{what} association.csv")
    if {r["column"] for r in assoc} != set(ds.metadata):
        fail(f"{what}: association.csv rows are not the metadata columns",
             f"{sorted(r['column'] for r in assoc)} vs {sorted(ds.metadata)}")  # fmt: skip
    agree = _csv_rows(folder / "view_agreement.csv", f"{what} view_agreement.csv")
    if [r["view"] for r in agree] != list(ds.view_names):
        fail(f"{what}: view_agreement.csv views differ", repr([r["view"] for r in agree]))
    observed = [len(ids)] * len(agree) if ds.observed is None else ds.observed.sum(0).tolist()
    if [int(r["n_observed"]) for r in agree] != observed:
        fail(f"{what}: view_agreement.csv counts samples missing a view",
             f"{[r['n_observed'] for r in agree]} vs {observed}")  # fmt: skip
    if max(float(r["ari"]) for r in agree) < 0.5:
        fail(f"{what}: no view alone follows the run", repr([r["ari"] for r in agree]))
