"""Same seed, same labels, whatever the thread count (issue 27 item 2).

Every registered method fits the same small data sets in three child processes: with one
thread, with two, and with two again. The thread counts are set in the child's environment
before anything is imported (numba's pool, OpenMP and the BLAS libraries read them once), so
each child is one process for all methods and cases. Labels must be equal as arrays, not up
to a permutation: a method whose numbering follows rounding noise starts the next step
elsewhere (DTLL's initial labels did: tests/core/methods/test_dtll.py
::test_sparse_views_give_the_dense_result failed on other CPUs' BLAS kernels).
The shared files: benchmarks/determinism.py, docs/benchmarks/determinism.md.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.methods import REGISTRY

TESTS = Path(__file__).resolve().parents[2]
ROOT = TESTS.parent
THREAD_VARS = ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
CASES = ("dense", "separated_sparse", "sparse", "wide")

# n = 300: the anchor graphs' row blocks follow the thread count (300 rows or 2 x 150)
CHILD = r"""
import json
import sys

import numba
import numpy as np
import scipy.sparse as sp

from conftest import make_blobs_views
from core.methods import REGISTRY
from core.numerics.threads import blas_threads

dense, _ = make_blobs_views(n=300, c=3, dims=(5, 8), sep=1.5, seed=0)
# the data of test_dtll.py::test_sparse_views_give_the_dense_result: separated clusters
sep, _ = make_blobs_views(n=90, c=3, dims=(4, 6), sep=8.0, seed=3)
loose, _ = make_blobs_views(n=240, c=4, dims=(6, 9), sep=2.0, seed=1)
# wide views (d > n): the methods work in the row space (threaded products of n x n x d)
wide, _ = make_blobs_views(n=480, c=4, dims=(900, 30), sep=0.6, seed=2)
cases = {
    "dense": (dense, 3),
    "separated_sparse": ([np.abs(sep[0]), sp.csr_matrix(np.maximum(sep[1], 0))], 3),
    "sparse": ([np.abs(loose[0]), sp.csr_matrix(np.maximum(loose[1] - 1.0, 0))], 4),
    "wide": ([np.abs(wide[0]), wide[1]], 4),
}
out = {"_threads": [numba.get_num_threads(), blas_threads()]}
for name, cls in sorted(REGISTRY.items()):
    for case, (views, c) in cases.items():
        try:
            fitted = cls(n_clusters=c, random_state=0).fit(views)
            out[f"{name}|{case}"] = fitted.labels_.tolist()
            out[f"{name}|{case}|objective"] = [float(v) for v in fitted.objective_history_]
        except Exception as exc:
            out[f"{name}|{case}"] = f"{type(exc).__name__}: {exc}"
sys.stdout.write("\n" + json.dumps(out) + "\n")
"""


def _child(threads: int) -> dict:
    env = {**os.environ, **{k: str(threads) for k in THREAD_VARS}}
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), str(ROOT), env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def runs() -> dict[str, dict]:
    """The three children, one after the other (one process at a time on 2 cores)."""
    return {"1 thread": _child(1), "2 threads": _child(2), "2 threads again": _child(2)}


def test_children_ran_with_the_thread_counts_asked(runs):
    assert runs["1 thread"]["_threads"] == [1, 1]
    if (os.cpu_count() or 1) >= 2:
        assert runs["2 threads"]["_threads"] == [2, 2]


@pytest.mark.parametrize("method", sorted(REGISTRY))
def test_same_labels_whatever_the_thread_count(runs, method):
    for case in CASES:
        key = f"{method}|{case}"
        first = runs["1 thread"][key]
        assert isinstance(first, list), f"{key}: {first}"
        for name, run in runs.items():
            assert run[key] == first, f"{key}: {name} differs from 1 thread"


@pytest.mark.parametrize("method", sorted(REGISTRY))
def test_same_objective_bits_whatever_the_thread_count(runs, method):
    """Stricter than the labels: the same iterates to the last bit, so no rounding that
    follows the thread count is left for larger data to amplify into other labels."""
    for case in CASES:
        key = f"{method}|{case}|objective"
        for name, run in runs.items():
            assert run[key] == runs["1 thread"][key], f"{key}: {name} differs from 1 thread"
