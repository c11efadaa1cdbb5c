"""The embedding's scatter at large n: the numba rasteriser against a NumPy twin, rendering off
the GUI thread (the window only blits), O(n) style codes, and the hover index."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from mvc_gui.model.colouring import Colouring
from mvc_gui.plots import fast_scatter
from mvc_gui.plots.embedding_parts import HoverIndex, point_styles
from mvc_gui.plots.raster import rasterise, splat


def splat_twin(xy, gid, sizes, m, top):
    """NumPy twin of :func:`splat`: style by style, bottom first, each overwriting."""
    h, w = top.shape
    m11, m12, m21, m22, dx, dy = m
    for g in range(1, len(sizes)):
        s = sizes[g]
        p = xy[gid == g]
        with np.errstate(invalid="ignore"):
            fx = np.floor(p[:, 0] * m11 + p[:, 1] * m21 + dx - (s - 1) / 2)
            fy = np.floor(p[:, 0] * m12 + p[:, 1] * m22 + dy - (s - 1) / 2)
            ok = (fx > -s) & (fx < w) & (fy > -s) & (fy < h)
        px, py = fx[ok].astype(int), fy[ok].astype(int)
        for oy in range(s):
            for ox in range(s):
                yy, xx = py + oy, px + ox
                inside = (xx >= 0) & (xx < w) & (yy >= 0) & (yy < h)
                top[yy[inside], xx[inside]] = g


@pytest.mark.kernels
@pytest.mark.parametrize("size", [1, 3, 4])
def test_splat_matches_its_numpy_twin(rng, size):
    n, h, w = 3000, 37, 53
    xy = rng.normal(size=(n, 2)) * 30
    xy[:5] = np.nan  # not drawn
    xy[5] = (1e9, 0.0)  # far off the picture
    gid = rng.integers(0, 4, n).astype(np.uint16)  # 0: hidden
    sizes = np.array([1, size, 1, size + 1], dtype=np.int64)
    m = np.array([0.7, 0.2, -0.3, -0.9, w / 2, h / 2])  # rotated, flipped, anisotropic
    got, want = np.zeros((h, w), np.uint16), np.zeros((h, w), np.uint16)
    splat(xy, gid, sizes, m, got)
    splat_twin(xy, gid, sizes, m, want)
    np.testing.assert_array_equal(got, want)
    assert 0 < np.count_nonzero(got) < h * w


@pytest.mark.kernels
def test_rasterise_colours_each_pixel_by_its_top_style():
    xy = np.array([[1.0, 1.0], [1.0, 1.0], [3.0, 2.0]])
    codes = np.array([2, 1, 1], dtype=np.uint16)  # point 0 (style 2) lies on top of point 1
    argb = np.array([0xFF0000FF, 0xFF00FF00], dtype=np.uint32)
    pixels = rasterise(xy, codes, argb, np.array([1, 1]), (1, 0, 0, 1, 0, 0), 5, 4)
    assert pixels[1, 1] == 0xFF00FF00 and pixels[2, 3] == 0xFF0000FF
    assert np.count_nonzero(pixels) == 2


def test_point_styles_order_selection_emphasis_and_hidden_points():
    codes = np.array([-1, 0, 1, 1, 0])
    c = Colouring("c", "categorical", codes, [(1, 2, 3), (4, 5, 6)], ["a", "b"], [2, 2])
    out, styles = point_styles(c, 5, 3)
    np.testing.assert_array_equal(out, [1, 2, 3, 3, 2])  # grey (no value) underneath
    assert styles == [((190, 190, 190, 255), 3), ((1, 2, 3, 255), 3), ((4, 5, 6, 255), 3)]
    sel = np.array([False, True, False, True, False])
    shown = np.array([True, True, True, True, False])
    out, styles = point_styles(c, 5, 3, sel, shown)
    np.testing.assert_array_equal(out, [1, 4, 5, 6, 0])
    assert styles[3] == ((1, 2, 3, 255), 5) and styles[2][0][3] == 45  # selected: full, larger
    emph = Colouring("d", "categorical", codes, [(1, 2, 3), (4, 5, 6)], [], [], emphasis=codes == 1)
    assert [px for _, px in point_styles(emph, 5, 3)[1]] == [3, 3, 5]


def test_hover_index_answers_once_built_in_its_thread(rng, monkeypatch):
    monkeypatch.setattr("mvc_gui.plots.embedding_parts.TREE_IN_THREAD", 100)
    xy = rng.normal(size=(5000, 2))
    index = HoverIndex(xy)
    for _ in range(500):
        if index.nearest(0.0, 0.0) is not None:
            break
        threading.Event().wait(0.01)
    _dist, i = index.nearest(0.3, -0.2)
    assert i == int(np.argmin(((xy - [0.3, -0.2]) ** 2).sum(1)))


def test_a_large_scatter_is_rendered_off_the_gui_thread_and_blitted(qtbot, monkeypatch):
    import pyqtgraph as pg

    monkeypatch.setattr(fast_scatter, "ASYNC", 1000)
    threads = []
    real = fast_scatter.rasterise

    def spy(*args):
        threads.append(threading.current_thread())
        return real(*args)

    monkeypatch.setattr(fast_scatter, "rasterise", spy)
    view = pg.PlotWidget()
    qtbot.addWidget(view)
    view.resize(300, 200)
    view.getPlotItem().hideAxis("left")
    view.getPlotItem().hideAxis("bottom")
    scatter = fast_scatter.FastScatter()
    view.getPlotItem().addItem(scatter)
    xy = np.column_stack([np.linspace(0, 1, 5000), np.linspace(0, 1, 5000)])
    codes = np.where(np.arange(5000) < 2500, 1, 2).astype(np.uint16)
    scatter.set_points(xy, codes, [((255, 0, 0, 255), 3), ((0, 0, 255, 255), 3)])
    view.show()
    qtbot.waitExposed(view)
    qtbot.waitUntil(lambda: bool(threads))
    scatter.wait_rendered()
    image = view.grab().toImage()
    colours = {image.pixelColor(x, y).getRgb()[:3] for x in range(0, 300, 2) for y in range(200)}
    assert {(255, 0, 0), (0, 0, 255)} <= colours
    assert all(t is not threading.main_thread() for t in threads)
    # a picture for a file (no view) is rendered at once, on the calling thread
    threads.clear()
    from PySide6.QtGui import QImage, QPainter

    out = QImage(300, 200, QImage.Format.Format_ARGB32_Premultiplied)
    out.fill(0)
    painter = QPainter(out)
    view.scene().render(painter)
    painter.end()
    assert threads == [threading.main_thread()]
