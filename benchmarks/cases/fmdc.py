"""FMDC quality cases: the FMDC paper's datasets that are here, plus the common benchmarks."""

CASES = [
    {
        "dataset": "BBCSport.mat",
        "paper": {"acc": 0.7657, "nmi": 0.7657, "purity": 0.7714},
        "note": "paper: mean of 10 runs, m=128 (its NMI is probably a copy error)",
    },
    {
        "dataset": "WebKB.mat",
        "paper": {"acc": 0.9657, "nmi": 0.7259, "purity": 0.9657},
        "note": "paper: mean of 10 runs, m=128",
    },
    {"dataset": "Handwritten.mat", "note": "not in the FMDC paper"},
    {"dataset": "MNIST-4.mat", "note": "paper's MNIST is a 10k/10-class variant (0.7389)"},
    {"dataset": "MSRC-v1_5view.mat", "note": "not in the FMDC paper"},
    {"dataset": "Hdigit.mat", "note": "not in the FMDC paper; m=1024 (n >= 5000)"},
]

SCALE_PARAMS = {"n_anchors": 1024, "n_neighbors": 15}
