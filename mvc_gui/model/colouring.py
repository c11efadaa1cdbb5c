"""What the embedding's points are coloured by (Qt-free): a code per sample, a legend, hover text.

Every colour source becomes a :class:`Colouring`: one code per sample indexing ``colours``
(-1: no value, drawn grey), so the scatter draws one call per colour whatever the source.

* categories (clusters, true labels, a text or few-valued metadata column): the cluster palette,
  one colour per category, names for the legend;
* numbers (a numeric metadata column, a feature's value): the values' range cut into
  :data:`N_BINS` equal bins of a continuous colour ramp (given by the caller: the plot layer owns
  the colour maps); NaN is grey;
* named groups of samples: one colour per group (a sample in several groups takes the last
  one, as :meth:`core.analysis.groups.GroupSet.as_labels` says), samples in none grey;
* the disagreement of two runs: the other run's clusters matched to the current run's by the
  Hungarian assignment (:func:`core.experiments.compare.contingency`); the disagreeing samples are
  emphasised and counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from core.data.dataset import encode_labels
from core.experiments.compare import contingency
from mvc_gui.model.palette import NOISE_COLOR, cluster_colors

__all__ = [
    "AGREE_COLOR",
    "DISAGREE_COLOR",
    "MAX_CATEGORIES",
    "N_BINS",
    "Colouring",
    "categorical",
    "continuous",
    "disagreement",
    "feature_column",
    "from_labels",
    "groups",
    "is_numeric",
]

RGB = tuple[int, int, int]
N_BINS = 64
DISAGREE_COLOR: RGB = (213, 94, 0)  # Okabe-Ito vermillion
AGREE_COLOR: RGB = (200, 205, 212)
OTHER_COLOR: RGB = (120, 120, 120)
#: colours of one categorical column at most; rarer values share "other"
MAX_CATEGORIES = 40


@dataclass(frozen=True)
class Colouring:
    """Per-sample colour codes and what the legend and hover text say about them.

    ``codes[i]`` indexes ``colours`` (-1: the sample has no value: grey). Categorical
    colourings name each colour (``names``, with ``counts``); continuous ones carry the values
    and their range ``(lo, hi)``. ``emphasis`` marks samples drawn larger and on top.
    """

    title: str
    kind: str  # "categorical" or "continuous"
    codes: np.ndarray
    colours: list[RGB]
    names: list[str]
    counts: list[int]
    values: np.ndarray | None = None
    lo: float = 0.0
    hi: float = 0.0
    emphasis: np.ndarray | None = None
    summary: str = ""

    @property
    def n_missing(self) -> int:
        return int(np.count_nonzero(self.codes < 0))

    def colour_of(self, i: int) -> RGB:
        """The colour sample ``i`` is drawn in."""
        c = int(self.codes[i])
        return NOISE_COLOR if c < 0 else self.colours[c]

    def value_text(self, i: int) -> str:
        """``"<title>: <value>"`` for the hover text of sample ``i``."""
        if self.kind == "continuous":
            v = float(self.values[i])
            shown = "no value" if not np.isfinite(v) else f"{v:.4g}"
        else:
            c = int(self.codes[i])
            shown = "no value" if c < 0 else self.names[c]
            if self.values is not None:  # the disagreement: the other run's cluster
                shown = f"cluster {self.values[i]}, {shown}s"
        return f"{self.title}: {shown}"


def is_numeric(values: np.ndarray) -> bool:
    return np.asarray(values).dtype.kind in "biuf"


def categorical(
    values: Sequence[object] | np.ndarray, title: str, max_categories: int = MAX_CATEGORIES
) -> Colouring:
    """One palette colour per distinct value (sorted as :func:`encode_labels` does);
    empty strings and NaN have no category (grey). Beyond ``max_categories`` values (an
    id-like column) the most frequent keep their colours and the rest share one, "other"."""
    values = np.asarray(values)
    if is_numeric(values):
        missing = ~np.isfinite(values.astype(np.float64))
    else:
        values = values.astype(str)
        missing = (values == "") | (values == "nan")
    codes = np.full(values.shape[0], -1, dtype=np.int64)
    names: list[str] = []
    if (~missing).any():
        present, names = encode_labels(values[~missing])
        codes[~missing] = present
    counts = np.bincount(codes[codes >= 0], minlength=len(names))
    colours = cluster_colors(min(len(names), max_categories))
    if len(names) > max_categories:
        keep = np.sort(np.argsort(-counts, kind="stable")[: max_categories - 1])
        new = np.full(len(names), max_categories - 1, dtype=np.int64)
        new[keep] = np.arange(keep.size)
        rest = len(names) - keep.size
        codes = np.where(codes >= 0, new[np.maximum(codes, 0)], -1)
        counts = np.append(counts[keep], counts.sum() - counts[keep].sum())
        names = [names[i] for i in keep] + [f"other ({rest:,} values)"]
        colours[-1] = OTHER_COLOR
    return Colouring(title, "categorical", codes, colours, names, counts.tolist())


def from_labels(
    labels: np.ndarray, names: Sequence[str], title: str, counts: np.ndarray | None = None
) -> Colouring:
    """Integer labels 0..k-1 (clusters, reference classes) with their display names;
    ``counts``: their bincount when the caller has it (no pass over the labels here)."""
    labels = np.asarray(labels, dtype=np.int64)
    if counts is None:
        k = max(len(names), int(labels.max()) + 1 if labels.size else 0)
        counts = np.bincount(labels[labels >= 0], minlength=k)
    k = max(len(names), len(counts))
    full = [names[c] if c < len(names) else str(c) for c in range(k)]
    counts = np.pad(np.asarray(counts), (0, k - len(counts))).tolist()
    return Colouring(title, "categorical", labels, cluster_colors(k), full, counts)


def groups(
    labels: np.ndarray, names: Sequence[str], colours: Sequence[str | None] = ()
) -> Colouring:
    """Group number per sample (-1: in no group, grey) with the groups' names and their own
    colours (``"#rrggbb"``; None or missing: the cluster palette's colour of that place)."""
    codes = np.asarray(labels, dtype=np.int64).ravel()
    k = len(names)
    palette = cluster_colors(k) if k else []
    chosen = [_rgb(colours[g]) if g < len(colours) and colours[g] else palette[g] for g in range(k)]
    counts = np.bincount(codes[codes >= 0], minlength=k)[:k].tolist()
    in_none = int(np.count_nonzero(codes < 0))
    summary = f"{in_none:,} samples are in no group (grey)" if in_none and k else ""
    return Colouring("groups", "categorical", codes, chosen, list(names), counts,
                     summary=summary)  # fmt: skip


def _rgb(text: str) -> RGB:
    """``"#rrggbb"`` as (r, g, b); anything else: a clear ValueError."""
    t = text.strip().lstrip("#")
    if len(t) != 6:
        raise ValueError(f"a group colour must be #rrggbb, got {text!r}")
    return int(t[0:2], 16), int(t[2:4], 16), int(t[4:6], 16)


def continuous(values: np.ndarray, title: str, ramp: Sequence[RGB]) -> Colouring:
    """Values cut into ``len(ramp)`` equal bins between their finite minimum and maximum;
    NaN (and infinities) are grey. A constant column takes the middle colour."""
    x = np.asarray(values, dtype=np.float64).ravel()
    finite = np.isfinite(x)
    codes = np.full(x.shape[0], -1, dtype=np.int64)
    bins = len(ramp)
    lo = hi = 0.0
    if finite.any():
        lo, hi = float(x[finite].min()), float(x[finite].max())
        if hi > lo:
            scaled = (x[finite] - lo) / (hi - lo) * bins
            codes[finite] = np.minimum(scaled.astype(np.int64), bins - 1)
        else:
            codes[finite] = bins // 2
    return Colouring(title, "continuous", codes, list(ramp), [], [], x, lo, hi)


def disagreement(current: np.ndarray, other: np.ndarray, other_title: str) -> Colouring:
    """Where ``other``'s clusters, matched to ``current``'s by the Hungarian assignment, differ.

    Samples agree when the other run put them in the cluster matched to their current cluster;
    clusters of the other run left unmatched (it has more clusters) disagree everywhere.
    """
    current = np.asarray(current).ravel()
    other = np.asarray(other).ravel()
    if current.shape != other.shape:
        raise ValueError(
            f"{other_title} has {other.size:,} labels but the current run {current.size:,}: "
            "they were made on different data"
        )
    table = contingency(current, other)
    k = table.n_matched
    rows, cols = table.row_labels[:k].tolist(), table.col_labels[:k].tolist()
    partner = dict(zip(cols, rows, strict=True))  # other's cluster -> matched current cluster
    uniq, inv = np.unique(other, return_inverse=True)
    has = np.array([u in partner for u in uniq.tolist()])
    to = np.array([partner.get(u, 0) for u in uniq.tolist()])
    differ = ~(has[inv] & (to[inv] == current))
    n_diff = int(differ.sum())
    share = n_diff / max(current.size, 1)
    codes = differ.astype(np.int64)
    return Colouring(
        title=other_title,
        kind="categorical",
        codes=codes,
        colours=[AGREE_COLOR, DISAGREE_COLOR],
        names=["agree", "disagree"],
        counts=[current.size - n_diff, n_diff],
        values=other,
        emphasis=differ,
        summary=f"{n_diff:,} of {current.size:,} samples ({share:.1%}) disagree (clusters "
        "matched by the Hungarian assignment)",
    )


def feature_column(view: object, j: int) -> np.ndarray:
    """Column ``j`` of a view as a dense float vector (sparse views: only that column)."""
    if sp.issparse(view):
        return np.asarray(sp.csc_matrix(view[:, [j]]).toarray(), dtype=np.float64).ravel()
    return np.asarray(view[:, j], dtype=np.float64).ravel()
