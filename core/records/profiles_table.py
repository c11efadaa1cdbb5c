"""Cluster profiles as a table: the top features of every cluster in every view, with their
names when the data has them, written as CSV (``mvc run --profile``) and shown in the HTML
report. The statistics come from ``core.numerics.profiles``: over the samples that have the
view (``observed``), features ranked by |Cohen's d| in both directions (``direction`` says
"higher" or "lower" in the cluster). On a row-block (streamed) view the means and d are over
all rows; the AUC, p and q over all rows too up to ``STREAM_RANK_ROWS`` observed rows, else
over a seeded random subsample of that many: ``rank_samples`` (CSV) and the HTML note say
so."""

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
    "directions",
    "feature_names_of",
    "profile_rows",
    "profiles_csv_text",
    "profiles_html",
    "write_profiles_csv",
]  # fmt: skip

COLUMNS = ("view", "cluster", "rank", "feature", "name", "direction", "mean_in", "mean_out",
           "effect_d", "auc", "p", "q", "n_in", "n_out", "rank_samples")  # fmt: skip
_FLOATS = ("mean_in", "mean_out", "effect_d", "auc", "p", "q")


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
    direction: str = ""  # "higher" or "lower" in the cluster than outside (sign of effect_d)
    n_in: int = 0  # samples of the cluster that have the view
    n_out: int = 0  # samples outside the cluster that have the view
    rank_samples: int = 0  # samples the AUC, p and q used (n_in + n_out unless subsampled)


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
    observed: np.ndarray | None = None,
) -> tuple[list[ProfileRow], list[ViewProfile]]:
    """Top ``top`` features (q < alpha, largest |effect| first, higher or lower) per view and
    cluster. ``observed``: (n, V) bool, which sample has which view (None: all); each view's
    statistics are over the samples that have it. Views may be row-block sources."""
    labels = np.asarray(labels, dtype=np.int64)
    c = int(labels.max()) + 1
    rows, profiles = [], []
    for v, x in enumerate(views):
        seen = None if observed is None else np.asarray(observed, dtype=bool)[:, v]
        prof = profile_view(x, labels, c, seen)
        profiles.append(prof)
        names = (
            list(feature_names[v]) if feature_names else [f"f{j + 1}" for j in range(x.shape[1])]
        )
        for k in range(c):
            n_in, n_out = int(prof.n_in[k]), int(prof.n_out[k])
            for r, j in enumerate(prof.top(k, top, alpha).tolist(), start=1):
                effect = float(prof.effect[k, j])
                rows.append(
                    ProfileRow(
                        view_names[v],
                        k,
                        r,
                        j,
                        names[j],
                        float(prof.mean_in[k, j]),
                        float(prof.mean_out[k, j]),
                        effect,
                        float(prof.auc[k, j]),
                        float(prof.p[k, j]),
                        float(prof.q[k, j]),
                        _direction(effect, float(prof.auc[k, j])),
                        n_in,
                        n_out,
                        int(prof.rank_samples),
                    )
                )
    return rows, profiles


def _direction(effect: float, auc: float) -> str:
    """ "higher" or "lower" in the cluster: the sign of d (of AUC - 1/2 when d is 0)."""
    return str(directions(np.array([effect]), np.array([auc]))[0])


def directions(effect: np.ndarray, auc: np.ndarray) -> np.ndarray:
    """Per feature "higher" or "lower" in the group than outside it: the sign of d (of
    AUC - 1/2 when d is 0; "lower" when both are silent)."""
    effect, auc = np.asarray(effect), np.asarray(auc)
    higher = (effect > 0) | ((effect == 0) & (auc > 0.5))
    return np.where(higher, "higher", "lower")


def profile_rows(ds: MultiViewDataset, labels: np.ndarray, top: int = 10) -> list[ProfileRow]:
    """The profile rows of a dataset's views (feature names when it has them), each view over
    the samples that have it (``ds.observed``)."""
    names = [feature_names_of(ds, v, x.shape[1]) for v, x in enumerate(ds.views)]
    observed = getattr(ds, "observed", None)
    return cluster_profiles(ds.views, labels, ds.view_names, names, top, observed=observed)[0]


def profiles_csv_text(rows: Sequence[ProfileRow]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    for r in rows:
        w.writerow([r.view, r.cluster, r.rank, r.feature + 1, r.name, r.direction,
                    *(f"{getattr(r, c):.6g}" for c in _FLOATS), r.n_in, r.n_out,
                    r.rank_samples])  # fmt: skip
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
        [escape(r.view), str(r.cluster), escape(r.name), r.direction, f"{r.mean_in:.4g}",
         f"{r.mean_out:.4g}", f"{r.effect_d:+.2f}", f"{r.auc:.2f}", f"{r.q:.2g}"]
        for r in rows
        if r.rank <= per_cluster
    ]  # fmt: skip
    head = ["view", "cluster", "feature", "direction", "mean in", "mean out", "Cohen's d", "AUC",
            "q (BH)"]  # fmt: skip
    return (
        '<section id="profiles"><h2>What sets each cluster apart</h2><p class="note">Per view '
        f"and cluster, up to {per_cluster} features with q &lt; 0.05 (Mann-Whitney U against "
        "the other samples, Benjamini-Hochberg), largest |Cohen's d| first, higher or lower in "
        "the cluster; values as loaded, over the samples that have the view."
        + _subsample_note(rows)
        + "</p>"
        + html_table(head, cells, "profiles")
        + "</section>"
    )


def _subsample_note(rows: Sequence[ProfileRow]) -> str:
    """A sentence for the views whose AUC and q come from a row subsample (streamed)."""
    from html import escape

    seen: dict[str, tuple[int, int]] = {}
    for r in rows:
        if r.rank_samples and r.rank_samples < r.n_in + r.n_out:
            seen.setdefault(r.view, (r.rank_samples, r.n_in + r.n_out))
    if not seen:
        return ""
    parts = [f"{escape(v)}: {m:,} of {n:,} samples" for v, (m, n) in seen.items()]
    return (
        " AUC and q of views read in row blocks come from a random row subsample ("
        + "; ".join(parts)
        + "); their means and d use every sample."
    )
