"""Demo datasets: the embedded UCI handwritten digits and synthetic teaching sets.

``load_demo(name)`` returns any of :data:`DEMOS` as a :class:`~core.data.dataset.MultiViewDataset`
whose ``source`` is ``"demo:<name>"``. The generators can also be called directly with other
sizes and seeds; :func:`make_synthetic` is meant for scale benchmarks (n = 100,000 in seconds).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core.data.dataset import DataError, MultiViewDataset
from core.data.io.npz import read_npz
from resources import resource_path

__all__ = [
    "DEMOS",
    "load_demo",
    "make_blobs_noisy_view",
    "make_synthetic",
    "make_three_rings",
    "make_two_moons",
    "synthetic_streams",
]

#: Demo names and one-line descriptions (iterating gives the names).
DEMOS: dict[str, str] = {
    "handwritten": "UCI handwritten digits: 2000 samples, 6 views (fou, fac, kar, pix, zer, mor), "
    "10 classes",
    "blobs_noisy_view": "Gaussian blobs: 600 samples, 3 informative views and 1 pure-noise view, "
    "3 classes",
    "two_moons": "two interleaved half circles: 200 samples, 2 noisy 2-D views, 2 classes",
    "three_rings": "three concentric rings: 300 samples, 2 noisy 2-D views, 3 classes",
}


def load_demo(name: str = "handwritten") -> MultiViewDataset:
    """Load a demo dataset by name (one of :data:`DEMOS`).

    Parameters
    ----------
    name : str
        ``"handwritten"`` (embedded file) or a synthetic set generated with default arguments.

    Returns
    -------
    MultiViewDataset
        With ``source == "demo:<name>"``.

    Raises
    ------
    DataError
        For an unknown name, or if the embedded file is missing from the installation.
    """
    if name not in DEMOS:
        raise DataError(f"unknown demo dataset {name!r}: choose one of {', '.join(DEMOS)}")
    if name == "handwritten":
        path = resource_path("datasets", "handwritten.npz")
        if not path.is_file():
            raise DataError(f"the embedded demo file is missing from this installation: {path}")
        return read_npz(path, name="handwritten", source="demo:handwritten", notes=[])
    generators = {
        "blobs_noisy_view": make_blobs_noisy_view,
        "two_moons": make_two_moons,
        "three_rings": make_three_rings,
    }
    return generators[name]()


def _balanced_labels(n: int, c: int, rng: np.random.Generator) -> np.ndarray:
    return rng.permutation(np.arange(n) % c).astype(np.int64)


def synthetic_streams(seed: int | None) -> tuple[np.random.Generator, np.random.Generator]:
    """(structure, samples): the cluster centres and view maps come from the first stream and
    depend on the seed only; labels and noise from the second. With one stream the label
    permutation (n draws) came first, so every n had other centres: 100k was a harder
    instance than 10k (k-means on the views 0.945 against 0.980), not the same problem."""
    structure, samples = np.random.SeedSequence(seed).spawn(2)
    return np.random.default_rng(structure), np.random.default_rng(samples)


def _check_sizes(n: int, c: int) -> None:
    if c < 1:
        raise DataError(f"need at least one cluster, got c={c}")
    if n < max(2, c):
        raise DataError(f"n={n} samples are too few for {c} clusters")


def make_blobs_noisy_view(n: int = 600, c: int = 3, seed: int | None = 0) -> MultiViewDataset:
    """Gaussian clusters seen through three informative views and one pure-noise view.

    Views: ``clean 2-D`` (well separated), ``clean 10-D`` (well separated), ``weak 5-D``
    (overlapping clusters) and ``noise 8-D`` (no cluster structure at all). A good
    multi-view method gives the noise view a low weight.

    Parameters
    ----------
    n, c : int
        Samples and clusters (balanced).
    seed : int or None
        Random seed.
    """
    _check_sizes(n, c)
    rng = np.random.default_rng(seed)
    labels = _balanced_labels(n, c, rng)
    spec = (("clean 2-D", 2, 6.0), ("clean 10-D", 10, 4.0), ("weak 5-D", 5, 1.0))
    views, names = [], []
    for name, dim, sep in spec:
        centers = rng.normal(scale=sep, size=(c, dim))
        views.append(centers[labels] + rng.standard_normal((n, dim)))
        names.append(name)
    views.append(rng.standard_normal((n, 8)) * 3.0)
    names.append("noise 8-D")
    return MultiViewDataset(
        views=views,
        labels=labels,
        view_names=names,
        name="blobs_noisy_view",
        source="demo:blobs_noisy_view",
    )


def _rotation(angle: float) -> np.ndarray:
    cos, sin = np.cos(angle), np.sin(angle)
    return np.array([[cos, -sin], [sin, cos]])


def make_two_moons(n: int = 200, noise: float = 0.08, seed: int | None = 0) -> MultiViewDataset:
    """Two interleaved half circles, observed twice (two views with independent noise).

    View 2 is the same shape rotated by 60 degrees and scaled, with its own noise.

    Parameters
    ----------
    n : int
        Samples (split evenly between the moons).
    noise : float
        Standard deviation of the Gaussian noise added to each view.
    seed : int or None
        Random seed.
    """
    _check_sizes(n, 2)
    rng = np.random.default_rng(seed)
    labels = _balanced_labels(n, 2, rng)
    t = rng.uniform(0.0, np.pi, n)
    upper = np.column_stack([np.cos(t), np.sin(t)])
    lower = np.column_stack([1.0 - np.cos(t), 0.5 - np.sin(t)])
    base = np.where(labels[:, None] == 0, upper, lower) - np.array([0.5, 0.25])
    view1 = base + noise * rng.standard_normal((n, 2))
    view2 = 0.8 * base @ _rotation(np.pi / 3).T + noise * rng.standard_normal((n, 2))
    return MultiViewDataset(
        views=[view1, view2],
        labels=labels,
        view_names=["moons", "rotated"],
        name="two_moons",
        source="demo:two_moons",
    )


def make_three_rings(n: int = 300, noise: float = 0.05, seed: int | None = 0) -> MultiViewDataset:
    """Three concentric rings (radii 0.2, 0.5, 0.8), observed twice.

    View 2 is a rotated copy with independent radial and Gaussian noise. k-means on either
    view fails; graph-based methods separate the rings.

    Parameters
    ----------
    n : int
        Samples (split evenly between the rings).
    noise : float
        Standard deviation of the Gaussian noise added to each view.
    seed : int or None
        Random seed.
    """
    _check_sizes(n, 3)
    rng = np.random.default_rng(seed)
    labels = _balanced_labels(n, 3, rng)
    radius = np.array([0.2, 0.5, 0.8])[labels]
    t = rng.uniform(0.0, 2.0 * np.pi, n)
    views = []
    for shift in (0.0, np.pi / 5):
        r = radius + 0.5 * noise * rng.standard_normal(n)
        ring = np.column_stack([r * np.cos(t + shift), r * np.sin(t + shift)])
        views.append(ring + noise * rng.standard_normal((n, 2)))
    return MultiViewDataset(
        views=views,
        labels=labels,
        view_names=["rings", "rotated"],
        name="three_rings",
        source="demo:three_rings",
    )


def make_synthetic(
    n: int = 10_000,
    dims: Sequence[int] = (100, 300, 600),
    c: int = 10,
    seed: int | None = 0,
    *,
    latent_dim: int | None = None,
    separation: float = 1.5,
    noise: float = 1.0,
) -> MultiViewDataset:
    """Gaussian clusters in a latent space, mapped into each view by a random linear map.

    ``z_i = mu_{y_i} + e_i`` in ``latent_dim`` dimensions (default ``c``), view ``v`` is
    ``X_v = Z W_v + noise * E_v`` with ``W_v`` Gaussian (``latent_dim x d_v``, scaled by
    ``1/sqrt(latent_dim)``). Generated in row blocks into preallocated arrays, so memory is
    just the output (n = 100,000 with the default dims: 0.8 GB as float64, a few seconds).

    Parameters
    ----------
    n : int
        Samples.
    dims : sequence of int
        Feature dimension of each view.
    c : int
        Clusters (balanced).
    seed : int or None
        Random seed.
    latent_dim : int, optional
        Dimension of the latent space (default ``max(c, 2)``).
    separation : float
        Standard deviation of the cluster centres in latent space (larger: easier).
    noise : float
        Standard deviation of the per-view Gaussian noise.

    Returns
    -------
    MultiViewDataset
        Named ``synthetic``, source ``"demo:synthetic"``.
    """
    _check_sizes(n, c)
    dims = [int(d) for d in dims]
    if not dims or min(dims) < 1:
        raise DataError(f"dims must be positive view dimensions, got {dims}")
    structure, rng = synthetic_streams(seed)
    r = int(latent_dim or max(c, 2))
    centers = structure.normal(scale=separation, size=(c, r))
    mappings = [structure.standard_normal((r, d)) / np.sqrt(r) for d in dims]
    labels = _balanced_labels(n, c, rng)
    latent = centers[labels]
    latent += rng.standard_normal((n, r))
    views = []
    block = 8192
    for d, mapping in zip(dims, mappings, strict=True):
        x = np.empty((n, d), dtype=np.float64)
        rng.standard_normal(out=x)
        if noise != 1.0:
            x *= noise
        for start in range(0, n, block):
            stop = min(start + block, n)
            x[start:stop] += latent[start:stop] @ mapping
        views.append(x)
    names = [f"view {i + 1} ({d}-D)" for i, d in enumerate(dims)]
    return MultiViewDataset(
        views=views, labels=labels, view_names=names, name="synthetic", source="demo:synthetic"
    )
