"""Live plots. Each creates its pyqtgraph items once and only updates their data."""

import pyqtgraph as pg

pg.setConfigOptions(
    background="w", foreground="#2b3440", antialias=False, imageAxisOrder="row-major"
)
