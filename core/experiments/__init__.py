"""Layer 5, experiments: many runs at once, and comparisons between runs.

``batch`` (independent runs through joblib, streaming, cancel), ``sweep`` (parameter grids),
``robustness`` (noise on chosen views), ``compare`` (agreement between two runs).

May import: ``core.data``, ``core.numerics``, ``core.methods``, ``core.records``.
"""
