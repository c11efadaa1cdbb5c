"""Tests for the embedded demo data (core.data.demo, resources)."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

import resources
from core.data.dataset import DataError, MultiViewDataset
from core.data.demo import (
    DEMOS,
    load_demo,
    make_blobs_noisy_view,
    make_synthetic,
    make_three_rings,
    make_two_moons,
)
from resources import resource_path

ROOT = Path(__file__).resolve().parents[3]
UCI_VIEWS = [("fou", 76), ("fac", 216), ("kar", 64), ("pix", 240), ("zer", 47), ("mor", 6)]


def test_handwritten_demo():
    ds = load_demo("handwritten")
    assert ds.source == "demo:handwritten" and ds.name == "handwritten"
    assert ds.n_samples == 2000
    assert list(zip(ds.view_names, ds.dims, strict=True)) == UCI_VIEWS
    assert ds.class_names == [str(d) for d in range(10)]
    assert np.bincount(ds.labels).tolist() == [200] * 10
    assert ds.labels[0] == 0 and ds.labels[-1] == 9  # UCI order: 200 zeros first
    assert all(v.dtype == np.float64 for v in ds.views)
    pix = ds.views[3]
    assert pix.min() == 0 and pix.max() == 6 and np.all(pix == np.round(pix))
    assert ds.views[1].max() == 1353  # fac, stored as uint16
    assert ds.warnings == []


def test_handwritten_file_is_compact():
    path = resource_path("datasets", "handwritten.npz")
    assert path.is_file() and path.stat().st_size < 4_000_000
    with np.load(path, allow_pickle=False) as archive:
        assert archive["X1"].dtype == np.uint16 and archive["X3"].dtype == np.uint8


def test_handwritten_provenance_and_packaging():
    readme = resource_path("datasets", "README.md").read_text(encoding="utf-8")
    for fragment in ("UCI Machine Learning Repository", "Duin", "10.24432/C5HC70", "CC BY 4.0"):
        assert fragment in readme
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    data = config["tool"]["setuptools"]["package-data"]["resources"]
    assert "datasets/*.npz" in data and "datasets/*.md" in data


@pytest.mark.datasets
def test_make_handwritten_reproduces_the_shipped_file(benchmark_file, tmp_path):
    sys.path.insert(0, str(ROOT / "resources" / "datasets"))
    try:
        import make_handwritten
    finally:
        sys.path.pop(0)
    out = make_handwritten.convert(benchmark_file("Handwritten.mat"), tmp_path / "hw.npz")
    with np.load(out) as new, np.load(resource_path("datasets", "handwritten.npz")) as old:
        assert new.files == old.files
        for key in new.files:
            assert new[key].dtype == old[key].dtype
            assert np.array_equal(new[key], old[key])


def test_resource_path_checkout_and_frozen(monkeypatch, tmp_path):
    assert resource_path() == Path(resources.__file__).resolve().parent
    assert resource_path("datasets", "handwritten.npz").is_file()
    frozen = tmp_path / "resources" / "datasets"
    frozen.mkdir(parents=True)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert resource_path("datasets", "x.npz") == frozen / "x.npz"


def test_load_demo_all_names_and_unknown():
    assert list(DEMOS) == ["handwritten", "blobs_noisy_view", "two_moons", "three_rings"]
    for name in DEMOS:
        ds = load_demo(name)
        assert isinstance(ds, MultiViewDataset) and ds.source == f"demo:{name}"
        assert ds.labels is not None and ds.n_views >= 2
    with pytest.raises(DataError, match="unknown demo dataset 'nope'"):
        load_demo("nope")


def test_missing_demo_file(monkeypatch, tmp_path):
    monkeypatch.setattr("core.data.demo.resource_path", lambda *parts: tmp_path.joinpath(*parts))
    with pytest.raises(DataError, match="missing from this installation"):
        load_demo("handwritten")


def _between_within(view: np.ndarray, labels: np.ndarray) -> float:
    """Ratio of between-cluster to within-cluster variance (0 when there is no structure)."""
    means = np.stack([view[labels == k].mean(0) for k in np.unique(labels)])
    within = sum(((view[labels == k] - means[k]) ** 2).sum() for k in np.unique(labels))
    between = ((means[labels] - view.mean(0)) ** 2).sum()
    return float(between / within)


def test_blobs_noisy_view():
    ds = make_blobs_noisy_view()
    assert ds.n_samples == 600 and ds.n_views == 4 and ds.n_classes == 3
    assert np.bincount(ds.labels).tolist() == [200] * 3
    assert ds.view_names[-1].startswith("noise")
    ratios = [_between_within(v, ds.labels) for v in ds.views]
    assert ratios[0] > 5 and ratios[1] > 5 and ratios[3] < 0.05
    other = make_blobs_noisy_view(n=90, c=5, seed=3)
    assert other.n_samples == 90 and other.n_classes == 5


def test_two_moons_and_three_rings():
    moons = make_two_moons()
    assert moons.n_samples == 200 and moons.dims == [2, 2] and moons.n_classes == 2
    rings = make_three_rings()
    assert rings.n_samples == 300 and rings.dims == [2, 2] and rings.n_classes == 3
    for view in rings.views:
        radius = np.linalg.norm(view, axis=1)
        med = [np.median(radius[rings.labels == k]) for k in range(3)]
        assert med[0] < med[1] < med[2]
    noisy = make_two_moons(n=50, noise=0.3, seed=1)
    assert noisy.n_samples == 50


def test_generators_are_deterministic():
    for make in (make_blobs_noisy_view, make_two_moons, make_three_rings):
        a, b, c = make(seed=5), make(seed=5), make(seed=6)
        assert np.array_equal(a.labels, b.labels)
        assert all(np.array_equal(x, y) for x, y in zip(a.views, b.views, strict=True))
        assert not np.array_equal(a.views[0], c.views[0])
    s1, s2 = make_synthetic(500, dims=(4, 6), seed=2), make_synthetic(500, dims=(4, 6), seed=2)
    assert np.array_equal(s1.views[1], s2.views[1])


def test_make_synthetic_shapes_and_structure():
    ds = make_synthetic(3000, c=10, seed=0)
    assert ds.dims == [100, 300, 600] and ds.n_classes == 10
    assert ds.source == "demo:synthetic"
    assert np.bincount(ds.labels).tolist() == [300] * 10
    assert all(_between_within(v, ds.labels) > 0.3 for v in ds.views)


def test_make_synthetic_is_the_same_problem_at_every_n():
    """The cluster centres and view maps depend on the seed only: a larger n is more samples
    of the same clusters (scale benchmarks compare accuracy across n), another seed differs."""

    def class_means(n: int, seed: int) -> np.ndarray:
        ds = make_synthetic(n, dims=(6,), c=3, seed=seed, noise=0.0)
        return np.array([ds.views[0][ds.labels == k].mean(axis=0) for k in range(3)])

    small, large = class_means(3000, 1), class_means(30000, 1)
    spread = np.abs(small).max()
    assert np.abs(small - large).max() < 0.1 * spread  # sampling error only
    assert np.abs(small - class_means(3000, 2)).max() > 0.3 * spread


def test_generator_argument_errors():
    with pytest.raises(DataError, match="too few"):
        make_synthetic(5, c=10)
    with pytest.raises(DataError, match="dims"):
        make_synthetic(100, dims=())
    with pytest.raises(DataError, match="at least one cluster"):
        make_blobs_noisy_view(c=0)
