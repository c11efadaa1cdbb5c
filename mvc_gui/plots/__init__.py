"""Live plots. Each creates its pyqtgraph items once and only updates their data.

May import: ``core``, ``mvc_gui.model``, ``mvc_gui.run``.
"""

import pyqtgraph as pg

pg.setConfigOptions(
    background="w", foreground="#2b3440", antialias=False, imageAxisOrder="row-major"
)
