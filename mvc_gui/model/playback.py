"""Recorded per-iteration snapshots of a run, and the frame shown at a playback position.

Qt-free. :class:`SnapshotRecorder` lives in :class:`~mvc_gui.model.run_history.RunHistory` and
records one :class:`Snapshot` per optimisation iteration (stage ``"iterating"``) and one for the
final state: iteration, stage, objective, view weights, metrics and the solver's secondary
scalars (``extras``). Labels and heat maps are large, so they are stored apart:

* labels only when they differ from the previously stored labelling, in the smallest integer
  dtype that holds them (``uint8`` up to 256 clusters: 100 kB at n = 100,000);
* heat-map images only when the worker produced one (at most every 0.5 s, see
  :class:`~mvc_gui.model.run_history.FrameBuilder`).

Both stores are capped (:data:`LABEL_LIMITS`, :data:`HEAT_LIMITS`: a number of entries and a
byte budget). Past the cap every second stored entry is dropped, keeping the first and the
newest, so what remains stays evenly spread over the run; a snapshot whose labels were dropped
is shown with the nearest earlier stored labelling, and the frame says so. A 100,000-sample run
with 100 iterations whose labels change every time therefore keeps all 100 labellings (10 MB);
with 10,000 iterations it keeps between 128 and 256 of them. The snapshots themselves hold only
scalars and the V view weights (under 1 kB each).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "HEAT_LIMITS",
    "LABEL_LIMITS",
    "SPEEDS",
    "PlaybackFrame",
    "Snapshot",
    "SnapshotRecorder",
    "ThinnedStore",
    "compact_labels",
    "playback_frame",
]

LABEL_LIMITS = (256, 64 << 20)  # at most 256 labellings and 64 MB
HEAT_LIMITS = (32, 32 << 20)  # at most 32 heat-map images and 32 MB
#: playback speeds: label -> milliseconds per snapshot
SPEEDS = {"0.5x": 1000, "1x": 500, "2x": 250, "4x": 120, "8x": 60}


@dataclass(frozen=True)
class Snapshot:
    """One recorded state (no large arrays: labels and heat maps are looked up by index)."""

    index: int
    iteration: int
    stage: str
    objective: float | None
    view_weights: np.ndarray | None
    metrics: dict[str, float]
    extras: dict[str, float]
    message: str = ""
    elapsed: float = 0.0
    final: bool = False
    labels_version: int = -1  # index of the snapshot that first had these labels (-1: none)


def compact_labels(labels: np.ndarray) -> np.ndarray:
    """The labels in the smallest integer dtype that holds them (a copy)."""
    labels = np.asarray(labels)
    if labels.size == 0:
        return labels.astype(np.uint8)
    lo, hi = int(labels.min()), int(labels.max())
    kinds = (np.uint8, np.uint16, np.uint32) if lo >= 0 else (np.int8, np.int16, np.int32)
    for dtype in kinds:
        if np.iinfo(dtype).min <= lo and hi <= np.iinfo(dtype).max:
            return labels.astype(dtype)
    return labels.astype(np.int64)


class ThinnedStore:
    """Values keyed by increasing ints, capped in count and bytes by even thinning.

    Entries are numbered in arrival order; with stride s only entries whose number is a
    multiple of s are kept, plus the newest. Past a cap s doubles, so the kept entries stay
    evenly spread over the whole run (the first one always stays).
    """

    def __init__(self, max_items: int, max_bytes: int) -> None:
        self.max_items = max(int(max_items), 2)
        self.max_bytes = int(max_bytes)
        self.keys: list[int] = []
        self.stride = 1
        self.nbytes = 0
        self.dropped = 0
        self._values: dict[int, Any] = {}
        self._sizes: dict[int, int] = {}
        self._order: dict[int, int] = {}  # key -> arrival number
        self._arrivals = 0

    def __len__(self) -> int:
        return len(self.keys)

    def __contains__(self, key: int) -> bool:
        return key in self._values

    def add(self, key: int, value: Any, nbytes: int) -> None:
        """Store ``value`` under ``key``; the newest key again replaces its value."""
        if self.keys and key == self.keys[-1]:
            self.nbytes += int(nbytes) - self._sizes[key]
            self._values[key], self._sizes[key] = value, int(nbytes)
        else:
            if self.keys and key < self.keys[-1]:
                raise ValueError(f"keys must increase: {key} after {self.keys[-1]}")
            if self.keys and self._order[self.keys[-1]] % self.stride:
                self._drop(self.keys.pop())  # kept only while it was the newest
            self.keys.append(key)
            self._values[key], self._sizes[key] = value, int(nbytes)
            self._order[key] = self._arrivals
            self._arrivals += 1
            self.nbytes += int(nbytes)
        while len(self.keys) > 2 and (
            len(self.keys) > self.max_items or self.nbytes > self.max_bytes
        ):
            self.stride *= 2
            newest = self.keys[-1]
            keep = [k for k in self.keys[:-1] if self._order[k] % self.stride == 0]
            for k in set(self.keys[:-1]) - set(keep):
                self._drop(k)
            self.keys = [*keep, newest]

    def _drop(self, key: int) -> None:
        del self._values[key], self._order[key]
        self.nbytes -= self._sizes.pop(key)
        self.dropped += 1

    def at_or_before(self, key: int) -> tuple[int, Any] | None:
        """The stored entry with the largest key <= ``key`` (None if there is none)."""
        pos = bisect_right(self.keys, key) - 1
        if pos < 0:
            return None
        k = self.keys[pos]
        return k, self._values[k]


class SnapshotRecorder:
    """Per-iteration snapshots of one run; fed every frame by ``RunHistory.add``."""

    def __init__(
        self, label_limits: tuple[int, int] = LABEL_LIMITS, heat_limits=HEAT_LIMITS
    ) -> None:
        self.snapshots: list[Snapshot] = []
        self.labels = ThinnedStore(*label_limits)
        self.heats = ThinnedStore(*heat_limits)
        self._last_labels: np.ndarray | None = None
        self._version = -1

    def __len__(self) -> int:
        return len(self.snapshots)

    def __getitem__(self, index: int) -> Snapshot:
        return self.snapshots[index]

    def __iter__(self):
        return iter(self.snapshots)

    def record(self, frame: Any) -> Snapshot | None:
        """Record ``frame`` (a :class:`~mvc_gui.model.run_history.Frame`) if it is an iteration or
        final."""
        st = frame.state
        index = len(self.snapshots)
        same = self._last_labels is not None and (
            frame.labels_changed is False  # the worker compared them already
            if getattr(frame, "labels_changed", None) is not None
            else np.array_equal(frame.labels, self._last_labels)
        )
        if frame.labels is not None and not same:
            # labels may arrive before the first iteration: they then belong to snapshot 0
            compact = compact_labels(frame.labels)
            self.labels.add(index, compact, compact.nbytes)
            self._last_labels, self._version = compact, index
        if frame.heat is not None:  # one made before this snapshot belongs to it
            self.heats.add(index, frame.heat, frame.heat.image.nbytes)
        if not (st.stage == "iterating" or st.final):
            return None
        w = st.view_weights
        snap = Snapshot(
            index=index,
            iteration=int(st.iteration),
            stage=st.stage,
            objective=None if st.objective is None else float(st.objective),
            view_weights=None if w is None else np.array(w, dtype=np.float64),
            metrics={k: float(v) for k, v in (frame.metrics or {}).items()},
            extras={k: float(v) for k, v in dict(st.extras or {}).items()},
            message=st.message,
            elapsed=float(st.elapsed),
            final=bool(st.final),
            labels_version=self._version,
        )
        self.snapshots.append(snap)
        return snap

    def labels_at(self, index: int) -> tuple[np.ndarray | None, int, bool]:
        """(labels as int64, index of the snapshot they come from, exact?) for ``index``."""
        version = self.snapshots[index].labels_version
        if version < 0:
            return None, -1, True
        found = self.labels.at_or_before(version)
        if found is None:
            return None, -1, False
        key, labels = found
        return labels.astype(np.int64), key, key == version

    def heat_at(self, index: int) -> Any:
        """The newest heat map recorded at or before snapshot ``index`` (or None)."""
        found = self.heats.at_or_before(index)
        return None if found is None else found[1]


@dataclass
class PlaybackFrame:
    """Everything the plots show at one playback position."""

    snapshot: Snapshot
    count: int
    labels: np.ndarray | None
    labels_from: int
    labels_exact: bool
    heat: Any
    objective_x: np.ndarray
    objective_y: np.ndarray
    marker: tuple[float, float] | None
    metric_x: np.ndarray
    metrics: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def caption(self) -> str:
        s = self.snapshot
        where = "final state" if s.final else f"iteration {s.iteration}"
        text = f"{where} (snapshot {s.index + 1} of {self.count})"
        if self.labels is not None and not self.labels_exact:
            text += f"; labels of snapshot {self.labels_from + 1} (thinned)"
        return text


def playback_frame(
    recorder: SnapshotRecorder, index: int, metric_names: tuple[str, ...] = ("acc", "nmi", "ari")
) -> PlaybackFrame:
    """The frame for slider position ``index`` (clamped to the recorded range).

    The objective and metric curves run up to that snapshot; the marker sits on its
    objective (for the final snapshot, on the last point of the curve).
    """
    n = len(recorder)
    if n == 0:
        raise IndexError("no snapshots recorded")
    index = min(max(int(index), 0), n - 1)
    upto = recorder.snapshots[: index + 1]
    snap = upto[-1]
    points = [(s.iteration, s.objective) for s in upto if s.stage == "iterating"]
    points = [p for p in points if p[1] is not None]
    if not points and snap.objective is not None:
        points = [(snap.iteration, snap.objective)]
    ox = np.array([p[0] for p in points], dtype=float)
    oy = np.array([p[1] for p in points], dtype=float)
    if snap.stage == "iterating" and snap.objective is not None:
        marker: tuple[float, float] | None = (float(snap.iteration), snap.objective)
    else:
        marker = (float(ox[-1]), float(oy[-1])) if ox.size else None
    scored = [s for s in upto if s.stage == "iterating" and s.metrics]
    mx = np.array([s.iteration for s in scored], dtype=float)
    metrics = {k: np.array([s.metrics.get(k, np.nan) for s in scored]) for k in metric_names}
    labels, source, exact = recorder.labels_at(index)
    return PlaybackFrame(
        snapshot=snap,
        count=n,
        labels=labels,
        labels_from=source,
        labels_exact=exact,
        heat=recorder.heat_at(index),
        objective_x=ox,
        objective_y=oy,
        marker=marker,
        metric_x=mx,
        metrics=metrics,
    )
