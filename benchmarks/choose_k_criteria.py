"""Choosing k: every cheap label-free criterion against the true class count, file by file.

    MVC_DATASETS=../shared/datasets python benchmarks/choose_k_criteria.py [--files A,B]

The evidence behind the default estimator (``core.numerics.n_clusters``): for every labelled
shared file (``auto`` preprocessing) it builds the multi-view anchor graph as the estimator
does (m = 64 anchors, 5 neighbours) and scores k = 2 .. min(16, m/2, n/5) by

* eigengap: the largest gap of the normalised anchor-graph spectrum (m x m);
* multi-scale vote: the eigengap's k over m in {32, 64, 128} x neighbours {3, 5, 10} x 2
  seeds of the anchors, the most frequent one (stability of the gap across graphs);
* per-view vote: the eigengap of each view's own anchor graph, the most frequent one;
* silhouette: of k-means on the row-normalised k-dim spectral embedding (2000 rows);
* prediction strength (Tibshirani & Walther 2005): k-means on two halves of the embedding,
  the share of test pairs kept together by the training centroids, worst cluster; the
  largest k with strength >= 0.8;
* rotation (after Zelnik-Manor & Perona 2004): the row-normalised embedding rotated to its
  best indicator (Yu & Shi's alternating discretisation); mean squared largest entry, the k
  with the best alignment;

next to the default estimate (eigengap candidates + subsample stability) and its runner-up,
and the criteria of benchmarks/choose_k_more.py (other graphs, a k-dependent graph, GMM-BIC,
the gap statistic, cross-view agreement, gap x stability, the median over anchor seeds).
Results (Markdown, JSON cache beside it): docs/benchmarks/choose_k_criteria.md.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from datetime import date

import numpy as np
from choose_k import labelled_files, labelled_views
from choose_k_more import MORE, more_picks
from sklearn.metrics import silhouette_score

from _common import DOCS, git_rev, machine
from core.data.atomic import atomic_write
from core.numerics.graphs import normalize_anchor_graph
from core.numerics.kmeans import kmeans_labels
from core.numerics.n_clusters import (
    anchor_graph_spectrum,
    estimate_n_clusters,
    multiview_anchor_graph,
)

CRITERIA = ("default", "eigengap", "multi-scale vote", "per-view vote", "silhouette")
CRITERIA += ("prediction strength", "rotation", *MORE)


def _gap_k(views, m: int, knn: int, seed: int, k_hi: int) -> int:
    vals, _ = anchor_graph_spectrum(
        multiview_anchor_graph(views, m, knn, np.random.default_rng(seed))
    )
    hi = min(k_hi, vals.size - 2)
    return int(np.argmax(vals[1:hi] - vals[2 : hi + 1])) + 2


def _mode(values: list[int]) -> int:
    vals, counts = np.unique(values, return_counts=True)
    return int(vals[np.argmax(counts)])


def prediction_strength(emb: np.ndarray, k: int, rng: np.random.Generator) -> float:
    """Tibshirani & Walther's strength: worst test cluster's share of pairs kept together."""
    perm = rng.permutation(emb.shape[0])
    train, test = emb[perm[: perm.size // 2]], emb[perm[perm.size // 2 :]]
    lab_tr = kmeans_labels(train, k, rng, n_init=3)
    lab_te = kmeans_labels(test, k, rng, n_init=3)
    cent = np.array([train[lab_tr == j].mean(0) for j in range(k) if np.any(lab_tr == j)])
    pred = np.argmin(((test[:, None, :] - cent[None]) ** 2).sum(-1), axis=1)
    shares = []
    for j in range(k):
        idx = np.flatnonzero(lab_te == j)
        if idx.size >= 2:
            counts = np.bincount(pred[idx])
            shares.append(np.sum(counts * (counts - 1)) / (idx.size * (idx.size - 1)))
    return float(min(shares)) if shares else 0.0


def rotation_alignment(emb: np.ndarray, k: int, n_iter: int = 30) -> float:
    """Mean squared largest entry of the best-rotated row-normalised embedding (1 = ideal)."""
    x = emb / np.maximum(np.linalg.norm(emb, axis=1, keepdims=True), 1e-12)
    rot = np.eye(k)
    for _ in range(n_iter):
        ind = np.zeros_like(x)
        ind[np.arange(x.shape[0]), np.argmax(x @ rot, axis=1)] = 1.0
        u, _, vt = np.linalg.svd(x.T @ ind)
        rot = u @ vt
    return float(np.mean(np.max(x @ rot, axis=1) ** 2))


def run_file(name: str) -> dict:
    ds, views = labelled_views(name)
    if ds is None:
        return {}
    t0 = time.perf_counter()
    n = views[0].shape[0]
    est = estimate_n_clusters(views, 0)
    rng = np.random.default_rng(0)
    m = 2 ** int(np.floor(np.log2(min(n, 64))))
    z = multiview_anchor_graph(views, m, 5, rng)
    vals, vecs = anchor_graph_spectrum(z)
    k_hi = int(min(16, m // 2, n // 5))
    ks = list(range(2, k_hi + 1))
    rows = rng.choice(n, size=min(n, 2000), replace=False)
    emb = np.asarray(normalize_anchor_graph(z)[rows] @ vecs[:, :k_hi])
    emb = emb / np.sqrt(np.maximum(vals[:k_hi], 1e-12))
    sil, ps, rot = {}, {}, {}
    for k in ks:
        e = emb[:, :k] / np.maximum(np.linalg.norm(emb[:, :k], axis=1, keepdims=True), 1e-12)
        lab = kmeans_labels(e, k, rng, n_init=3)
        sil[k] = float(silhouette_score(e, lab)) if len(set(lab)) > 1 else -1.0
        ps[k] = prediction_strength(e, k, rng)
        rot[k] = rotation_alignment(emb[:, :k], k)
    scales = [
        _gap_k(views, mm, knn, seed, k_hi)
        for mm in (32, 64, 128)
        if mm <= n
        for knn in (3, 5, 10)
        for seed in (0, 1)
    ]
    per_view = [_gap_k([v], m, 5, 0, k_hi) for v in views]
    strong = [k for k in ks if ps[k] >= 0.8]
    picks = {
        "default": est.k,
        "eigengap": int(np.argmax(vals[1:k_hi] - vals[2 : k_hi + 1])) + 2,
        "multi-scale vote": _mode(scales),
        "per-view vote": _mode(per_view),
        "silhouette": max(ks, key=sil.get),
        "prediction strength": max(strong) if strong else 2,
        "rotation": max(ks, key=rot.get),
    }
    picks |= more_picks(views, emb, vals, m, ks, picks["eigengap"])
    return {
        "file": name,
        "n": n,
        "c": int(ds.n_classes),
        "runner_up": est.runner_up,
        "picks": picks,
        "eigenvalues": [round(float(v), 4) for v in vals[: k_hi + 2]],
        "seconds": round(time.perf_counter() - t0, 1),
    }


def table(rows: list[dict]) -> str:
    def mark(k: int, c: int) -> str:
        return f"{k}" if k == c else (f"{k} (±1)" if abs(k - c) <= 1 else f"{k} ✗")

    lines = [
        "# Choosing k: every cheap criterion against the true class count",
        "",
        f"`MVC_DATASETS=../shared/datasets python benchmarks/choose_k_criteria.py` on "
        f"{date.today()}, {machine()}, commit {git_rev()}, load {os.getloadavg()[0]:.1f}. "
        "Criteria: see the script's docstring; `default` is `estimate_n_clusters` (eigengap "
        "candidates confirmed by subsample stability). ✗: off by more than 1.",
        "",
        "| criterion | = true c | within ±1 |",
        "|---|---|---|",
    ]
    for crit in CRITERIA:
        ex = sum(r["picks"][crit] == r["c"] for r in rows)
        near = sum(abs(r["picks"][crit] - r["c"]) <= 1 for r in rows)
        lines.append(f"| {crit} | {ex}/{len(rows)} | {near}/{len(rows)} |")

    # the same k for every file, the best one: what the class counts alone give
    def hits(k: int) -> tuple[int, int]:
        return sum(r["c"] == k for r in rows), sum(abs(r["c"] - k) <= 1 for r in rows)

    const = max(range(2, 17), key=hits)
    ex, near = hits(const)
    n = len(rows)
    lines.append(f"| constant k = {const} for every file (no data) | {ex}/{n} | {near}/{n} |")
    lines += [
        "",
        "| file | n | true c | " + " | ".join(CRITERIA) + " | runner-up | eigenvalues 1..6 |",
        "|---|---|---|" + "---|" * (len(CRITERIA) + 2),
    ]
    for r in rows:
        cells = " | ".join(mark(r["picks"][c], r["c"]) for c in CRITERIA)
        curve = ", ".join(f"{v:.2f}" for v in r["eigenvalues"][:6])
        lines.append(
            f"| {r['file']} | {r['n']} | {r['c']} | {cells} | {r['runner_up']} | {curve} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", help="comma-separated file names (default: all labelled)")
    args = ap.parse_args()
    cache = DOCS / "choose_k_criteria.json"
    rows = {r["file"]: r for r in json.loads(cache.read_text())} if cache.exists() else {}
    for name in args.files.split(",") if args.files else labelled_files():
        row = run_file(name)
        if row:
            rows[name] = row
            print(json.dumps(row), flush=True)
            atomic_write(cache, json.dumps([rows[k] for k in sorted(rows)], indent=1))
    ordered = [rows[k] for k in sorted(rows)]
    atomic_write(DOCS / "choose_k_criteria.md", table(ordered))
    print(table(ordered))


if __name__ == "__main__":
    main()
