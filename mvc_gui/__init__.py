"""MVC Studio desktop GUI (PySide6 + pyqtgraph). The only package that imports Qt.

Folders by role, each importing only the ones listed before it (``tests/test_layering.py``):

* ``model/``: Qt-free logic, testable without a display: run history and frames, heat-map
  and confusion aggregations, playback, the solver run loop and its pause/step control, the
  loaded data and its choices, colours, teaching texts.
* ``run/``: where work happens off the GUI thread: the run controller, worker threads, the
  solver and t-SNE child processes, the experiment worker.
* ``plots/``, ``panels/``: the widgets of the main window.
* ``tools/``: optional tools (run history and comparison, sessions, teaching, sweeps,
  robustness, HTML report), each installed through the typed host interface in
  ``tools/host.py``, never through the window class.
* ``window/``: the main window, its actions, exports, presenter and settings.

``app`` is the entry point and may import everything.

May import: ``core`` (any layer), Qt, pyqtgraph, superqt.
"""

__all__: list[str] = []
