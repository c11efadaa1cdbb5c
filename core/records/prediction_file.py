"""What ``mvc predict`` needs from a run, stored beside its JSON record.

``run.json`` gets a sibling ``run.predict.npz`` with the preprocessing statistics of each
view used (``core.data.preprocess_stats``), which views of the file the run used, and the
reference points with their clusters that new samples are tied to
(``core.numerics.assign.AnchorAssigner``). Written atomically; read back without pickle.
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from core.data.atomic import atomic_write
from core.data.dataset import DataError, MultiViewDataset, View
from core.data.preprocess_stats import apply_stats, fit_stats
from core.numerics.assign import AnchorAssigner

__all__ = ["predict_dataset", "prediction_path", "read_prediction", "write_prediction"]

FORMAT = "mvc-studio-predict/1"


def prediction_path(run_json: str | os.PathLike[str]) -> Path:
    """``run.predict.npz`` beside ``run.json``."""
    p = Path(run_json)
    return p.with_name(p.stem + ".predict.npz")


def write_prediction(
    run_json: str | os.PathLike[str],
    solver: Any,
    raw_views: Sequence[View],
    chosen: Sequence[str],
    view_indices: Sequence[int],
) -> Path:
    """Store what predicting needs; ``raw_views`` are the views before preprocessing."""
    assigner = getattr(solver, "assigner_", None)
    if assigner is None:
        raise DataError("this run cannot assign new samples (fitted on incomplete views?)")
    arrays: dict[str, np.ndarray] = {"format": np.str_(FORMAT)}
    arrays["view_indices"] = np.asarray(view_indices, dtype=np.int64)
    arrays["dims"] = np.asarray([x.shape[1] for x in raw_views], dtype=np.int64)
    for v, (x, name) in enumerate(zip(raw_views, chosen, strict=True)):
        for key, val in fit_stats(x, name).items():
            arrays[f"pre{v}_{key}"] = np.asarray(val)
    arrays.update({f"ref_{k}": v for k, v in assigner.to_arrays().items()})
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    return atomic_write(prediction_path(run_json), buf.getvalue())


def read_prediction(run_json: str | os.PathLike[str]) -> dict[str, Any]:
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
    stats = [
        {k.split("_", 1)[1]: v for k, v in arrays.items() if k.startswith(f"pre{v_}_")}
        for v_ in range(n_views)
    ]
    ref = {k[4:]: v for k, v in arrays.items() if k.startswith("ref_")}
    return {
        "view_indices": [int(i) for i in arrays["view_indices"]],
        "dims": [int(d) for d in arrays["dims"]],
        "stats": stats,
        "assigner": AnchorAssigner.from_arrays(ref),
    }


def predict_dataset(run_json: str | os.PathLike[str], ds: MultiViewDataset) -> np.ndarray:
    """Clusters of the samples of ``ds`` (same views and features as the run's file)."""
    model = read_prediction(run_json)
    idx = model["view_indices"]
    if max(idx) >= ds.n_views:
        raise DataError(
            f"the run used view {max(idx) + 1}; {ds.source or ds.name} has {ds.n_views}"
        )
    views = []
    for v, i in enumerate(idx):
        x = ds.views[i]
        if x.shape[1] != model["dims"][v]:
            raise DataError(
                f"view {i + 1} ({ds.view_names[i]!r}) of {ds.source or ds.name} has "
                f"{x.shape[1]} features; the run was fitted on {model['dims'][v]}"
            )
        views.append(apply_stats(x, model["stats"][v]))
    return model["assigner"].predict(views)
