"""Which points lie inside a region drawn on the embedding (a lasso polygon or a rectangle).

:func:`points_in_polygon` is the even-odd (crossing number) rule, vectorised: the points inside
the polygon's bounding box are sorted by y once, and each edge toggles only the points whose y
lies in its own y span (a slice of that order, found by ``searchsorted``). The work is the
number of edges a horizontal line crosses times the points, not edges x points: a free-hand
lasso of hundreds of vertices over 100,000 points takes a few milliseconds.
"""

from __future__ import annotations

import numpy as np

__all__ = ["points_in_polygon", "points_in_rect", "rect_polygon", "simplify_path"]


def rect_polygon(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    """The four corners of the rectangle spanned by two opposite corners, as a polygon."""
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64)


def points_in_rect(xy: np.ndarray, x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    """Boolean mask of the points inside the closed rectangle (corners in any order)."""
    lo_x, hi_x = min(x0, x1), max(x0, x1)
    lo_y, hi_y = min(y0, y1), max(y0, y1)
    x, y = xy[:, 0], xy[:, 1]
    return (x >= lo_x) & (x <= hi_x) & (y >= lo_y) & (y <= hi_y)


def points_in_polygon(xy: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """Boolean mask of the points of ``xy`` (n x 2) inside ``polygon`` (m x 2, closed
    implicitly), by the even-odd rule; fewer than 3 vertices contain nothing; NaN points are
    outside."""
    xy = np.asarray(xy)
    poly = np.asarray(polygon, dtype=np.float64).reshape(-1, 2)
    n = xy.shape[0]
    inside = np.zeros(n, dtype=bool)
    poly = poly[np.isfinite(poly).all(axis=1)]
    if poly.shape[0] < 3 or n == 0:
        return inside
    (bx0, by0), (bx1, by1) = poly.min(axis=0), poly.max(axis=0)
    cand = np.flatnonzero(points_in_rect(xy, bx0, by0, bx1, by1))
    if not cand.size:
        return inside
    px = np.asarray(xy[cand, 0], dtype=np.float64)
    py = np.asarray(xy[cand, 1], dtype=np.float64)
    order = np.argsort(py, kind="stable")
    px, py = px[order], py[order]
    parity = np.zeros(cand.size, dtype=bool)
    xa, ya = poly[:, 0], poly[:, 1]
    xb, yb = np.roll(xa, -1), np.roll(ya, -1)
    # half-open y spans [low, high): a vertex shared by two edges is counted once
    lo_y, hi_y = np.minimum(ya, yb), np.maximum(ya, yb)
    starts = np.searchsorted(py, lo_y, side="left")
    stops = np.searchsorted(py, hi_y, side="left")
    for e in np.flatnonzero(stops > starts).tolist():
        s, t = int(starts[e]), int(stops[e])
        # x where the edge crosses each point's horizontal line (ya != yb: the span is open)
        cross = xa[e] + (py[s:t] - ya[e]) * ((xb[e] - xa[e]) / (yb[e] - ya[e]))
        parity[s:t] ^= px[s:t] < cross
    inside[cand[order[parity]]] = True
    return inside


def simplify_path(points: np.ndarray, min_step: float) -> np.ndarray:
    """Drop vertices closer than ``min_step`` to the previous kept one (a drawn lasso has a
    vertex per mouse move; a few pixels apart is as precise as the hand)."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if pts.shape[0] < 3 or min_step <= 0:
        return pts
    kept = [0]
    last = pts[0]
    for i in range(1, pts.shape[0]):
        if np.hypot(*(pts[i] - last)) >= min_step:
            kept.append(i)
            last = pts[i]
    return pts[kept]
