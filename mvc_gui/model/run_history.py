"""Run history and the frames a solver worker produces (Qt-free).

A :class:`Frame` is built in the worker thread by :class:`FrameBuilder`: it carries the
solver's :class:`~core.methods.base.IterationState`, labels aligned to the previous frame
(so a cluster keeps its colour from one iteration to the next), metrics against the true
labels when known, and a heat-map image when the anchor graph or the labels changed. It also
carries what the panels show of the labels, counted where the run runs (the solver child):
whether they changed since the previous frame, the cluster sizes and the classes x clusters
counts, so the window never passes over a million labels per frame.
:class:`RunHistory` collects frames of one run (identified by its run id) in the GUI thread.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from core.numerics.metrics import all_metrics
from mvc_gui.model.aggregations import HeatMap, heatmap_image
from mvc_gui.model.playback import SnapshotRecorder

__all__ = ["Frame", "FrameBuilder", "RunHistory", "align_labels", "label_counts"]

LIVE_METRICS = ("acc", "nmi", "ari")


def align_labels(previous: np.ndarray | None, labels: np.ndarray) -> np.ndarray:
    """Relabel ``labels`` so clusters overlap most with ``previous`` (a permutation only)."""
    labels = np.asarray(labels, dtype=np.int64)
    if previous is None or previous.size != labels.size or labels.size == 0:
        return labels
    k = int(max(labels.max(), previous.max())) + 1
    counts = np.bincount(labels * k + previous, minlength=k * k).reshape(k, k)
    rows, cols = linear_sum_assignment(-counts)
    mapping = np.arange(k)
    mapping[rows] = cols
    return mapping[labels]


@dataclass
class Frame:
    run_id: int
    state: Any  # IterationState
    labels: np.ndarray | None = None
    metrics: dict[str, float] = field(default_factory=dict)
    heat: HeatMap | None = None
    #: False: the same labels as the previous frame; None: not known (compare them)
    labels_changed: bool | None = None
    #: samples per cluster (``labels``' bincount) when the labels changed
    counts: np.ndarray | None = None
    #: true class x cluster counts (rows: the true label codes) when the labels changed
    truth_counts: np.ndarray | None = None


class FrameBuilder:
    """Turns states into frames in the worker thread (metrics, alignment, heat map)."""

    def __init__(self, run_id: int, true_labels: np.ndarray | None, heat_every: float = 0.5):
        self.run_id = run_id
        self.true_labels = true_labels
        self.heat_every = heat_every
        self._labels: np.ndarray | None = None
        self._graph = None
        self._heat_at = -np.inf
        self._heat_dirty = False

    def build(self, state: Any) -> Frame:
        labels, changed, counts, table = None, None, None, None
        if state.labels is not None:
            labels = align_labels(self._labels, state.labels)
            changed = self._labels is None or not np.array_equal(labels, self._labels)
            self._heat_dirty |= changed
            self._labels = labels
            if changed:
                counts, table = label_counts(labels, self.true_labels)
        metrics: dict[str, float] = {}
        if labels is not None and self.true_labels is not None:
            metrics = all_metrics(self.true_labels, labels)
        if state.anchor_graph is not None:
            self._graph = state.anchor_graph
            self._heat_dirty = True
        heat = None
        now = time.perf_counter()
        due = state.final or now - self._heat_at >= self.heat_every
        if self._graph is not None and self._heat_dirty and due:
            heat = heatmap_image(self._graph, self._labels)
            self._heat_at, self._heat_dirty = now, False
        return Frame(self.run_id, state, labels, metrics, heat, changed, counts, table)


def label_counts(
    labels: np.ndarray, truth: np.ndarray | None
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Samples per cluster, and true class x cluster counts (None without small non-negative
    integer true labels of the same length)."""
    if labels.size == 0 or labels.min() < 0:
        return None, None
    k = int(labels.max()) + 1
    counts = np.bincount(labels, minlength=k)
    if truth is None or truth.shape != labels.shape or truth.dtype.kind not in "iu":
        return counts, None
    if truth.size == 0 or truth.min() < 0:
        return counts, None
    c = int(truth.max()) + 1
    table = np.bincount(truth.astype(np.int64) * k + labels, minlength=c * k).reshape(c, k)
    return counts, table


class RunHistory:
    """Everything the plots need about one run, filled in the GUI thread."""

    def __init__(self, run_id: int, method: str, params: dict[str, Any]) -> None:
        self.run_id = run_id
        self.method = method
        self.params = dict(params)
        self.iterations: list[int] = []
        self.objective: list[float] = []
        self.metric_iterations: list[int] = []
        self.metrics: dict[str, list[float]] = {k: [] for k in LIVE_METRICS}
        self.last: Frame | None = None
        self.labels: np.ndarray | None = None  # renumbered for steady colours: display only
        self.solver_labels: np.ndarray | None = None  # the solver's own numbers: exports
        self.heat: HeatMap | None = None
        #: counts every change of ``labels``: a panel redraws the labels only when it moved
        self.labels_version = 0
        self.counts: np.ndarray | None = None  # samples per cluster of ``labels``
        self.label_metrics: dict[str, float] = {}  # the scores of ``labels``
        self.truth_counts: np.ndarray | None = None  # true class x cluster counts of ``labels``
        self.extras: dict[str, float] = {}  # the latest state's secondary scalars
        self.final: Frame | None = None
        #: the reference labels the frames were scored and counted against (set at the start)
        self.truth: np.ndarray | None = None
        self.result: Any = None  # a core.records.runs.RunResult once finished or stopped
        self.prediction: Any = None  # core.records.prediction_file.PredictionModel, if any
        # per-iteration states for teaching playback (labels/heat maps capped: playback.py)
        self.snapshots = SnapshotRecorder()

    def add(self, frame: Frame) -> None:
        st = frame.state
        first = st.final and not self.iterations
        if st.objective is not None and (st.stage == "iterating" or first):
            self.iterations.append(st.iteration)
            self.objective.append(float(st.objective))
        if frame.metrics and st.stage == "iterating":
            self.metric_iterations.append(st.iteration)
            for k in LIVE_METRICS:
                self.metrics[k].append(float(frame.metrics.get(k, np.nan)))
        if frame.labels is not None:
            if frame.labels_changed is not False or self.labels is None:
                self.labels_version += 1
                self.counts, self.truth_counts = frame.counts, frame.truth_counts
            self.labels = frame.labels
            self.label_metrics = frame.metrics
            self.solver_labels = np.asarray(st.labels, dtype=np.int64)
        if frame.heat is not None:
            self.heat = frame.heat
        if st.extras:
            self.extras = dict(st.extras)
        self.last = frame
        self.snapshots.record(frame)
        if st.final:
            self.final = frame
