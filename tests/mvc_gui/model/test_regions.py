"""Points inside a drawn region: the vectorised even-odd rule against a plain loop."""

from __future__ import annotations

import numpy as np
import pytest

from mvc_gui.model.regions import points_in_polygon, points_in_rect, simplify_path


def _inside_loop(x: float, y: float, poly: np.ndarray) -> bool:
    """The textbook crossing-number test, one point at a time."""
    inside = False
    m = len(poly)
    for i in range(m):
        (xa, ya), (xb, yb) = poly[i], poly[(i + 1) % m]
        if (ya <= y < yb) or (yb <= y < ya):
            if x < xa + (y - ya) * (xb - xa) / (yb - ya):
                inside = not inside
    return inside


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_star_shaped_and_self_crossing_lassos_match_the_loop(seed):
    rng = np.random.default_rng(seed)
    xy = rng.uniform(-1.2, 1.2, size=(3000, 2))
    angles = np.sort(rng.uniform(0, 2 * np.pi, 40))
    radii = rng.uniform(0.3, 1.0, 40)
    star = np.c_[radii * np.cos(angles), radii * np.sin(angles)]
    crossing = rng.uniform(-1, 1, size=(12, 2))  # a scribble: edges cross each other
    for poly in (star, crossing):
        expected = np.array([_inside_loop(x, y, poly) for x, y in xy])
        np.testing.assert_array_equal(points_in_polygon(xy, poly), expected)


def test_a_square_lasso_picks_the_same_points_as_the_rectangle():
    rng = np.random.default_rng(3)
    xy = rng.normal(size=(5000, 2)).astype(np.float32)  # layouts arrive as float32
    square = np.array([[-0.5, -0.25], [0.75, -0.25], [0.75, 1.0], [-0.5, 1.0]])
    got = points_in_polygon(xy, square)
    rect = points_in_rect(xy, 0.75, 1.0, -0.5, -0.25)
    assert got.sum() > 100
    np.testing.assert_array_equal(got, rect)


def test_degenerate_input_selects_nothing():
    xy = np.array([[0.0, 0.0], [np.nan, 0.0]])
    assert not points_in_polygon(xy, np.array([[0, 0], [1, 1]])).any()
    tri = np.array([[-1, -1], [1, -1], [0, 1]])
    assert points_in_polygon(xy, tri).tolist() == [True, False]
    assert points_in_polygon(np.zeros((0, 2)), tri).shape == (0,)


def test_simplify_keeps_vertices_a_step_apart():
    path = np.c_[np.linspace(0, 1, 101), np.zeros(101)]
    kept = simplify_path(path, 0.095)
    assert kept.shape[0] == 11 and np.allclose(np.diff(kept[:, 0]), 0.1)
