"""Categorical colours: one colour per cluster, the same in every view.

The first ten follow Okabe-Ito (colour-blind safe) completed with tab10-like tones; beyond
ten, colours are generated greedily (Glasbey-like): each new colour is the candidate
farthest in CIE Lab space from those already chosen. Qt-free: colours are (r, g, b) ints.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

__all__ = ["NOISE_COLOR", "cluster_colors", "hex_color"]

BASE = (
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7",
    "#56B4E9", "#F0E442", "#7F7F7F", "#8C564B", "#17BECF",
)  # fmt: skip
NOISE_COLOR = (190, 190, 190)


def _hex_to_rgb(h: str) -> tuple[int, int, int]:
    return int(h[1:3], 16), int(h[3:5], 16), int(h[5:7], 16)


def hex_color(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def _lab(rgb: np.ndarray) -> np.ndarray:
    c = rgb / 255.0
    c = np.where(c > 0.04045, ((c + 0.055) / 1.055) ** 2.4, c / 12.92)
    m = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = c @ m.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.stack(
        [116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])], axis=1
    )


@lru_cache(maxsize=8)
def _palette(n: int) -> tuple[tuple[int, int, int], ...]:
    chosen = [_hex_to_rgb(h) for h in BASE[: min(n, len(BASE))]]
    if n > len(chosen):
        grid = np.linspace(0, 255, 12)
        cand = np.array(np.meshgrid(grid, grid, grid)).reshape(3, -1).T
        lab = _lab(cand)
        # avoid near-white and near-black: they vanish on the backgrounds
        ok = (lab[:, 0] > 25) & (lab[:, 0] < 90)
        cand, lab = cand[ok], lab[ok]
        taken = _lab(np.array(chosen, dtype=float))
        dmin = np.min(((lab[:, None, :] - taken[None]) ** 2).sum(-1), axis=1)
        while len(chosen) < n:
            j = int(np.argmax(dmin))
            chosen.append(tuple(round(v) for v in cand[j]))
            dmin = np.minimum(dmin, ((lab - lab[j]) ** 2).sum(-1))
    return tuple(chosen)


def cluster_colors(n: int) -> list[tuple[int, int, int]]:
    """``n`` distinct (r, g, b) colours; the first ones never change when n grows."""
    if n <= 0:
        return []
    return list(_palette(max(n, len(BASE)))[:n])
