"""Dense preprocessing in row blocks: the same numbers as numpy's whole-array formulas, and a
float32 view stays float32 (one output copy, not a float64 one plus temporaries)."""

from __future__ import annotations

import numpy as np
import pytest

import core.data.preprocessing as pp


@pytest.fixture
def mixed(rng: np.random.Generator) -> np.ndarray:
    scales = rng.uniform(0.1, 100.0, 12)
    x = rng.standard_normal((300, 12)) * scales + 3.0
    x[:, 4] = 7.0  # a constant column: scaled to 0
    return x


def test_one_block_zscore_is_numpys_whole_array_formula_bit_for_bit(mixed):
    std = mixed.std(axis=0, ddof=1)
    inv = np.where(std > 1e-12, 1.0 / np.where(std > 1e-12, std, 1.0), 0.0)
    expected = (mixed - mixed.mean(axis=0)) * inv
    got, name = pp.preprocess_view(mixed, "zscore")
    assert name == "zscore" and np.array_equal(got, expected)


@pytest.mark.parametrize("method", ["zscore", "minmax", "auto"])
def test_many_small_blocks_give_the_one_block_result(mixed, method, monkeypatch):
    whole, name = pp.preprocess_view(mixed, method)
    monkeypatch.setattr(pp, "BLOCK_BYTES", 7 * 8 * 12)  # 7 rows per block
    blocked, blocked_name = pp.preprocess_view(mixed, method)
    assert blocked_name == name
    np.testing.assert_allclose(blocked, whole, rtol=1e-12, atol=1e-12)
    assert not np.shares_memory(blocked, mixed)


@pytest.mark.parametrize("method", ["zscore", "minmax", "maxscale", "l2"])
def test_float32_views_stay_float32_with_float64_statistics(mixed, method, monkeypatch):
    monkeypatch.setattr(pp, "BLOCK_BYTES", 50 * 8 * 12)
    x32 = mixed.astype(np.float32)
    got, _ = pp.preprocess_view(x32, method)
    ref, _ = pp.preprocess_view(x32.astype(np.float64), method)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, ref, atol=2e-6 * max(1.0, float(np.abs(ref).max())))


def test_fitted_zscore_statistics_of_a_float32_memory_map(mixed, tmp_path, monkeypatch):
    monkeypatch.setattr(pp, "BLOCK_BYTES", 11 * 8 * 12)
    path = tmp_path / "x.npy"
    np.save(path, mixed.astype(np.float32))
    mapped = np.load(path, mmap_mode="r")
    fitted = pp.fit_view(mapped, "zscore")
    np.testing.assert_allclose(fitted.scale, mixed.astype(np.float32).std(axis=0, ddof=1,
                               dtype=np.float64), rtol=1e-10)  # fmt: skip
    out = fitted.apply(mapped)
    assert out.dtype == np.float32 and np.isfinite(out).all()
    np.testing.assert_allclose(out.mean(axis=0, dtype=np.float64), 0.0, atol=1e-5)


def test_large_mapped_views_are_preprocessed_as_they_are_read(tmp_path):
    """The app's solver child with a method that reads row blocks: no preprocessed copy of
    mapped views above COPY_ABOVE, and FMDC's labels are those of the copied views."""
    from core.data.demo import make_synthetic
    from core.data.preprocessing import preprocess
    from core.data.stream_stats import preprocess_in_blocks, preprocess_streamed
    from core.methods import REGISTRY

    data = make_synthetic(900, (12, 20), 3, seed=5)
    maps = []
    for i, x in enumerate(data.views):
        np.save(tmp_path / f"v{i}.npy", x * (i + 1) * 10.0 + 3.0)
        maps.append(np.load(tmp_path / f"v{i}.npy", mmap_mode="r"))
    assert preprocess_in_blocks(maps) is None  # small: copied as before
    assert preprocess_in_blocks([np.asarray(m) + 0 for m in maps], copy_above=0) is None
    sources = preprocess_in_blocks(maps, copy_above=1000)
    assert sources is not None
    for s in sources:
        s._rows = 97  # many blocks
    blocked, fitted = preprocess_streamed(sources, "zscore")
    names = [t.label for t in fitted]
    copied, copied_names = preprocess(maps, "zscore")
    assert names == copied_names
    for src, full in zip(blocked, copied, strict=True):
        np.testing.assert_allclose(np.vstack([b for _, _, b in src.blocks()]), full, atol=1e-12)
    fmdc = REGISTRY["fmdc"]
    from_blocks = fmdc(n_clusters=3, n_anchors=32, random_state=0).fit(blocked).labels_
    in_memory = fmdc(n_clusters=3, n_anchors=32, bkhk_space="sketch", random_state=0)
    np.testing.assert_array_equal(from_blocks, in_memory.fit(copied).labels_)
