"""k-means on embeddings: the restarts' smaller subsample above ``subsample`` rows."""

import numpy as np

from core.numerics.kmeans import kmeans_steps, restart_size
from core.numerics.metrics import accuracy
from core.numerics.steps import drain


def _blobs(n: int, c: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = rng.integers(c, size=n)
    centres = rng.normal(scale=4.0, size=(c, 8))
    return centres[labels] + rng.normal(size=(n, 8)), labels


def test_restarts_on_fewer_rows_reach_the_same_fixed_point():
    x, labels = _blobs(6000, 5)
    full, inertia = drain(kmeans_steps(x, 5, np.random.default_rng(0), subsample=2000))
    few, few_inertia = drain(
        kmeans_steps(x, 5, np.random.default_rng(0), subsample=2000, restart_rows=300)
    )
    assert accuracy(labels, few) >= 0.999
    assert accuracy(full, few) == 1.0
    assert abs(few_inertia - inertia) <= 1e-9 * inertia


def test_restart_rows_leave_small_inputs_alone():
    # at or below ``subsample`` rows every restart sees all rows, whatever restart_rows says
    x, _ = _blobs(1500, 4)
    a = drain(kmeans_steps(x, 4, np.random.default_rng(3), subsample=2000))
    b = drain(kmeans_steps(x, 4, np.random.default_rng(3), subsample=2000, restart_rows=100))
    assert np.array_equal(a[0], b[0]) and a[1] == b[1]


def test_restart_size_grows_with_the_clusters():
    assert restart_size(2) == 5000
    assert restart_size(40) == 20_000


def test_threaded_restarts_give_the_serial_result():
    # overlapping blobs: restarts end in different local minima, so the choice among them
    # (same seeds, lowest inertia, first on ties) is what is compared
    x, _ = _blobs(3000, 8, seed=3)
    x = x / 3.0
    serial = drain(kmeans_steps(x, 8, np.random.default_rng(5), n_init=6))
    rng = np.random.default_rng(5)
    threaded = drain(kmeans_steps(x, 8, rng, n_init=6, threads=2))
    np.testing.assert_array_equal(threaded[0], serial[0])
    assert threaded[1] == serial[1]
    # the random stream is left where the serial run leaves it
    rng_serial = np.random.default_rng(5)
    drain(kmeans_steps(x, 8, rng_serial, n_init=6))
    assert rng.integers(1 << 30) == rng_serial.integers(1 << 30)
