"""numba kernels against their NumPy twins (tests/naive.py); rerun with NUMBA_DISABLE_JIT=1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import naive
from core.methods.fmdc.jit import fmdc_sweep
from core.numerics.jit.graph import (
    balanced_split,
    balanced_split_level,
    gather_csr_dot,
    gather_csr_mean,
    gather_dense_dot,
    gather_dense_mean,
    pkn_rows,
)
from core.numerics.jit.simplex import (
    project_simplex_columns,
    project_simplex_rows,
    project_simplex_rows_into,
)

pytestmark = pytest.mark.kernels


@pytest.mark.parametrize("k", [1, 3, 7])
def test_pkn_rows_matches_twin(rng, k):
    x, u = rng.normal(size=(40, 5)), rng.normal(size=(12, 5))
    gram, rs, us = x @ u.T, (x**2).sum(1), (u**2).sum(1)
    idx, w = pkn_rows(gram, rs, us, k)
    idx2, w2 = naive.pkn_rows(gram, rs, us, k)
    np.testing.assert_array_equal(idx, idx2)
    np.testing.assert_allclose(w, w2, atol=1e-12)
    np.testing.assert_allclose(w.sum(1), 1.0)


def test_pkn_rows_ties_and_duplicates():
    # all anchors at the same distance: the fallback gives uniform weights on the first k
    gram = np.zeros((3, 6))
    idx, w = pkn_rows(gram, np.ones(3), np.ones(6), 2)
    np.testing.assert_array_equal(idx, [[0, 1]] * 3)
    np.testing.assert_allclose(w, 0.5)


def test_simplex_projection_matches_twin(rng):
    a = rng.normal(size=(9, 30)) * 3
    cols = project_simplex_columns(a)
    rows = project_simplex_rows(np.ascontiguousarray(a.T))
    for j in range(30):
        np.testing.assert_allclose(cols[:, j], naive.project_simplex(a[:, j]), atol=1e-12)
    np.testing.assert_allclose(rows, cols.T, atol=1e-12)
    assert np.allclose(cols.sum(0), 1) and (cols >= 0).all()
    into = np.full((40, 9), np.nan)
    project_simplex_rows_into(np.ascontiguousarray(a.T), into[5:35])  # a block of a larger array
    np.testing.assert_array_equal(into[5:35], rows)
    assert np.isnan(into[:5]).all() and np.isnan(into[35:]).all()


def test_gather_kernels(rng):
    x = rng.normal(size=(30, 7))
    xs = sp.random(30, 7, density=0.3, format="csr", random_state=1)
    rows, w = np.array([3, 0, 29, 3]), rng.normal(size=7)
    np.testing.assert_allclose(gather_dense_dot(x, rows, w), x[rows] @ w)
    np.testing.assert_allclose(gather_dense_mean(x, rows), x[rows].mean(0))
    np.testing.assert_allclose(
        gather_csr_dot(xs.indptr, xs.indices, xs.data, rows, w), xs[rows] @ w
    )
    np.testing.assert_allclose(
        gather_csr_mean(xs.indptr, xs.indices, xs.data, 7, rows),
        np.asarray(xs[rows].mean(0)).ravel(),
    )


def test_fmdc_sweep_matches_dense_twin(rng):
    n, c = 36, 3
    q = sp.random(n, 10, density=0.4, format="csr", random_state=2)
    labels = rng.permutation(np.arange(n) % c).astype(np.int64)
    order = np.arange(n, dtype=np.int64)
    expect, moved_ref = naive.fmdc_sweep(q, labels, c, order)
    got = labels.copy()
    s = np.asarray(q.multiply(q).sum(1)).ravel()
    ind = sp.csr_matrix((np.ones(n), (np.arange(n), labels)), shape=(n, c))
    b = np.ascontiguousarray((q.T @ ind).toarray())
    a = np.einsum("ij,ij->j", b, b)
    counts = np.bincount(labels, minlength=c).astype(np.int64)
    moved = fmdc_sweep(q.indptr, q.indices, q.data, s, b, a, counts, got, order)
    np.testing.assert_array_equal(got, expect)
    assert moved == moved_ref
    # the bookkeeping stays exact
    ind = sp.csr_matrix((np.ones(n), (np.arange(n), got)), shape=(n, c))
    np.testing.assert_allclose(b, (q.T @ ind).toarray(), atol=1e-12)
    np.testing.assert_allclose(a, np.einsum("ij,ij->j", b, b), atol=1e-10)


@pytest.mark.parametrize("n", [2, 3, 41, 200])
def test_balanced_split_matches_twin(rng, n):
    x = rng.normal(size=(300, 6)) + np.repeat([[0.0], [3.0]], 150, axis=0)
    rows = np.sort(rng.choice(300, n, replace=False))
    c0, c1 = x[rows[0]].copy(), x[rows[-1]].copy()
    got = balanced_split(x, rows, c0.copy(), c1.copy(), 100)
    expect = naive.balanced_split(x, rows, c0, c1, 100)
    half = n // 2
    assert set(got[:half]) == set(expect[:half]) and sorted(got) == list(range(n))


def test_balanced_split_level_equals_one_call_per_group(rng):
    x = rng.normal(size=(120, 4))
    groups = [np.arange(0, 50), np.arange(50, 51), np.arange(51, 120)]
    rows = np.concatenate(groups)
    offsets = np.array([0, 50, 51, 120])
    seeds = np.array([[0, 49], [50, 50], [51, 119]])
    got = balanced_split_level(x, rows, offsets, seeds[:, 0], seeds[:, 1], 100)
    for g, lo, (s0, s1) in zip(groups, offsets[:-1], seeds, strict=True):
        one = balanced_split(x, g, x[s0].copy(), x[s1].copy(), 100)
        np.testing.assert_array_equal(got[lo : lo + g.size], one)


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="already without JIT")
def test_kernel_tests_pass_without_jit():
    """Every test marked ``kernels`` also passes as plain Python (NUMBA_DISABLE_JIT=1)."""
    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-m",
            "kernels",
            "-p",
            "no:cacheprovider",
            str(root / "tests"),
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
