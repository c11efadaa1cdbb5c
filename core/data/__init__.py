"""Layer 1, data: the multi-view dataset, reading files, preprocessing, the demo datasets.

May import: nothing else of ``core`` (it is the bottom layer).
"""

from core.data.dataset import DataError, MultiViewDataset, View
from core.data.io import load_dataset
from core.data.preprocessing import preprocess

__all__ = ["DataError", "MultiViewDataset", "View", "load_dataset", "preprocess"]
