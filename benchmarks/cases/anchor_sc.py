"""Baseline: anchor spectral clustering on one view at a time (what each view knows alone)."""

_VIEWS = {
    "BBCSport.mat": 2,
    "WebKB.mat": 2,
    "Handwritten.mat": 6,
    "MNIST-4.mat": 3,
    "MSRC-v1_5view.mat": 5,
    "Hdigit.mat": 2,
}

CASES = [
    {"dataset": name, "label": f"{name} view {v}", "params": {"view": v}, "note": "baseline"}
    for name, count in _VIEWS.items()
    for v in range(1, count + 1)
]
SCALE_PARAMS = {"n_anchors": 1024}
