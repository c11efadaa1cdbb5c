"""MVC Studio desktop GUI (PySide6 + pyqtgraph). The only package that imports Qt.

Qt-free parts, testable without a display: ``state`` (run history, frames, label alignment),
``session`` (the loaded dataset and its view selection/preprocessing), ``display``
(heat-map and confusion aggregations) and ``palette``.
"""

__all__: list[str] = []
