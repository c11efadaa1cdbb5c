"""What ``mvc predict`` needs from a run, stored beside its JSON record.

``run.json`` gets a sibling ``run.predict.npz`` with the fitted transform of each view used
(``core.data.preprocessing.ViewTransform``), which views of the data the run used, and the
reference points with their clusters that new samples are tied to
(``core.numerics.assign.AnchorAssigner``). Written atomically; read back without pickle.
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from core.data.atomic import atomic_write
from core.data.dataset import DataError, MultiViewDataset, View
from core.data.preprocessing import ViewTransform
from core.numerics.assign import AnchorAssigner

__all__ = [
    "PredictionModel",
    "predict_dataset",
    "prediction_path",
    "read_prediction",
    "write_prediction",
]

FORMAT = "mvc-studio-predict/1"
#: new samples are assigned this many rows at a time (bounded memory for any n)
PREDICT_ROWS = 16384


def prediction_path(run_json: str | os.PathLike[str]) -> Path:
    """``run.predict.npz`` beside ``run.json``."""
    p = Path(run_json)
    return p.with_name(p.stem + ".predict.npz")


@dataclass
class PredictionModel:
    """Everything needed to assign new samples: which views of the data the run used, their
    feature counts, their fitted transforms and the reference points."""

    view_indices: list[int]
    dims: list[int]
    transforms: list[ViewTransform]
    assigner: AnchorAssigner

    @classmethod
    def from_solver(
        cls,
        solver: Any,
        raw_views: Sequence[View],
        transforms: Sequence[ViewTransform],
        view_indices: Sequence[int],
    ) -> PredictionModel:
        """From a fitted solver; ``raw_views`` are the views before their ``transforms``."""
        assigner = getattr(solver, "assigner_", None)
        if assigner is None:
            raise DataError(f"this {type(solver).__name__} run keeps no reference points")
        return cls(
            [int(i) for i in view_indices],
            [int(x.shape[1]) for x in raw_views],
            list(transforms),
            assigner,
        )

    def predict(self, ds: MultiViewDataset) -> np.ndarray:
        """Clusters of the samples of ``ds`` (same views and features as the run's data);
        a sample missing a view votes through the views it has. Read in row blocks, so new
        data read from disk in blocks (a streamed file) is never held whole."""
        idx = self.view_indices
        where = ds.source or ds.name
        if max(idx) >= ds.n_views:
            raise DataError(f"the run used {max(idx) + 1} views; {where} has {ds.n_views}")
        for v, i in enumerate(idx):
            d = ds.views[i].shape[1]
            if d != self.dims[v]:
                raise DataError(
                    f"view {i + 1} ({ds.view_names[i]!r}) of {where} has "
                    f"{d} features; the run was fitted on {self.dims[v]}"
                )
        observed = None if ds.observed is None else ds.observed[:, idx]
        n, out = ds.n_samples, []
        for a in range(0, n, PREDICT_ROWS):
            rows = slice(a, min(n, a + PREDICT_ROWS))
            seen = None if observed is None else observed[rows]
            views = [
                t.apply(ds.views[i][rows], None if seen is None else seen[:, v])
                for v, (i, t) in enumerate(zip(idx, self.transforms, strict=True))
            ]
            out.append(self.assigner.predict(views, seen))
        return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


def write_prediction(run_json: str | os.PathLike[str], model: PredictionModel) -> Path:
    """Store ``model`` as ``run.predict.npz`` beside ``run_json`` (atomically)."""
    arrays: dict[str, np.ndarray] = {"format": np.str_(FORMAT)}
    arrays["view_indices"] = np.asarray(model.view_indices, dtype=np.int64)
    arrays["dims"] = np.asarray(model.dims, dtype=np.int64)
    for v, transform in enumerate(model.transforms):
        for key, val in transform.to_arrays().items():
            arrays[f"pre{v}_{key}"] = np.asarray(val)
    arrays.update({f"ref_{k}": v for k, v in model.assigner.to_arrays().items()})
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    return atomic_write(prediction_path(run_json), buf.getvalue())


def read_prediction(run_json: str | os.PathLike[str]) -> PredictionModel:
    path = prediction_path(run_json)
    if not path.exists():
        raise DataError(
            f"{path} not found: write the run with `mvc run ... --report {Path(run_json).name}` "
            "(it stores what prediction needs beside the record)"
        )
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    if str(arrays.get("format")) != FORMAT:
        raise DataError(f"{path} is not an MVC Studio prediction file")
    n_views = int(arrays["dims"].size)
    transforms = [
        ViewTransform.from_arrays(
            {k.split("_", 1)[1]: val for k, val in arrays.items() if k.startswith(f"pre{v}_")}
        )
        for v in range(n_views)
    ]
    ref = {k[4:]: val for k, val in arrays.items() if k.startswith("ref_")}
    return PredictionModel(
        [int(i) for i in arrays["view_indices"]],
        [int(d) for d in arrays["dims"]],
        transforms,
        AnchorAssigner.from_arrays(ref),
    )


def predict_dataset(run_json: str | os.PathLike[str], ds: MultiViewDataset) -> np.ndarray:
    """Clusters of the samples of ``ds`` under the run recorded at ``run_json``."""
    return read_prediction(run_json).predict(ds)
