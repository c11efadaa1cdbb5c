"""MVC Studio core: data, preprocessing, anchor graphs, metrics and the five solvers.

Qt-free by design: numpy, scipy, numba and scikit-learn only.
"""

from core import _numba  # noqa: F401  (sets the numba cache dir and threading layer first)

__version__ = "0.1.0"
