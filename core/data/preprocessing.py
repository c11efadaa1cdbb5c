"""Per-view preprocessing, sparse-aware (a sparse view is never densified).

Methods (common spec §2): ``none``, ``zscore`` (ddof=1; constant columns -> 0), ``minmax``,
``maxscale`` (divide by the largest entry), ``l2`` (rows to unit norm; zero rows stay zero),
``tfidf`` (log(1+tf)·idf, then rows to unit norm), and ``auto``, which chooses per view:

* views with negative values (projections, centred features) get ``zscore``;
* sparse views, and non-negative dense views that are mostly zeros (density < 0.5) or whose
  features live on comparable scales (spread of column std, 95th/5th percentile, <= 100):
  counts, bags of words, histograms, pixel intensities, get ``l2`` (cosine geometry: the
  total mass of a row must not decide its cluster);
* non-negative dense views whose features span very different scales (spread > 100) get
  ``zscore``, which puts them on equal footing.

Measured with FMDC, mean ACC over 10 seeds (docs/preprocessing.md): WebKB 0.96 with l2 against
0.78 with z-score; MSRC-v1 0.86 with l2 against 0.77; Handwritten 0.966 with this per-view
choice (l2 on pix/fou/fac, z-score on zer/kar/mor) against 0.946 all-zscore and 0.924 all-l2.

``auto`` above is the ``general`` rule. A method may ask for another rule, declaring the
preprocessing its derivation (and its authors' code) assumes; the method passes the rule name
down (this module knows nothing of methods). Rules (``AUTO_RULES``):

* ``general``: as above (FMDC, k-means on the concatenation);
* ``zscore``: every view z-scored per feature (the authors' ``mapstd`` of MVSC-HFD);
* ``text_tfidf_zscore``: bags of words (sparse non-negative views, dense counts with
  density < 0.1) get ``tfidf``, every other view ``zscore`` (MVSC-HFD: z-scored word counts
  lose to tf-idf on every text file, NGs 0.68 / 0.996, BBC4view 0.85 / 0.945);
* ``text_tfidf_zscore_binary_l2``: as ``text_tfidf_zscore``, but bags of words of presence /
  absence (0/1) get ``l2`` (MVSC-HFD since 2026-11-29, the held-out choice on 22 of 24 files:
  WebKB-203's binary views 0.484 → 0.586, CiteSeer 0.576 → 0.592, 3-seed means);
* ``raw_counts``: sparse views and dense count views (non-negative integers, density < 0.5)
  as stored (ALPC: the authors feed raw term counts; its stopping rule is calibrated on the raw
  energy), other dense views z-scored (large raw values stall ALPC after 3 iterations);
* ``raw_text``: sparse views and bags of words (dense counts with density < 0.1) as stored,
  histograms (dense non-negative views whose non-zero rows all sum to one total: normalised
  histograms, topic proportions) ``l2``, every other dense view ``zscore`` (ALPC since
  2026-11-29, the held-out choice: z-scoring Wiki_fea's two histograms cost it 0.38, 0.201
  against 0.580; denser integer views are pixel intensities and ratings, which ALPC reads
  better z-scored: HW2sources 0.847 → 0.919, Hdigit 0.809 → 0.903);
* ``tfidf_text``: bag-of-words views (count views with density < 0.1) get ``tfidf``, other
  sparse non-negative views ``l2`` (RG-MVC: a cosine kernel on tf-idf text, the setting its
  text results need; DTLL and anchor-sc), dense views as ``general``. Denser integer views
  are not text: pixel intensities (HW2sources 0.19 / 0.43) and ordinal ratings (Dermatology
  0.35); tf-idf cost RG-MVC 0.08 on Dermatology (docs/defaults.md); the shared text views
  have density <= 0.05;
* ``tfidf_text_real_minmax``: as ``tfidf_text``, and dense non-negative real-valued views
  that are mostly zeros (density < 0.5, not integers: feature weights, not counts) ``minmax``
  (DTLL since 2026-11-29, the held-out choice once the small files were scored on three
  seeds: BDGP_fea 0.252 → 0.475, WebKB 0.785 → 0.801, 3-seed means);
* ``tfidf_text_binary_l2``: as ``tfidf_text``, but bags of words of presence / absence (0/1
  values: no counts to damp, idf only reweights which words are present) get ``l2`` (RG-MVC
  since 2026-11-29, the held-out choice on 23 of 24 files: its cosine kernel on WebKB-203's
  binary views 0.552 → 0.665, CiteSeer 0.220 → 0.441).

Each method's rule is the one chosen leave-one-file-out over the 24 labelled shared files
(``benchmarks/defaults.py --held-out``: per file, the rule with the least mean regret against
the best fixed setting on the other files; a rule is adopted only if that held-out choice beats
the method's previous rule), docs/benchmarks/defaults.md.

Sparse views asked for ``zscore`` are scaled to unit variance without centring (centring
would densify them); the returned name says so. Inputs are never modified.

Values too large for float64 arithmetic (a damaged file gave 1e+300): column statistics are
computed on the column divided by its largest magnitude, and a transform whose statistics
still overflow is fitted and applied on the view scaled by a power of 2 (``unit``; exact, and
every transform but ``none`` and ``tfidf`` is scale-free), its label saying so; no
``RuntimeWarning`` escapes. ``none`` refuses such a view (every method squares the values).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from core.data.dataset import DataError, View
from core.data.spill import output_array, spilling

__all__ = [
    "AUTO_RULES",
    "PREPROCESSORS",
    "ViewTransform",
    "choose_auto",
    "fit_view",
    "inverse_document_frequency",
    "is_count_view",
    "per_view_methods",
    "preprocess",
    "preprocess_view",
    "transform_views",
]

PREPROCESSORS = ("auto", "none", "zscore", "minmax", "maxscale", "l2", "tfidf")
_TINY = 1e-12
#: values of larger magnitude make squared distances overflow (float64; float32: 1e18)
HUGE = {np.dtype(np.float64): 1e150, np.dtype(np.float32): 1e18}


SCALE_SPREAD_LIMIT = 100.0
TEXT_DENSITY_LIMIT = 0.1  # bag-of-words views: 0.001-0.05 on the shared files


def feature_scale_spread(x: np.ndarray) -> float:
    """Ratio of the 95th to the 5th percentile of the non-zero column standard deviations."""
    return std_spread(_dense_std(x, ddof=0))


def std_spread(std: np.ndarray) -> float:
    """Ratio of the 95th to the 5th percentile of the non-zero values of ``std``."""
    std = std[std > 0]
    if std.size < 2:
        return 1.0
    lo, hi = np.percentile(std, [5, 95])
    return float(hi / lo)


class ViewFacts:
    """What the ``auto`` rules read about a view in memory, each fact computed on first use (a
    rule reads only what it needs). :mod:`core.data.column_stats` gives the same facts for a
    view read in row blocks, so both paths decide with the same rules below."""

    def __init__(self, x: View) -> None:
        self._x = x
        self.sparse = sp.issparse(x)

    @cached_property
    def _data(self) -> np.ndarray:
        return self._x.data if self.sparse else self._x

    @cached_property
    def empty(self) -> bool:
        return self._data.size == 0

    @cached_property
    def nonnegative(self) -> bool:
        return self.empty or bool(self._data.min() >= 0)

    @cached_property
    def integer_valued(self) -> bool:
        data = self._data
        if data.ndim == 1:
            return bool(np.all(np.mod(data, 1) == 0))
        return all(bool(np.all(np.mod(data[r], 1) == 0)) for r in _row_blocks(data))

    @cached_property
    def density(self) -> float:
        x = self._x
        nnz = x.nnz if self.sparse else np.count_nonzero(x)
        return nnz / max(x.shape[0] * x.shape[1], 1)

    @cached_property
    def binary(self) -> bool:
        """Presence / absence data: non-negative integers whose largest value is 1."""
        if self.empty or not self.nonnegative or not self.integer_valued:
            return False
        return float(self._data.max()) == 1.0

    @cached_property
    def histogram(self) -> bool:
        if self.sparse or self.empty or not self.nonnegative:
            return False
        lo, hi = np.inf, 0.0
        for r in _row_blocks(self._x):
            sums = np.asarray(self._x[r], dtype=np.float64).sum(axis=1)
            sums = sums[sums > 0]  # all-zero rows: absent samples, empty documents
            if sums.size:
                lo, hi = min(lo, float(sums.min())), max(hi, float(sums.max()))
        return is_histogram(lo, hi)

    def spread(self) -> float:
        return feature_scale_spread(self._x)


def is_histogram(lowest_row_sum: float, highest_row_sum: float) -> bool:
    """Every non-zero row sums to the same total (to 1e-6): normalised histograms, topic
    proportions, fixed-size counts, whose scale is shared by construction."""
    return highest_row_sum > 0 and highest_row_sum - lowest_row_sum <= 1e-6 * highest_row_sum


def _is_count(f: ViewFacts) -> bool:
    return not f.empty and f.nonnegative and f.integer_valued and (f.sparse or f.density < 0.5)


def is_count_view(x: View) -> bool:
    """Non-negative integer values, sparse or mostly zeros (density < 0.5): counts, words."""
    return _is_count(ViewFacts(x))


def _general(f: ViewFacts) -> str:
    if f.sparse:
        return "l2"
    if not f.nonnegative:
        return "zscore"
    if f.density < 0.5 or f.spread() <= SCALE_SPREAD_LIMIT:
        return "l2"
    return "zscore"


def _raw_counts(f: ViewFacts) -> str:
    return "none" if f.sparse or _is_count(f) else "zscore"


def _raw_text(f: ViewFacts) -> str:
    if f.sparse or (_is_count(f) and f.density < TEXT_DENSITY_LIMIT):
        return "none"
    return "l2" if f.histogram else "zscore"


def _tfidf_text(f: ViewFacts) -> str:
    if _is_count(f) and f.density < TEXT_DENSITY_LIMIT:
        return "tfidf"
    if f.sparse and f.nonnegative:
        return "l2"
    return _general(f)


def _sparse_real(f: ViewFacts) -> bool:
    """Dense non-negative real (not integer) features, mostly zeros: weights, not counts."""
    if f.sparse or f.empty or not f.nonnegative:
        return False
    return not f.integer_valued and f.density < 0.5


def _tfidf_text_real_minmax(f: ViewFacts) -> str:
    return "minmax" if _sparse_real(f) else _tfidf_text(f)


def _tfidf_text_binary_l2(f: ViewFacts) -> str:
    choice = _tfidf_text(f)
    return "l2" if choice == "tfidf" and f.binary else choice


def _is_text(f: ViewFacts) -> bool:
    """A bag of words: sparse and non-negative, or dense counts with density < 0.1."""
    return f.nonnegative and (f.sparse or (_is_count(f) and f.density < TEXT_DENSITY_LIMIT))


def _text_tfidf_zscore(f: ViewFacts) -> str:
    return "tfidf" if not f.empty and _is_text(f) else "zscore"


def _text_tfidf_zscore_binary_l2(f: ViewFacts) -> str:
    choice = _text_tfidf_zscore(f)
    return "l2" if choice == "tfidf" and f.binary else choice


#: rule name -> (chooser from the view's facts, one-line description shown to users)
AUTO_RULES = {
    "general": (_general, "l2 for counts/histograms/sparse, z-score for mixed-scale features"),
    "zscore": (lambda f: "zscore", "z-score every feature (the authors' mapstd)"),
    "raw_counts": (_raw_counts, "raw counts as stored, z-score for dense real features"),
    "raw_text": (
        _raw_text,
        "bags of words as stored, histograms to unit rows, z-score for other dense features",
    ),
    "tfidf_text": (_tfidf_text, "tf-idf for count views, l2 for sparse, else general"),
    "tfidf_text_real_minmax": (
        _tfidf_text_real_minmax,
        "tf-idf for count views, l2 for sparse, min-max for mostly-zero real features, "
        "else general",
    ),
    "tfidf_text_binary_l2": (
        _tfidf_text_binary_l2,
        "tf-idf for count views, l2 for 0/1 word presence and other sparse views, else general",
    ),
    "text_tfidf_zscore": (
        _text_tfidf_zscore,
        "tf-idf for bags of words, z-score every other feature",
    ),
    "text_tfidf_zscore_binary_l2": (
        _text_tfidf_zscore_binary_l2,
        "tf-idf for bags of word counts, l2 for 0/1 word presence, z-score every other feature",
    ),
}


def choose_auto_from_facts(facts: ViewFacts, rule: str = "general") -> str:
    """The method ``auto`` picks for a view with these facts under ``rule``."""
    if rule not in AUTO_RULES:
        raise DataError(f"unknown auto preprocessing rule {rule!r}; choose from {list(AUTO_RULES)}")
    return AUTO_RULES[rule][0](facts)


def choose_auto(x: View, rule: str = "general") -> str:
    """The method ``auto`` picks for one view under ``rule`` (see the module docstring)."""
    return choose_auto_from_facts(ViewFacts(x), rule)


def _row_norms(x: View) -> np.ndarray:
    """Euclidean row norms; rows whose squares overflow are measured scaled by their largest
    magnitude (no inf norm that would make the row zero)."""
    with np.errstate(over="ignore", invalid="ignore"):
        if sp.issparse(x):
            norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
        else:
            norms = np.sqrt(np.einsum("ij,ij->i", x, x))
    bad = np.flatnonzero(~np.isfinite(norms))
    for i in bad:  # rare: a damaged value of 1e+300
        row = x[i].toarray().ravel() if sp.issparse(x) else np.asarray(x[i], dtype=np.float64)
        top = float(np.abs(row).max())
        norms[i] = top * np.sqrt(np.sum(np.square(row / top))) if top > 0 else 0.0
    return norms


def _l2_rows(x: View) -> View:
    if sp.issparse(x):
        norms = _row_norms(x)
        return sp.csr_matrix(sp.diags(1.0 / np.maximum(norms, _TINY)) @ x)
    norms = np.maximum(_row_norms(x), _TINY)[:, None]
    if not spilling():
        return x / norms
    out = output_array(x.shape, np.result_type(x.dtype, norms.dtype))
    for rows in _row_blocks(x):
        np.divide(x[rows], norms[rows], out=out[rows])
    return out


#: dense column statistics and shift/scale go through row blocks of about this many bytes, so
#: a large view (a memory map of 4 GB in the solver child) gets one output copy and no
#: full-size temporaries; a view within one block takes exactly numpy's whole-array steps
BLOCK_BYTES = 64 << 20


def _row_blocks(x: np.ndarray):
    n = x.shape[0]
    step = int(max(1, BLOCK_BYTES // max(8 * int(np.prod(x.shape[1:], dtype=np.int64)), 1)))
    return (slice(a, min(n, a + step)) for a in range(0, n, step))


def _column_top(x: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """The largest magnitude of each column ``cols`` (1 where a column is all zero)."""
    top = np.abs(np.asarray(x[:, cols], dtype=np.float64)).max(axis=0)
    return np.where(top > 0, top, 1.0)


def _dense_mean(x: np.ndarray) -> np.ndarray:
    """Column means, accumulated in float64 (a float32 view is not copied to do so); a
    column whose sum overflows is averaged divided by its largest magnitude."""
    with np.errstate(over="ignore", invalid="ignore"):
        mean = x.mean(axis=0, dtype=np.float64) if x.dtype != np.float64 else x.mean(axis=0)
    bad = np.flatnonzero(~np.isfinite(mean))
    if bad.size:
        top = _column_top(x, bad)
        mean[bad] = (np.asarray(x[:, bad], dtype=np.float64) / top).mean(axis=0) * top
    return mean


def _dense_std(x: np.ndarray, ddof: int = 1) -> np.ndarray:
    """Column standard deviations by row blocks (numpy's two-pass formula, float64); a column
    whose squares overflow is measured divided by its largest magnitude."""
    n = x.shape[0]
    if n <= ddof:
        return np.zeros(x.shape[1])
    mean = _dense_mean(x)
    ss = np.zeros(x.shape[1])
    with np.errstate(over="ignore", invalid="ignore"):
        for rows in _row_blocks(x):
            dev = x[rows] - mean
            dev *= dev
            ss += dev.sum(axis=0)
    std = np.sqrt(ss / (n - ddof))
    bad = np.flatnonzero(~np.isfinite(std))
    if bad.size:
        top = _column_top(x, bad)
        part = np.asarray(x[:, bad], dtype=np.float64) / top
        std[bad] = part.std(axis=0, ddof=ddof) * top
    return std


def _sparse_std(x: sp.spmatrix) -> np.ndarray:
    n = x.shape[0]
    mean = np.asarray(x.mean(axis=0)).ravel()
    sq = np.asarray(x.multiply(x).mean(axis=0)).ravel()
    var = np.maximum(sq - mean**2, 0.0) * n / max(n - 1, 1)
    return np.sqrt(var)


def _column_std(x: View) -> np.ndarray:
    if not sp.issparse(x):
        return _dense_std(x, ddof=1)
    with np.errstate(over="ignore", invalid="ignore"):
        std = _sparse_std(x)
    bad = np.flatnonzero(~np.isfinite(std))
    if bad.size:  # squares that overflow: each such column measured divided by its top
        part = sp.csc_matrix(x)[:, bad]
        top = np.asarray(abs(part).max(axis=0).todense()).ravel()
        top = np.where(top > 0, top, 1.0)
        std[bad] = _sparse_std(sp.csr_matrix(part @ sp.diags(1.0 / top))) * top
    return std


def _inverse(scale: np.ndarray) -> np.ndarray:
    return np.where(scale > _TINY, 1.0 / np.where(scale > _TINY, scale, 1.0), 0.0)


def shift_scale(x: np.ndarray, shift: np.ndarray | None, scale: np.ndarray) -> np.ndarray:
    """``(x - shift) / scale`` per column (zero where ``scale`` is ~0), in row blocks.

    float32 views stay float32 (the statistics are float64, applied in float32, as numpy
    computed a float32 z-score before), written straight into one output copy of the view's
    own size: no temporaries. float64 views: ``(x - shift) * inv``, numpy's own steps."""
    dtype = x.dtype if x.dtype in (np.float32, np.float64) else np.dtype(np.float64)
    inv = _inverse(scale).astype(dtype, copy=False)
    shift = None if shift is None else np.asarray(shift).astype(dtype, copy=False)
    out = output_array(x.shape, dtype)  # on disk within core.data.spill.spill_outputs
    for rows in _row_blocks(x):
        part = out[rows]
        if shift is None:
            np.multiply(x[rows], inv, out=part)
        else:
            np.subtract(x[rows], shift, out=part)
            part *= inv
    return out


def _scale_columns(x: View, scale: np.ndarray) -> View:
    if sp.issparse(x):
        return sp.csr_matrix(x @ sp.diags(_inverse(scale)))
    return shift_scale(x, None, scale)


@dataclass(frozen=True, eq=False)
class ViewTransform:
    """One view's fitted preprocessing: what was chosen and the statistics learned, once, from
    the samples that have the view. Applied alike to the fitted data, row blocks of a streamed
    view, new samples (``mvc predict``) and reports; its :attr:`label` is derived from it.

    ``shift`` / ``scale``: ``(x - shift) / scale`` per column (zscore, minmax; no shift for a
    sparse view), ``top``: the divisor of ``maxscale``, ``idf``: tf-idf's inverse document
    frequencies, ``fitted_on``: how many samples the statistics come from."""

    kind: str
    auto: bool = False
    note: str = ""
    shift: np.ndarray | None = None
    scale: np.ndarray | None = None
    idf: np.ndarray | None = None
    top: float | None = None
    fitted_on: int = 0
    #: the view is multiplied by this power of 2 before the transform (1: not scaled): values
    #: too large for float64 arithmetic
    unit: float = 1.0

    @property
    def label(self) -> str:
        """``auto: zscore (unit variance, not centred: sparse view)`` and the like."""
        name = f"{self.kind} ({self.note})" if self.note else self.kind
        return f"auto: {name}" if self.auto else name

    def apply(self, x: View, keep: np.ndarray | None = None) -> View:
        """``x`` transformed with the fitted statistics (inputs are never modified). ``keep``
        (n bool): only those rows hold data; the others come out as zeros, never read."""
        if keep is not None and not np.all(keep):
            rows = np.flatnonzero(keep)
            return _place_rows(self.apply(x[rows]), rows, x.shape[0])
        if self.unit != 1.0:
            x = sp.csr_matrix(x * self.unit) if sp.issparse(x) else np.asarray(x) * self.unit
        kind = self.kind
        if kind == "none":
            return x
        if kind == "l2":
            return _l2_rows(x)
        if kind in ("zscore", "minmax"):
            if sp.issparse(x) or self.shift is None:
                return _scale_columns(x, self.scale)
            return shift_scale(np.asarray(x), self.shift, self.scale)
        if kind == "maxscale":
            return x.copy() if not self.top else _divide(x, self.top)
        return _tfidf_apply(x, self.idf)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The transform as named arrays (no pickle needed to read them back)."""
        out = {"kind": np.str_(self.kind), "auto": np.bool_(self.auto), "note": np.str_(self.note)}
        for key in ("shift", "scale", "idf"):
            if getattr(self, key) is not None:
                out[key] = np.asarray(getattr(self, key))
        if self.top is not None:
            out["top"] = np.float64(self.top)
        out["fitted_on"] = np.int64(self.fitted_on)
        if self.unit != 1.0:
            out["unit"] = np.float64(self.unit)
        return out

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> ViewTransform:
        shift = arrays.get("shift")
        if shift is not None and not np.any(shift):  # earlier files: zeros for a sparse view
            shift = None
        return cls(
            str(arrays["kind"]),
            bool(arrays.get("auto", False)),
            str(arrays.get("note", "")),
            shift,
            arrays.get("scale"),
            arrays.get("idf"),
            None if "top" not in arrays else float(arrays["top"]),
            int(arrays.get("fitted_on", 0)),
            float(arrays.get("unit", 1.0)),
        )


def _place_rows(y: View, rows: np.ndarray, n: int) -> View:
    """``y`` (one row per entry of ``rows``) as an n-row matrix, zeros elsewhere."""
    if sp.issparse(y):
        place = sp.csr_matrix((np.ones(rows.size), (rows, np.arange(rows.size))), (n, rows.size))
        return sp.csr_matrix(place @ y).astype(y.dtype, copy=False)
    full = np.zeros((n, y.shape[1]), dtype=y.dtype)
    full[rows] = y
    return full


def _divide(x: View, top: float) -> View:
    if sp.issparse(x) or not spilling():
        return x / top
    out = output_array(x.shape, (x[:1] / top).dtype)  # the dtype x / top has
    for rows in _row_blocks(x):
        np.divide(x[rows], top, out=out[rows])
    return out


def _tfidf_apply(x: View, idf: np.ndarray) -> View:
    if sp.issparse(x):
        tf = x.copy()
        tf.data = np.log1p(tf.data)
        return _l2_rows(sp.csr_matrix(tf @ sp.diags(idf)))
    return _l2_rows(np.log1p(x) * idf)


def _fit_kind(x: View, kind: str) -> ViewTransform:
    """The statistics of ``kind`` learned from an in-memory view."""
    n, d = x.shape
    if kind in ("none", "l2"):
        return ViewTransform(kind, fitted_on=n)
    if kind == "zscore":
        if sp.issparse(x):
            note = "unit variance, not centred: sparse view"
            return ViewTransform(kind, note=note, scale=_column_std(x), fitted_on=n)
        return ViewTransform(kind, shift=_dense_mean(x), scale=_column_std(x), fitted_on=n)
    if kind == "minmax":
        if sp.issparse(x):
            lo = np.minimum(x.min(axis=0).toarray().ravel(), 0.0)
            if np.any(lo < 0):
                amax = abs(x).max(axis=0).toarray().ravel()
                note = "max-abs scaling: sparse view with negatives"
                return ViewTransform(kind, note=note, scale=amax, fitted_on=n)
            return ViewTransform(kind, scale=x.max(axis=0).toarray().ravel(), fitted_on=n)
        lo, hi = x.min(axis=0), x.max(axis=0)
        return ViewTransform(kind, shift=lo, scale=hi - lo, fitted_on=n)
    if kind == "maxscale":
        data = x.data if sp.issparse(x) else x
        top = float(data.max()) if data.size else 0.0
        if top <= 0:
            top = float(np.abs(data).max()) if data.size else 0.0
        note = "" if top else "all-zero view left unchanged"
        return ViewTransform(kind, note=note, top=top, fitted_on=n)
    # tfidf
    data = x.data if sp.issparse(x) else x
    if data.size and data.min() < 0:
        raise DataError("tf-idf needs non-negative counts; this view has negative values")
    df = np.bincount(x.indices, minlength=d) if sp.issparse(x) else np.count_nonzero(x, axis=0)
    return ViewTransform(kind, idf=inverse_document_frequency(n, df), fitted_on=n)


def inverse_document_frequency(n: int, df: np.ndarray) -> np.ndarray:
    """log(n / df) per column; refuses a view it would turn into zeros (every feature it has
    occurs in every sample: dense features, not words), which a method would otherwise meet
    as a constant view with no word of why."""
    idf = np.log(n / np.maximum(df, 1))
    if n > 1 and np.any(df > 0) and not np.any(idf[df > 0] > 0):
        raise DataError(
            "tf-idf would turn this view into zeros: each of its features occurs in every "
            "sample (inverse document frequency 0), so it is not a bag of words; use l2, "
            "zscore or minmax for it"
        )
    return idf


def fit_view(x: View, method: str, auto_rule: str = "general") -> ViewTransform:
    """The transform ``method`` fits on the in-memory view ``x`` (``auto`` chooses by
    ``auto_rule``, a method's declared rule)."""
    if method not in PREPROCESSORS:
        raise DataError(f"unknown preprocessing {method!r}; choose from {PREPROCESSORS}")
    if method == "auto":
        return replace(_fit_checked(x, choose_auto(x, auto_rule)), auto=True)
    return _fit_checked(x, method)


def _largest(x: View) -> float:
    data = x.data if sp.issparse(x) else x
    if data.size == 0:
        return 0.0
    return float(max(abs(float(data.max())), abs(float(data.min()))))


def _finite_fit(t: ViewTransform) -> bool:
    parts = [t.shift, t.scale, t.idf, None if t.top is None else np.asarray(t.top)]
    return all(p is None or bool(np.all(np.isfinite(p))) for p in parts)


def _fit_checked(x: View, kind: str) -> ViewTransform:
    """:func:`_fit_kind`, with values too large for float64 arithmetic said (in the label)
    and handled: column statistics and row norms are computed rescaled where they overflow,
    and a transform whose statistics still do (``minmax`` over a range beyond 1.8e308) is
    fitted on the view scaled by a power of 2; ``none`` refuses such a view (every method
    squares the values)."""
    top = _largest(x)
    dtype = np.dtype(x.dtype)
    huge = top > HUGE.get(dtype, HUGE[np.dtype(np.float64)])
    if kind == "none":
        if huge:
            raise DataError(
                f"values up to {top:.3g}: too large to compute with (their squares overflow "
                f"{dtype.name}); rescale the view, or preprocess it (zscore, l2, minmax or "
                "maxscale scale it down)"
            )
        return _fit_kind(x, kind)
    overflowed: list[str] = []
    with np.errstate(over="call", invalid="call", call=lambda e, f: overflowed.append(e)):
        t = _fit_kind(x, kind)
    note = f"values up to {top:.3g}, too large to square in {dtype.name}: computed rescaled"
    if (overflowed or not _finite_fit(t)) and top > 0:
        unit = 2.0 ** -int(np.ceil(np.log2(top)))
        with np.errstate(over="ignore", invalid="ignore"):
            scaled = sp.csr_matrix(x * unit) if sp.issparse(x) else np.asarray(x) * unit
            t = replace(_fit_kind(scaled, kind), unit=unit)
        note += f" (the view scaled by 2^{int(np.log2(unit))})"
    elif not huge:
        return t
    return replace(t, note=f"{t.note}; {note}" if t.note else note)


def preprocess_view(x: View, method: str, auto_rule: str = "general") -> tuple[View, str]:
    """Apply one method to one view; returns the new view and the label of what was done."""
    t = fit_view(x, method, auto_rule)
    return t.apply(x), t.label


def per_view_methods(methods: str | Sequence[str], n_views: int) -> list[str]:
    if isinstance(methods, str):
        return [methods] * n_views
    if len(methods) != n_views:
        raise DataError(f"{len(methods)} preprocessing choices for {n_views} views")
    return list(methods)


def transform_views(
    views: Sequence[View],
    methods: str | Sequence[str],
    auto_rule: str = "general",
    observed: np.ndarray | None = None,
) -> tuple[list[View], list[ViewTransform]]:
    """Fit and apply one transform per view; ``methods``: one name for all views or one per
    view. With ``observed`` (n x V) each view's statistics and ``auto`` choice come from the
    samples that have it, and the rows of the others are zero, never read.

    Filling missing rows first would not do: a mean fill keeps the z-score means but shrinks
    every deviation by sqrt(n_v / n), i.e. scales a view up the more samples miss it, which
    unbalances the methods that add the views' reconstruction errors (ALPC on BDGP_fea: ACC
    0.28 against 0.38), and it makes sparse rows dense (tf-idf counts them as documents)."""
    methods = per_view_methods(methods, len(views))
    out: list[View] = []
    fitted: list[ViewTransform] = []
    for v, (x, method) in enumerate(zip(views, methods, strict=True)):
        keep = None if observed is None else np.asarray(observed[:, v], dtype=bool)
        try:
            t = fit_view(x if keep is None else x[np.flatnonzero(keep)], method, auto_rule)
        except DataError as exc:  # which view: a file has several
            raise DataError(f"view {v + 1}: {exc}") from exc
        out.append(t.apply(x, keep))
        fitted.append(t)
    return out, fitted


def preprocess(
    views: Sequence[View], methods: str | Sequence[str], auto_rule: str = "general"
) -> tuple[list[View], list[str]]:
    """Preprocess each view (``transform_views`` without the transforms): the new views and
    the label of what was done to each."""
    out, fitted = transform_views(views, methods, auto_rule)
    return out, [t.label for t in fitted]
