"""RG-MVC: kernels vs NumPy twins, the kernel chain of both paths, dense == sparse, the
reduced gradient (F never increases), memory refusal, toy and benchmark results."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from core.data.dataset import DataError
from core.methods.rgmvc.jit_graph import (
    dense_graph_solve,
    left_out_bound,
    simplex_threshold,
    sparse_graph_solve,
)
from core.methods.rgmvc.jit_passes import (
    accumulate_cols,
    final_rows,
    gauss_rows_block,
    normalized_row_sums,
    scan_block,
    select_block,
    tri_dist_block,
)
from core.methods.rgmvc.kernel_matrices import (
    dense_kernel,
    kernel_passes,
    prepare_view,
    select_candidates,
)
from core.methods.rgmvc.solver import RGMVC
from core.methods.rgmvc.updates import DenseProblem, SparseProblem, reduced_gradient_step
from core.numerics.metrics import all_metrics
from core.numerics.steps import drain
from tests.conftest import make_blobs_views

# -- NumPy twins ----------------------------------------------------------------------------


def np_project(v: np.ndarray) -> np.ndarray:
    u = np.sort(v)[::-1]
    css = np.cumsum(u)
    k = np.arange(1, v.size + 1)
    rho = np.nonzero(u - (css - 1) / k > 0)[0][-1]
    return np.maximum(v - (css[rho] - 1) / (rho + 1), 0)


def np_graph(ks: np.ndarray, gamma: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    """Spec §4 literally: rows of G = proj(A[i, j≠i]/2), F and traces."""
    a = np.tensordot(gamma**2, ks, 1)
    n = a.shape[0]
    g = np.zeros_like(a)
    for i in range(n):
        others = np.arange(n) != i
        g[i, others] = np_project(a[i, others] / 2)
    f = float(np.sum(a * g) - np.sum(g * g))
    return g, f, np.array([np.sum(k * g) for k in ks])


def np_chain(x: np.ndarray, kind: str, bw: float = 1.0) -> np.ndarray:
    """§3.2-3.3 written out with plain NumPy (distances from scratch)."""
    x = prepare_view(x, kind)
    n = x.shape[0]
    if kind == "gaussian":
        d = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))
        sigma = bw * d.sum() / (n * (n - 1))
        k = np.exp(-(d**2) / (2 * sigma**2))
    else:
        k = x @ x.T
    mu, s = k.mean(), k.std(ddof=1)
    k = np.clip(k, mu - 4 * s, mu + 4 * s)
    dg = np.diag(k).copy()
    bad = dg <= 0
    dsafe = np.where(bad, 1.0, dg)
    k = k / np.sqrt(np.outer(dsafe, dsafe))
    k[bad, :] = 0
    k[:, bad] = 0
    k[bad, bad] = 1
    k = k - k.mean(0)[None, :] - k.mean(1)[:, None] + k.mean()
    k = (k + k.T) / 2 + 1e-12 * np.eye(n)
    return k / k.std(ddof=1)


def small_views(n: int = 36, seed: int = 0) -> tuple[list[np.ndarray], np.ndarray]:
    return make_blobs_views(n=n, c=3, dims=(4, 6, 5), sep=3.0, seed=seed)


# -- kernels --------------------------------------------------------------------------------


@pytest.mark.kernels
def test_simplex_threshold_matches_sort_projection(rng):
    for m in (1, 2, 7, 40):
        for scale in (0.1, 1.0, 10.0):
            v = rng.normal(scale=scale, size=m)
            buf = np.empty(m)
            skip = m // 2 if m > 1 else -1
            theta = simplex_threshold(v, m, skip, buf)
            keep = np.arange(m) != skip
            np.testing.assert_allclose(
                np.maximum(v[keep] - theta, 0), np_project(v[keep]), atol=1e-12
            )


@pytest.mark.kernels
def test_dense_graph_solve_matches_numpy(rng):
    views, _ = small_views()
    ks = np.stack([dense_kernel(x, "gaussian", 1.0)[0] for x in views])
    gamma = np.array([0.5, 0.3, 0.2])
    g = np.zeros(ks.shape[1:])
    row_f, row_tr = dense_graph_solve(ks, gamma**2, g)
    g_ref, f_ref, tr_ref = np_graph(ks, gamma)
    np.testing.assert_allclose(g, g_ref, atol=1e-12)
    assert np.all(np.diag(g) == 0)
    np.testing.assert_allclose(g.sum(axis=1), 1.0, atol=1e-12)
    assert row_f.sum() == pytest.approx(f_ref, rel=1e-12)
    np.testing.assert_allclose(row_tr.sum(axis=0), tr_ref, rtol=1e-10, atol=1e-12)


@pytest.mark.kernels
def test_chain_blocks_match_numpy(rng):
    x = rng.normal(size=(30, 4))
    x[3] = x[7]  # a duplicate: zero distance off the diagonal
    k_ref = np_chain(x, "gaussian", 0.8)
    k_dense, chain = dense_kernel(x, "gaussian", 0.8)
    np.testing.assert_allclose(k_dense, k_ref, atol=1e-10)
    sq = (x**2).sum(1)
    rows = np.array([7, 2, 3, 29, 11])  # any rows, in any order, duplicates included
    g = x[rows] @ x.T
    c = chain
    final_rows(g, sq[rows], sq, rows, 1, c.inv2s2, c.lo, c.hi, c.diag, c.bad, c.r, c.t, c.scale)
    np.testing.assert_allclose(g, k_ref[rows], atol=1e-10)
    kc_ref, cc = dense_kernel(x, "cosine", 0.8)
    xn = x / np.linalg.norm(x, axis=1, keepdims=True)
    g = xn[rows] @ xn.T
    final_rows(g, sq[rows], sq, rows, 2, 0.0, cc.lo, cc.hi, cc.diag, cc.bad, cc.r, cc.t, cc.scale)
    np.testing.assert_allclose(g, kc_ref[rows], atol=1e-10)
    k0 = np.exp(-np.maximum(sq[:, None] + sq[None] - 2 * x @ x.T, 0) * chain.inv2s2)
    np.fill_diagonal(k0, 1.0)
    k2 = chain.normalized(k0, np.arange(30)[:, None], np.arange(30)[None])
    rows = np.array([4, 0, 29, 3])
    c = chain
    out = normalized_row_sums(
        x[rows] @ x.T, sq[rows], sq, rows, 1, c.inv2s2, c.lo, c.hi, c.diag, c.bad
    )
    np.testing.assert_allclose(out, np.c_[k2.sum(1), (k2**2).sum(1)][rows], atol=1e-12)


def np_tri_dist(g, sq_r, sq_c, row0, col0):
    """Twin of tri_dist_block: Σ sqrt(d²) and max d² over the pairs j > i of a block."""
    d2 = np.maximum(sq_r[:, None] + sq_c[None] - 2 * g, 0.0)
    upper = (col0 + np.arange(g.shape[1]))[None] > (row0 + np.arange(g.shape[0]))[:, None]
    return np.c_[(np.sqrt(d2) * upper).sum(1), (d2 * upper).max(1, initial=0.0)]


def np_accumulate(k0, row0, col0, sums, top, neg_bot):
    """Twin of the row side of gauss_rows_block (column side: pass k0.T): running row sums
    and the big_l largest and smallest values (j != i, smallest stored negated)."""
    big_l = top.shape[1]
    for r in range(k0.shape[0]):
        i = row0 + r
        sums[i] += [k0[r].sum(), (k0[r] ** 2).sum()]
        own = np.delete(k0[r], i - col0) if 0 <= i - col0 < k0.shape[1] else k0[r]
        top[i] = np.sort(np.r_[top[i], own])[::-1][:big_l]
        neg_bot[i] = np.sort(np.r_[neg_bot[i], -own])[::-1][:big_l]


@pytest.mark.kernels
@pytest.mark.parametrize("row0,col0", [(0, 0), (0, 8), (8, 0), (5, 9)])
def test_triangle_blocks_match_numpy(row0, col0, rng):
    x = rng.normal(size=(30, 4))
    x[12] = x[14]  # a duplicate: zero distance off the diagonal
    sq = (x**2).sum(1)
    rr, cc = slice(row0, row0 + 9), slice(col0, col0 + 13)
    g = x[rr] @ x[cc].T
    out = tri_dist_block(g.copy(), sq[rr], sq[cc], row0, col0)
    np.testing.assert_allclose(out, np_tri_dist(g, sq[rr], sq[cc], row0, col0), atol=1e-12)
    sums = rng.normal(size=(30, 2))
    lists = [np.full((30, 5), -np.inf) for _ in range(2)]
    for lst in lists:  # partly filled running lists from earlier blocks
        lst[:, :2] = np.sort(rng.uniform(-1, 1, size=(30, 2)), axis=1)[:, ::-1]
    ref = [sums.copy(), lists[0].copy(), lists[1].copy()]
    k0 = g.copy()
    gauss_rows_block(k0, sq[rr], sq[cc], row0, col0, 0.3, sums, *lists)
    d2 = np.maximum(sq[rr][:, None] + sq[cc][None] - 2 * g, 0.0)
    d2[(row0 + np.arange(9))[:, None] == (col0 + np.arange(13))[None]] = 0.0
    np.testing.assert_allclose(k0, np.exp(-0.3 * d2), atol=1e-14)
    np_accumulate(np.exp(-0.3 * d2), row0, col0, *ref)
    for got, want in zip([sums, *lists], ref, strict=True):
        np.testing.assert_allclose(got, want, atol=1e-12)
    accumulate_cols(k0, row0, col0, sums, *lists)
    np_accumulate(np.ascontiguousarray(k0.T), col0, row0, *ref)
    for got, want in zip([sums, *lists], ref, strict=True):
        np.testing.assert_allclose(got, want, atol=1e-12)


@pytest.mark.kernels
def test_scan_block_matches_numpy(rng):
    x = rng.normal(size=(25, 3))
    sq = (x**2).sum(1)
    ref = np.maximum(sq[:, None] + sq[None] - 2 * x @ x.T, 0)
    np.fill_diagonal(ref, 0)
    d2 = ref.copy()
    idx, val = np.zeros((25, 6), np.int64), np.zeros((25, 6))
    stats = scan_block(d2, 0, -1.0, idx, val)
    for i in range(25):
        order = [j for j in np.argsort(ref[i], kind="stable") if j != i][:6]
        np.testing.assert_array_equal(idx[i], order)
        np.testing.assert_allclose(val[i], ref[i, order])
    off = ~np.eye(25, dtype=bool)
    np.testing.assert_allclose(stats[:, 2], (np.sqrt(ref) * off).sum(1))
    np.testing.assert_allclose(stats[:, 4], ref.max(1))


@pytest.mark.kernels
def test_select_block_and_bound_are_valid(rng):
    nv, b, n, big_l = 3, 5, 30, 4
    kb = rng.normal(size=(nv, b, n))
    w = np.array([0.2, 0.5, 0.3])
    rows = np.arange(3, 3 + b)
    max_c = (nv + 1) * big_l
    idx, vals = np.zeros((b, max_c), np.int64), np.zeros((b, max_c, nv))
    cnt, bview = np.zeros(b, np.int64), np.zeros((b, nv))
    bref, bdir = np.zeros(b), np.zeros((b, nv))
    select_block(kb, w, rows, big_l, idx, vals, cnt, bview, bref, bdir)
    for q, i in enumerate(rows):
        a = np.tensordot(w, kb[:, q], 1)
        lists = [a, *kb[:, q]]
        top = set()
        for v in lists:
            v = v.copy()
            v[i] = -np.inf
            top |= set(np.argsort(-v, kind="stable")[:big_l].tolist())
        top = np.array(sorted(top))
        assert cnt[q] == top.size < n - 1
        np.testing.assert_array_equal(idx[q, : cnt[q]], top)
        np.testing.assert_allclose(vals[q, : cnt[q]], kb[:, q, top].T)
        out = np.setdiff1d(np.arange(n), np.r_[top, i])
        assert bref[q] == pytest.approx(a[out].max())
        np.testing.assert_allclose(bview[q], kb[:, q, out].max(axis=1))
        tilt = [(0.5 * a + 0.5 * nv * w[k] * kb[k, q])[out].max() for k in range(nv)]
        np.testing.assert_allclose(bdir[q], tilt)
        # the certificate's bound holds for any γ
        for _ in range(20):
            g2 = rng.dirichlet(np.ones(nv)) ** 2
            bound = left_out_bound(bview[q], bref[q], bdir[q], w, g2)
            assert bound >= np.tensordot(g2, kb[:, q, out], 1).max() - 1e-12


@pytest.mark.kernels
def test_sparse_solve_with_all_candidates_equals_dense(rng):
    views, _ = small_views(n=24)
    ks = np.stack([dense_kernel(x, "gaussian", 1.0)[0] for x in views])
    n = ks.shape[1]
    gamma = np.array([0.2, 0.5, 0.3])
    cols = np.array([[j for j in range(n) if j != i] for i in range(n)])
    vals = np.stack([ks[p][np.arange(n)[:, None], cols].ravel() for p in range(3)], axis=1)
    indptr = np.arange(0, n * (n - 1) + 1, n - 1)
    out = np.zeros(vals.shape[0])
    inf = np.full((n, 3), -np.inf)
    row_f, _, fail = sparse_graph_solve(
        indptr[:-1], indptr[1:], vals, inf, np.full(n, -np.inf), inf, np.ones((n, 3)), gamma**2, out
    )
    g_ref, f_ref, _ = np_graph(ks, gamma)
    assert not fail.any()
    np.testing.assert_allclose(
        out.reshape(n, n - 1), g_ref[np.arange(n)[:, None], cols], atol=1e-12
    )
    assert row_f.sum() == pytest.approx(f_ref, rel=1e-12)


# -- kernel chain: passes == dense ----------------------------------------------------------


@pytest.mark.parametrize("block", [None, 7, 25])
@pytest.mark.parametrize("force_exact", [False, True])
@pytest.mark.parametrize("kind", ["gaussian", "cosine"])
def test_passes_give_the_dense_chain(kind, force_exact, block, rng):
    x = np.abs(rng.normal(size=(60, 5))) if kind == "cosine" else rng.normal(size=(60, 5))
    if kind == "cosine":
        x[4] = 0.0  # a zero row: the knorm guard
        x = sp.csr_matrix(x)
    _, dense = dense_kernel(x, kind, 1.3)
    chain = drain(kernel_passes(x, kind, 1.3, force_exact=force_exact, n_top=5, block=block))
    for name in ("inv2s2", "lo", "hi", "t", "scale"):
        assert getattr(chain, name) == pytest.approx(getattr(dense, name), rel=1e-12, abs=1e-14)
    np.testing.assert_allclose(chain.r, dense.r, atol=1e-13)
    np.testing.assert_array_equal(chain.bad, dense.bad)


@pytest.mark.parametrize("n_top,extra", [(5, 0), (1, 1)])
def test_low_clip_is_exact_from_the_kept_smallest(n_top, extra, caplog):
    # a few K0 entries fall below μ − 4s (two in one row), so the clip raises them
    rng = np.random.default_rng(3)
    rng.uniform(size=(60, 5))
    x = rng.normal(size=(60, 5))
    _, dense = dense_kernel(x, "gaussian", 1.3)
    k0 = np.exp(-np.maximum(((x[:, None] - x[None]) ** 2).sum(-1), 0) * dense.inv2s2)
    assert (k0 < dense.lo).sum(1).max() == 2
    with caplog.at_level("INFO", logger="core.methods.rgmvc.kernel_matrices"):
        chain = drain(kernel_passes(x, "gaussian", 1.3, n_top=n_top, block=16))
    # with one kept value, only rows with a raised entry need their full rows
    flagged = int((k0 < dense.lo).any(1).sum())
    assert flagged < 60
    assert (f"exact clipped sums for {flagged} rows" in caplog.text) == bool(extra)
    for name in ("lo", "hi", "t", "scale"):
        assert getattr(chain, name) == pytest.approx(getattr(dense, name), rel=1e-12)
    np.testing.assert_allclose(chain.r, dense.r, atol=1e-13)


def test_constant_view_gives_none():
    assert dense_kernel(np.ones((10, 3)), "gaussian", 1.0) is None
    assert drain(kernel_passes(np.ones((10, 3)), "gaussian", 1.0)) is None


# -- the two paths agree --------------------------------------------------------------------


def test_sparse_path_equals_dense_path():
    views, _ = make_blobs_views(n=150, c=3, dims=(6, 9, 4), sep=2.0, seed=3)
    kw = {"random_state": 0, "n_init": 10}
    dense = RGMVC(3, path="dense", **kw).fit(views)
    # few candidates: forces re-selections and growth, which must not change anything
    sparse = RGMVC(3, path="sparse", n_candidates=6, **kw).fit(views)
    assert dense.path_ == "dense" and sparse.path_ == "sparse"
    assert sparse.n_reselected_ > 0
    np.testing.assert_allclose(sparse.objective_history_, dense.objective_history_, rtol=1e-11)
    np.testing.assert_allclose(sparse.view_weights_, dense.view_weights_, atol=1e-12)
    wd, ws = dense.anchor_graph_.toarray(), sparse.anchor_graph_.toarray()
    np.testing.assert_allclose(ws, wd, atol=1e-12)
    np.testing.assert_array_equal(sparse.labels_, dense.labels_)


def test_sparse_problem_certifies_every_row():
    views, _ = small_views(n=60, seed=2)
    ks, chains = zip(*[dense_kernel(x, "gaussian", 1.0) for x in views], strict=True)
    xs = list(views)
    prob = SparseProblem(xs, list(chains), 4)
    drain(prob.select_steps(np.full(3, 1 / 3)))
    dense = DenseProblem(np.stack(ks))
    for gamma in ([1 / 3] * 3, [0.7, 0.2, 0.1], [0.0, 0.5, 0.5], [1.0, 0.0, 0.0]):
        f_s, tr_s = prob.solve(np.array(gamma))
        f_d, tr_d = dense.solve(np.array(gamma))
        assert f_s == pytest.approx(f_d, rel=1e-11)
        np.testing.assert_allclose(tr_s, tr_d, rtol=1e-10, atol=1e-12)
        w_s, w_d = prob.graph(np.array(gamma)), dense.graph(np.array(gamma))
        np.testing.assert_allclose(w_s.toarray(), w_d.toarray(), atol=1e-12)
    assert prob.n_reselected > 0  # K = 4 is too small: growth happened and changed nothing


def test_vertex_solves_certify_with_per_view_lists():
    """Each view's own top-K is a candidate list, so G at a vertex of the simplex (the line
    search evaluates them) is certified without re-selection when its support is < K."""
    views, _ = small_views(n=60, seed=2)
    ks, chains = zip(*[dense_kernel(x, "gaussian", 1.0) for x in views], strict=True)
    prob = SparseProblem(list(views), list(chains), 24)
    drain(prob.select_steps(np.full(3, 1 / 3)))
    dense = DenseProblem(np.stack(ks))
    for p in range(3):
        gamma = np.eye(3)[p]
        dense.solve(gamma)
        support = (dense.g > 0).sum(axis=1).max()
        assert support < 24
        assert prob.solve(gamma)[0] == pytest.approx(dense.solve(gamma)[0], rel=1e-11)
        assert prob.fail_log[-1] == [0]
    assert prob.n_reselected == 0


def test_repeated_points_are_not_solved_again():
    views, _ = small_views(n=30)
    prob = DenseProblem(np.stack([dense_kernel(x, "gaussian", 1.0)[0] for x in views]))
    a = prob.solve(np.array([0.2, 0.3, 0.5]))
    b = prob.solve(np.array([0.2, 0.3, 0.5]))
    assert prob.n_solves == 1 and prob.n_cache_hits == 1 and a[0] == b[0]
    prob.solve(np.array([0.3, 0.3, 0.4]))
    w = prob.graph(np.array([0.2, 0.3, 0.5]))  # not the last solve: solved again
    assert prob.n_solves == 2
    assert w.sum() == pytest.approx(30.0)  # (G + Gᵀ)/2 of a row-stochastic G


def test_select_candidates_keeps_the_largest():
    views, _ = small_views(n=40, seed=1)
    ks, chains = zip(*[dense_kernel(x, "gaussian", 1.0) for x in views], strict=True)
    w = np.array([0.5, 0.3, 0.2])
    counts, idx, vals, *_ = drain(select_candidates(list(views), list(chains), w, 5))
    k = np.stack(ks)
    a = np.tensordot(w, k, 1)
    starts = np.r_[0, np.cumsum(counts)]
    for i in range(40):
        mine = idx[starts[i] : starts[i + 1]]
        top = set()
        for v in (a[i], *k[:, i]):
            v = v.copy()
            v[i] = -np.inf
            top |= set(np.argsort(-v, kind="stable")[:5].tolist())
        assert mine.tolist() == sorted(top)
        np.testing.assert_allclose(vals[starts[i] : starts[i + 1]], k[:, i, mine].T, atol=1e-12)


# -- reduced gradient -----------------------------------------------------------------------


def test_reduced_gradient_never_increases_and_reaches_minimum():
    target = np.array([0.6, 0.3, 0.1, 0.0])

    def f(g):
        return float(np.sum((g - target) ** 2))

    gamma = np.full(4, 0.25)
    values = [f(gamma)]
    for _ in range(200):
        grad = 2 * (gamma - target)
        gamma, val = reduced_gradient_step(gamma, grad, values[-1], f)
        assert val == pytest.approx(f(gamma))
        assert val <= values[-1] + 1e-15
        values.append(val)
    assert gamma.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(gamma, target, atol=1e-2)


def test_objective_non_increasing_and_weights_on_simplex():
    views, _ = make_blobs_views(n=120, c=4, dims=(5, 7, 3), sep=1.5, seed=5)
    s = RGMVC(4, random_state=1, n_init=5).fit(views)
    assert np.all(np.diff(s.objective_history_) <= 1e-10)
    assert s.view_weights_.sum() == pytest.approx(1.0)
    assert np.all(s.view_weights_ >= 0)
    assert s.effective_weights_.sum() == pytest.approx(1.0)


# -- toy, guards ----------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["dense", "sparse"])
def test_separated_blobs_are_recovered(path):
    views, labels = make_blobs_views(n=180, c=3, dims=(5, 8), sep=8.0, seed=0)
    s = RGMVC(3, path=path, n_candidates=16, n_init=5).fit(views)
    assert all_metrics(labels, s.labels_)["ari"] == 1.0


def test_a_pure_noise_view_does_not_break_the_clustering():
    views, labels = make_blobs_views(n=150, c=3, dims=(5, 5), sep=5.0, seed=4)
    noise = np.random.default_rng(9).normal(size=(150, 5))
    s = RGMVC(3, n_init=5).fit([*views, noise])
    assert all_metrics(labels, s.labels_)["ari"] > 0.95


def test_sparse_text_views_use_cosine_kernels():
    rng = np.random.default_rng(0)
    labels = np.repeat(np.arange(3), 30)
    views = []
    for _ in range(2):
        topics = rng.random((3, 60)) ** 8
        counts = rng.poisson(20 * topics[labels] / topics.sum(1, keepdims=True)[labels] * 3)
        counts[5] = 0  # an empty document
        views.append(sp.csr_matrix(counts.astype(float)))
    s = RGMVC(3, n_init=5).fit(views)
    assert s.kernels_ == ["cosine", "cosine"]
    assert all_metrics(labels, s.labels_)["acc"] > 0.9


def test_memory_refusal_names_the_estimate_and_limit():
    views, _ = make_blobs_views(n=600, c=3, dims=(2, 2))
    with pytest.raises(DataError, match=r"needs about 0\.0\d GB .* limit of 0\.01 GB"):
        RGMVC(3, path="dense", memory_limit_gb=0.01).fit(views)
    est = RGMVC.estimate_memory(50_000, [100, 300, 600], {"n_clusters": 10})
    assert RGMVC.choose_path(50_000, [100, 300, 600], {}) == "sparse"
    assert est < 4 * 2**30  # the 4 GB budget at n = 50k (measured peak: 2.2 GB)
    assert RGMVC.estimate_memory(2000, [10], {"path": "dense"}) > 8 * 2000**2


# -- benchmarks -----------------------------------------------------------------------------


@pytest.mark.datasets
def test_msrc_regression(benchmark_file):
    from core.data.io import load_dataset
    from core.data.preprocessing import preprocess

    data = load_dataset(benchmark_file("MSRC-v1_5view.mat"))
    views, _ = preprocess(data.views, "zscore")
    s = RGMVC(7).fit(views)
    m = all_metrics(data.labels, s.labels_)
    assert m["acc"] >= 0.74  # spec prototype 0.762
    assert np.all(np.diff(s.objective_history_) <= 1e-9)


@pytest.mark.datasets
def test_bbcsport_regression(benchmark_file):
    from core.data.io import load_dataset
    from core.data.preprocessing import preprocess

    data = load_dataset(benchmark_file("BBCSport.mat"))
    views, _ = preprocess(data.views, "tfidf")
    s = RGMVC(5).fit(views)
    assert all_metrics(data.labels, s.labels_)["acc"] >= 0.70


def test_automatic_bandwidth_is_local_on_features_and_explicit_values_win():
    from sklearn.datasets import make_moons

    from core.data.preprocessing import preprocess

    x, y = make_moons(200, noise=0.05, random_state=0)
    x2 = x + np.random.default_rng(1).normal(scale=0.05, size=x.shape)
    views, _ = preprocess([x, x2], "zscore")
    auto = RGMVC(2, n_init=5).fit(views)
    wide = RGMVC(2, n_init=5, bandwidth=1.0).fit(views)  # the spec's width: moons merge
    assert auto.resolved_params_["bandwidth"] == 0.5
    assert all_metrics(y, auto.labels_)["acc"] == 1.0
    assert all_metrics(y, wide.labels_)["acc"] < 0.95
    assert wide.resolved_params_["bandwidth"] == 1.0


def test_automatic_bandwidth_is_per_view_and_keeps_1_on_unit_norm_rows():
    from core.methods.rgmvc.automatic import auto_bandwidth

    views, _ = make_blobs_views(n=90, c=3, dims=(5, 6), sep=5.0, seed=2)
    hist = np.abs(views[1]) / np.linalg.norm(views[1], axis=1, keepdims=True)  # l2 rows
    hist[0] = 0.0  # an empty row keeps the view "unit norm"
    assert auto_bandwidth(hist) == 1.0
    assert auto_bandwidth(sp.csr_matrix(hist)) == 1.0
    assert auto_bandwidth(views[0]) == 0.5  # signed features
    assert auto_bandwidth(np.abs(views[0])) == 0.5  # non-negative, not unit norm
    s = RGMVC(3, n_init=5).fit([views[0], hist])
    assert s.resolved_params_["bandwidth"] == [0.5, 1.0]
