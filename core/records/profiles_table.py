"""Cluster profiles as a table: the top features of every cluster in every view, with their
names when the data has them, written as CSV (``mvc run --profile``) and shown in the HTML
report. The statistics come from ``core.numerics.profiles``."""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.data.atomic import atomic_write
from core.data.dataset import MultiViewDataset, View
from core.numerics.profiles import ViewProfile, profile_view

__all__ = [
    "ProfileRow",
    "cluster_profiles",
    "feature_names_of",
    "profile_rows",
    "profiles_csv_text",
    "profiles_html",
    "write_profiles_csv",
]  # fmt: skip

COLUMNS = ("view", "cluster", "rank", "feature", "name", "mean_in", "mean_out", "effect_d",
           "auc", "p", "q")  # fmt: skip


@dataclass(frozen=True)
class ProfileRow:
    view: str
    cluster: int
    rank: int
    feature: int
    name: str
    mean_in: float
    mean_out: float
    effect_d: float
    auc: float
    p: float
    q: float


def feature_names_of(ds: object, view: int, d: int) -> list[str]:
    """The feature names of view ``view`` when the data carries them (``feature_names``
    attribute or ``meta["feature_names"]``: one list per view), else ``f1..fd``."""
    names = getattr(ds, "feature_names", None) or getattr(ds, "meta", {}).get("feature_names")
    try:
        got = [str(s) for s in names[view]] if names is not None else None
    except (IndexError, KeyError, TypeError):
        got = None
    return got if got is not None and len(got) == d else [f"f{j + 1}" for j in range(d)]


def cluster_profiles(
    views: Sequence[View],
    labels: np.ndarray,
    view_names: Sequence[str],
    feature_names: Sequence[Sequence[str]] | None = None,
    top: int = 10,
    alpha: float = 0.05,
) -> tuple[list[ProfileRow], list[ViewProfile]]:
    """Top ``top`` features (q < alpha, largest effect first) per view and cluster."""
    labels = np.asarray(labels, dtype=np.int64)
    c = int(labels.max()) + 1
    rows, profiles = [], []
    for v, x in enumerate(views):
        prof = profile_view(x, labels, c)
        profiles.append(prof)
        names = (
            list(feature_names[v]) if feature_names else [f"f{j + 1}" for j in range(x.shape[1])]
        )
        for k in range(c):
            for r, j in enumerate(prof.top(k, top, alpha).tolist(), start=1):
                rows.append(
                    ProfileRow(
                        view_names[v],
                        k,
                        r,
                        j,
                        names[j],
                        float(prof.mean_in[k, j]),
                        float(prof.mean_out[k, j]),
                        float(prof.effect[k, j]),
                        float(prof.auc[k, j]),
                        float(prof.p[k, j]),
                        float(prof.q[k, j]),
                    )
                )
    return rows, profiles


def profile_rows(ds: MultiViewDataset, labels: np.ndarray, top: int = 10) -> list[ProfileRow]:
    """The profile rows of a dataset's views (feature names when it has them)."""
    names = [feature_names_of(ds, v, x.shape[1]) for v, x in enumerate(ds.views)]
    return cluster_profiles(ds.views, labels, ds.view_names, names, top)[0]


def profiles_csv_text(rows: Sequence[ProfileRow]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    for r in rows:
        w.writerow([r.view, r.cluster, r.rank, r.feature + 1, r.name,
                    *(f"{getattr(r, c):.6g}" for c in COLUMNS[5:])])  # fmt: skip
    return buf.getvalue()


def write_profiles_csv(path: str | os.PathLike[str], rows: Sequence[ProfileRow]) -> Path:
    """The profile table as CSV (feature numbers 1-based), written atomically."""
    return atomic_write(path, profiles_csv_text(rows))


def profiles_html(rows: Sequence[ProfileRow], per_cluster: int = 5) -> str:
    """An HTML section of the report: the top features of each cluster per view."""
    from html import escape

    from core.records.svg_charts import html_table

    if not rows:
        return ""
    cells = [
        [escape(r.view), str(r.cluster), escape(r.name), f"{r.mean_in:.4g}", f"{r.mean_out:.4g}",
         f"{r.effect_d:+.2f}", f"{r.auc:.2f}", f"{r.q:.2g}"]
        for r in rows
        if r.rank <= per_cluster
    ]  # fmt: skip
    head = ["view", "cluster", "feature", "mean in", "mean out", "Cohen's d", "AUC", "q (BH)"]
    return (
        '<section id="profiles"><h2>What sets each cluster apart</h2><p class="note">Per view '
        f"and cluster, up to {per_cluster} features with q &lt; 0.05 (Mann-Whitney U against "
        "the other samples, Benjamini-Hochberg), largest effect first; values as loaded.</p>"
        + html_table(head, cells, "profiles")
        + "</section>"
    )
