"""Baseline: k-means on the concatenated (preprocessed) views, on FMDC's datasets."""

from cases.fmdc import CASES as _FMDC_CASES

CASES = [{"dataset": c["dataset"], "note": "baseline"} for c in _FMDC_CASES]
SCALE_PARAMS = {"n_init": 1}
