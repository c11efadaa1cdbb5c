"""Choosing k without labels: the estimate against the true class count, held out by file.

    MVC_DATASETS=../shared/datasets python benchmarks/choose_k.py [--files A.mat,B.mat]
        [--seed 0] [--out docs/benchmarks/choose_k.md] [--recompute] [--scale-check]
        [--preprocessing tfidf_text,tfidf_text_binary_l2]

Cases: every labelled shared file (the damaged copy of BBC4view skipped; ``auto``
preprocessing, as a solver sees it) and two constructions whose k is known by design:

* ``blobs-40``: 40 Gaussian classes of 25-75 samples (n about 2,000) in a 16-dim latent
  space, seen through three views of 64, 48 and 32 features with noise 0.5, 1 and 2;
* ``classes-100``: the same with 100 classes of 15-45 samples (n about 3,000): a stand-in for
  a 100-class image set (many small classes, views of unequal quality), as real 100-class
  files are not in shared/.

And issue 11's 100-class proxies of 16 samples a class (``benchmarks/hundred_classes.py``):
``proxy-100x16`` (make_synthetic, latent separation 1.5; the peers reach ACC 0.80-0.86) and
``digit-pairs-100`` (pairs of scikit-learn's digit images: real images, classes that share a
digit overlap; the best method reaches ACC 0.48 there, so it is shown, not required).

For each case the evidence of ``core.numerics.n_clusters`` is computed once (cached in
/tmp/choose_k_cache): the multi-scale spectra for 5, 10 and 15 neighbours, the gap-score
curve for each size weight, its six best candidates and their stability. Any rule of the
grid (neighbours x size weight x candidates compared x gap share x stability threshold x
alternatives shown: the estimate's neighbours or distinct peaks) is then read from that
evidence exactly as ``estimate_n_clusters`` computes it.

**Held out**: for each shared file the rule is chosen on the other 24 files (score: exact 1,
within 25 % and true k among the top three 0.6 each), among the rules that put both
constructions and proxy-100x16 within 25 % of their k; ties go to the estimator's defaults.
Nested: the neighbour count is chosen first by a leave-one-out on those 24 files, then the
thresholds for it on the 24. The figures quoted are those of the held-out rules. The in-sample rule
(best on all 25) is the estimator's default; its figures are given too, marked in-sample.

``--scale-check`` times the default estimator on 100,000 samples (make_synthetic, 3 views).
``--preprocessing RULES`` reads the evidence also on views preprocessed by other ``auto``
rules (the methods' text-aware ones) and makes the preprocessing one more dimension of the
held-out rule, chosen with the neighbour count (the result is kept for later runs).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import defaultdict
from datetime import date
from itertools import combinations, product
from pathlib import Path

import numpy as np

from _common import DOCS, datasets_dir, git_rev, machine
from core.data.atomic import atomic_write
from core.data.io import load_dataset
from core.data.preprocessing import preprocess
from core.numerics.n_clusters import (
    ALTERNATIVES,
    POOL,
    anchor_scales,
    distinct_shown,
    estimate_n_clusters,
    neighbours_shown,
    rank_candidates,
    scale_spectra,
)

SKIP = {"BBC4view__corrupt_tail.mat"}  # the same data as BBC4view.mat, damaged on purpose
CONSTRUCTIONS = {"blobs-40": (40, 50), "classes-100": (100, 30)}
#: issue 11's two 100-class proxies (benchmarks/hundred_classes.py, 16 samples a class)
PROXIES = {"proxy-100x16": "synthetic", "digit-pairs-100": "digits"}
#: what every rule must put within 25 % of k: the constructions and the synthetic proxy (its
#: classes are clusters: the peers reach ACC 0.80-0.86); the digit pairs are only shown (the
#: best method reaches 0.48: their classes are hardly clusters)
REQUIRED = {*CONSTRUCTIONS, "proxy-100x16"}
NOT_FILE = {
    **dict.fromkeys(REQUIRED, "default (required within 25 %)"),
    "digit-pairs-100": "default (shown, not required)",
}
NEIGHBORS = (5, 10, 15)
SIZE_WEIGHTS = (0.0, 0.1, 0.2, 0.3, 0.5)
N_CANDIDATES = (3, 4, 6)
GAP_SHARES = (0.3, 0.5, 0.7, 0.9)
STABILITIES = (0.6, 0.7, 0.8, 0.9)
RULES = list(product(NEIGHBORS, SIZE_WEIGHTS, N_CANDIDATES, GAP_SHARES, STABILITIES, ALTERNATIVES))
#: estimate_n_clusters' defaults (the in-sample rule)
DEFAULT_RULE = (5, 0.1, 3, 0.3, 0.9, "neighbours")
WEIGHTS = np.array([1.0, 0.6, 0.6])  # exact, within 25 %, among the top three
GRAPH_ROWS = 20_000  # estimate_n_clusters' graph_rows: the scales are those of n <= 20,000
SEPARABLE_ACC = 0.75  # below this no method finds the classes as clusters
CACHE = Path("/tmp/choose_k_cache")


def many_classes(c: int, per: int, seed: int = 0) -> tuple[list[np.ndarray], np.ndarray]:
    """c classes of per/2 .. 3 per/2 samples, 16-dim latent Gaussians (centres' scale 2)
    mapped into three views of 64, 48 and 32 features with noise 0.5, 1 and 2."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(per // 2, per * 3 // 2 + 1, size=c)
    y = np.repeat(np.arange(c), sizes)
    latent = rng.normal(scale=2.0, size=(c, 16))[y] + rng.normal(size=(y.size, 16))
    views = []
    for d, noise in ((64, 0.5), (48, 1.0), (32, 2.0)):
        w = rng.normal(size=(16, d)) / 4.0
        views.append(latent @ w + noise * rng.normal(size=(y.size, d)))
    return views, y


def labelled_files() -> list[str]:
    return sorted(p.name for p in datasets_dir().glob("*.mat") if p.name not in SKIP)


def case_views(name: str, auto_rule: str = "general") -> tuple[list | None, np.ndarray | None]:
    """(views with ``auto`` preprocessing under ``auto_rule``, labels); (None, None) without
    labels."""
    if name in CONSTRUCTIONS:
        views, y = many_classes(*CONSTRUCTIONS[name])
        return preprocess(views, "auto", auto_rule)[0], y
    if name in PROXIES:
        from hundred_classes import make_proxy

        proxy = make_proxy(PROXIES[name], 0)
        return preprocess(proxy.views, "auto", auto_rule)[0], proxy.labels
    ds = load_dataset(datasets_dir() / name)
    if ds.labels is None:
        return None, None
    return preprocess(ds.views, "auto", auto_rule)[0], ds.labels


def evidence(
    name: str, seed: int, recompute: bool = False, auto_rule: str = "general"
) -> dict | None:
    """The estimator's evidence on one case for every rule of the grid (cached)."""
    tag = "" if auto_rule == "general" else f".{auto_rule}"
    path = CACHE / f"{name}.seed{seed}{tag}.json"
    if path.exists() and not recompute:
        return json.loads(path.read_text())
    views, y = case_views(name, auto_rule)
    if views is None:
        return None
    out = {"case": name, "n": int(y.size), "c": int(np.unique(y).size), "by": {}}
    for nn in NEIGHBORS:
        spectra = scale_spectra(views, seed, n_neighbors=nn)
        stab: dict[int, float] = {}
        for sw in SIZE_WEIGHTS:
            curve = spectra.curve(sw)
            order = np.argsort(-curve, kind="stable")[: max(*N_CANDIDATES, POOL)]
            cands = [int(spectra.k_min + i) for i in order]
            for k in cands:
                if k not in stab:
                    stab[k] = spectra.stability(k)
            ks = np.arange(spectra.k_min, spectra.k_min + curve.size)
            rank_c = int(np.sum(curve > curve[out["c"] - 2])) + 1 if out["c"] in ks else 0
            out["by"][f"{nn}/{sw}"] = {
                "candidates": cands,
                "scores": [float(curve[i] / curve[order[0]]) for i in order],
                "stability": [stab[k] for k in cands],
                "rank_c": rank_c,
            }
        out["scales"] = spectra.scales
    CACHE.mkdir(exist_ok=True)
    atomic_write(path, json.dumps(out))
    return out


def apply_rule(ev: dict, rule: tuple) -> list[int]:
    """The ranked candidates ``estimate_n_clusters`` gives with this rule's settings."""
    nn, sw, n_cand, share, tau, alternatives = rule
    e = ev["by"][f"{nn}/{sw}"]
    c, g, s = e["candidates"][:n_cand], e["scores"][:n_cand], e["stability"][:n_cand]
    ranked = [c[i] for i in rank_candidates(c, g, s, share, tau)]
    if alternatives == "distinct":
        return distinct_shown(ranked, e["candidates"])
    k_max = max(hi for _, hi in anchor_scales(min(ev["n"], GRAPH_ROWS)))
    return neighbours_shown(ranked, 2, k_max)


def hits(ranked: list[int], c: int) -> np.ndarray:
    return np.array([ranked[0] == c, abs(ranked[0] - c) <= 0.25 * c, c in ranked[:3]], float)


def held_out(
    cases: dict[str, dict], variants: dict[str, dict[str, dict]] | None = None
) -> tuple[dict[str, tuple], tuple, dict[str, tuple]]:
    """Per shared file the rule chosen without it and what that rule gives, nested: the
    neighbour count by an inner leave-one-out on the other files, then the thresholds on the
    other files. Also the in-sample rule (best on all files) and, for comparison, the flat
    choice (all rules at once on the other files, which overfits). Rules must put every
    construction within 25 % of its k; ties go to the estimator's defaults.

    ``variants`` (preprocessing rule -> its evidence per case, ``cases`` being ``general``'s)
    makes the preprocessing the estimate reads one more dimension of the rule, chosen with
    the neighbour count; the rules returned then start with it."""
    every_variant = {"general": cases, **(variants or {})}
    files = [n for n in cases if n not in CONSTRUCTIONS and n not in PROXIES]
    built = [n for n in cases if n in REQUIRED]

    def case(rule: tuple, name: str) -> dict:
        return every_variant[rule[0]].get(name, cases[name])

    rules = [
        (v, *r)
        for v in every_variant
        for r in RULES
        if all(hits(apply_rule(case((v,), b), r), cases[b]["c"])[1] for b in built)
    ]
    score = np.array(
        [
            [hits(apply_rule(case(r, f), r[1:]), cases[f]["c"]) @ WEIGHTS for f in files]
            for r in rules
        ]
    )
    default_rule = ("general", *DEFAULT_RULE)
    default = rules.index(default_rule) if default_rule in rules else None

    def best(among: list[int], cols: list[int]) -> int:
        totals = np.round(score[np.ix_(among, cols)].sum(axis=1), 6)  # ties despite rounding
        if default in among and totals[among.index(default)] == totals.max():
            return default
        return among[int(np.argmax(totals))]

    groups: dict[tuple, list[int]] = defaultdict(list)
    for i, r in enumerate(rules):
        groups[r[:2]].append(i)  # (preprocessing, neighbour count)
    every = list(range(len(rules)))
    nested, flat = {}, {}
    strip = (lambda r: r[1:]) if variants is None else (lambda r: r)

    def outcome(rule: tuple, name: str) -> tuple[tuple, list[int]]:
        return strip(rule), apply_rule(case(rule, name), rule[1:])

    for f, name in enumerate(files):
        rest = [x for x in range(len(files)) if x != f]
        inner = {
            g: round(sum(score[best(idx, [x for x in rest if x != i]), i] for i in rest), 6)
            for g, idx in groups.items()
        }
        top = max(inner.values())
        g = default_rule[:2] if inner.get(default_rule[:2]) == top else max(inner, key=inner.get)
        nested[name] = outcome(rules[best(groups[g], rest)], name)
        flat[name] = outcome(rules[best(every, rest)], name)
    return nested, strip(rules[best(every, list(range(len(files))))]), flat


def preprocessing_check(cases: dict[str, dict], seed: int, auto_rules: list[str]) -> dict:
    """The estimate read on views preprocessed by other ``auto`` rules (e.g. tf-idf for
    text, as the methods' own rules do): per rule the default estimator's hits and the nested
    held-out choice between ``general`` and that rule (and among all of them, ``all``)."""
    from core.data.preprocessing import choose_auto

    variants: dict[str, dict[str, dict]] = {}
    changed: dict[str, list[str]] = {}
    for rule in auto_rules:
        variants[rule], changed[rule] = {}, []
        for name in cases:
            if name in CONSTRUCTIONS or name in PROXIES:
                continue  # dense real views: every rule reads them as ``general`` does
            views = load_dataset(datasets_dir() / name).views
            if [choose_auto(x, rule) for x in views] != [choose_auto(x) for x in views]:
                variants[rule][name] = evidence(name, seed, auto_rule=rule)
                changed[rule].append(name.removesuffix(".mat"))
    files = [n for n in cases if n not in CONSTRUCTIONS and n not in PROXIES]

    def totals(outcomes: dict[str, tuple]) -> list[int]:
        return [int(v) for v in sum(hits(outcomes[f][1], cases[f]["c"]) for f in files)]

    out = {}
    for rule in [*auto_rules, "all"]:
        chosen = variants if rule == "all" else {rule: variants[rule]}
        nested, _, _ = held_out(cases, chosen)
        picks: dict[str, int] = defaultdict(int)
        for r, _ranked in nested.values():
            picks[r[0]] += 1
        entry = {"held_out": totals(nested), "picks": dict(picks)}
        if rule != "all":
            default = {
                f: (None, apply_rule(variants[rule].get(f, cases[f]), DEFAULT_RULE)) for f in files
            }
            moved = {
                f: hits(default[f][1], cases[f]["c"]) @ WEIGHTS
                - hits(apply_rule(cases[f], DEFAULT_RULE), cases[f]["c"]) @ WEIGHTS
                for f in variants[rule]
            }
            entry |= {
                "default": totals(default),
                "files": changed[rule],
                "better": [f.removesuffix(".mat") for f, d in moved.items() if d > 0],
                "worse": [f.removesuffix(".mat") for f, d in moved.items() if d < 0],
            }
        out[rule] = entry
    return {"date": str(date.today()), "commit": git_rev(), "rules": out}


def failure_class(c: int, k: int, top3: list[int], best_acc: float | None) -> str:
    if k == c:
        return "right"
    if abs(k - c) <= 0.25 * c:
        return "within 25 %"
    if best_acc is not None and best_acc < SEPARABLE_ACC:
        return "classes are not clusters (best ACC with the true k < 0.75)"
    if c in top3:
        return "true k among the top three, another ranked first"
    return "no gap at the true k in the anchor graphs"


def best_with_true_k() -> dict[str, tuple[str, float]]:
    """Per file: the method or peer with the best mean ACC at the true k (defaults.csv)."""
    import csv

    path = DOCS / "defaults.csv"
    if not path.exists():
        return {}
    runs = defaultdict(list)
    for r in csv.DictReader(path.open()):
        runs[(r["file"], r["method"])].append(float(r["acc"]))
    best: dict[str, tuple[str, float]] = {}
    for (name, method), accs in runs.items():
        if name not in best or np.mean(accs) > best[name][1]:
            best[name] = (method, float(np.mean(accs)))
    return best


def scale_check(seed: int) -> dict:
    from core.data.demo import make_synthetic

    ds = make_synthetic(100_000, (100, 300, 600), 10, seed)
    t0 = time.perf_counter()
    est = estimate_n_clusters(preprocess(ds.views, "auto")[0], seed)
    return {"n": 100_000, "c": 10, "ranked": est.ranked, "seconds": time.perf_counter() - t0}


def preprocessing_lines(prep: dict, n: int, general: list[int]) -> list[str]:
    """The section on reading the estimate on differently preprocessed views."""
    lines = [
        "## Preprocessing the estimate reads",
        "",
        f"`--preprocessing {','.join(r for r in prep['rules'] if r != 'all')}` on "
        f"{prep['date']}, commit {prep['commit']} (kept for later runs without it). "
        "The estimate reads the views as the `general` rule preprocesses them (l2 for counts, "
        "z-score for mixed scales). This check reads it also on the views of "
        "the methods' text-aware rules and lets the held-out choice pick the preprocessing "
        "with the neighbour count (figures: exact / within 25 % / among the three shown, of "
        f"{n}; general alone: the headline above):",
        "",
        "| preprocessing | files it changes | default estimator (all files) | better / worse there "
        "| held out, general or it | folds that pick it |",
        "|---|---|---|---|---|---|",
    ]
    for rule, e in prep["rules"].items():
        fig = " / ".join(str(v) for v in e["held_out"])
        picked = sum(c for r, c in e["picks"].items() if r != "general")
        if rule == "all":
            lines.append(f"| any of them | | | | {fig} | {picked} |")
            continue
        moved = f"{', '.join(e['better']) or '-'} / {', '.join(e['worse']) or '-'}"
        lines.append(
            f"| `{rule}` | {', '.join(e['files'])} | {' / '.join(str(v) for v in e['default'])}"
            f" | {moved} | {fig} | {picked} |"
        )
    beats = [
        r
        for r, e in prep["rules"].items()
        if np.dot(e["held_out"], WEIGHTS) > np.dot(general, WEIGHTS)
    ]
    lines += [
        "",
        f"A held-out choice beats `general` with {', '.join(beats)}: a candidate for the "
        "estimator's default."
        if beats
        else "No held-out choice beats `general`, so the estimate keeps reading `general` "
        "views (better / worse: the default estimator's hits, weighted as the rule choice "
        "weighs them, against `general` on the files the rule changes).",
    ]
    return lines


def fmt_rule(rule: tuple) -> str:
    nn, sw, n_cand, share, tau, alternatives = rule
    return f"{nn} nb, k^{sw:g}, {n_cand} cand, gap {share:g}, stab {tau:g}, {alternatives}"


def table(
    cases: dict[str, dict], command: str, timing: dict | None, prep: dict | None = None
) -> str:
    chosen, in_rule, flat = held_out(cases)
    files = sorted(chosen)
    best = best_with_true_k()
    ho = sum(hits(chosen[f][1], cases[f]["c"]) for f in files)
    ins = sum(hits(apply_rule(cases[f], in_rule), cases[f]["c"]) for f in files)
    fl = sum(hits(flat[f][1], cases[f]["c"]) for f in files)
    old = (7, 6, 10)  # the 64-anchor estimator (this file's previous version, fitted / held out)
    n = len(files)
    pct = [f"{int(v)}/{n} ({100 * v / n:.0f} %)" for v in ho]
    # yardstick: the best constant answer (no data at all), chosen on these files
    truth = np.array([cases[f]["c"] for f in files])
    const_ex = max(int(np.sum(truth == k)) for k in range(2, 17))
    const_near = max(int(np.sum(np.abs(truth - k) <= 0.25 * truth)) for k in range(2, 17))
    const_top3 = max(int(np.isin(truth, trio).sum()) for trio in combinations(range(2, 17), 3))
    lines = [
        "# Choosing the number of clusters without labels",
        "",
        f"`{command}` on {date.today()}, {machine()}, commit {git_rev()}, "
        f"load {os.getloadavg()[0]:.1f}. Method and protocol: the script's docstring.",
        "",
        "Estimate (`core.numerics.n_clusters.estimate_n_clusters`): anchor graphs at 64, "
        "128, ... up to min(1024, n / 2) anchors; at m anchors the eigengap after k is read "
        "for k <= m / 4 (and n / 5), divided by that scale's largest gap, averaged over the "
        "scales that read k and multiplied by k^w: the gap score. The best-scoring k are the "
        "candidates; among those scoring at least a share of the best, the largest k whose "
        "subsample clusterings agree (stability, mean pairwise ARI) comes first. The range "
        "grows with n up to k = 256 (the 64-anchor estimator stopped at 32).",
        "",
        f"**Held out by file ({n} shared files): exact {pct[0]}, within 25 % of the true k "
        f"{pct[1]}, true k among the three candidates shown {pct[2]}.** Targets (issue 25): "
        ">= 35 %, >= 65 %, >= 75 %.",
        "",
        f"In-sample (the rule chosen on all {n} files, the estimator's default: "
        f"{fmt_rule(in_rule)}): exact {int(ins[0])}/{n}, within 25 % {int(ins[1])}/{n}, "
        f"top three {int(ins[2])}/{n}. The 64-anchor estimator it replaces: exact "
        f"{old[0]}/25 in-sample, {old[1]}/25 held out; true k among its three candidates "
        f"{old[2]}/25.",
        "",
        "Yardstick: the best constant answer for every file, with no data at all (chosen on "
        f"these files' class counts, which bunch at 5-7): exact {const_ex}/{n}, within 25 % "
        f"{const_near}/{n}, a constant three {const_top3}/{n}. On the shared files the "
        "estimator is only a little above it; it differs where the class count is far from "
        "5-7 (the digits' 10, WebKB's 2, Synthetic3d's 3, and the 40 and 100 of the "
        "constructions, which a constant cannot get).",
        "",
        "The headline figure is nested: the neighbour count (5, 10, 15) first, by its own "
        "leave-one-out on the 24 files, then the thresholds for that count on the 24 files. "
        f"All {len(RULES)} rules compared at once on the 24 files (flat) give "
        f"{int(fl[0])} / {int(fl[1])} / {int(fl[2])} of {n}.",
        "",
        "Two choices were made looking at held-out figures, and are said here: (1) the second "
        "and third candidates shown differ from the first and from each other by at least 2 "
        "(`distinct_shown`): with only blobs-40 and classes-100 required, the rule's own "
        "order gave 8 / 14 / 13 held out (flat 6 / 12 / 10), the gap-score order 9 / 15 / 13, "
        "distinct alternatives 11 / 17 / 14 (flat 9 / 15 / 12); (2) proxy-100x16 was then "
        "added to the required cases, as the estimator answered 2 on it (95 and 82 shown as "
        "alternatives): requiring it gives 12 / 18 / 14 held out, and a steadier choice of "
        "rule (flat, nested and in-sample agree); (3) on 2026-11-29 the alternatives became a "
        "dimension of the rule grid (the estimate's neighbours k - 1 and k + 1, or the distinct "
        "peaks), proposed because the six held-out misses within 25 % were all one off and "
        "the distinct peaks held the true k on two files only (3Sources, "
        "BBCSport__tfidf_fea_gt). Every held-out fold picks the neighbours, which give the "
        "figures above: the true k among the three shown on 18 files instead of 14, the "
        "estimate itself unchanged. Resampling the estimate instead (the first of seed 0, "
        "then the answers of seeds 1-4 by frequency) gave 12 / 18 / 17 at five times the "
        "cost.",
        "",
        "| case | n | true k | held out: k (also plausible) | rule chosen without this file "
        "| default: candidates (gap score; stability) | gap-score rank of the true k "
        "| best ACC with the true k | failure class |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    classes = defaultdict(list)
    for name in sorted(cases, key=lambda x: (x in CONSTRUCTIONS, x in PROXIES, x)):
        ev = cases[name]
        c = ev["c"]
        rule = chosen[name][0] if name in chosen else DEFAULT_RULE
        ranked = chosen[name][1] if name in chosen else apply_rule(ev, DEFAULT_RULE)
        d = ev["by"][f"{DEFAULT_RULE[0]}/{DEFAULT_RULE[1]}"]
        cands = ", ".join(
            f"{k} ({g:.2f}; {s:.2f})"
            for k, g, s in zip(d["candidates"], d["scores"], d["stability"], strict=True)
        )
        stem = name.removesuffix(".mat")
        acc = best.get(stem)
        mark = "" if ranked[0] == c else (" (25 %)" if abs(ranked[0] - c) <= 0.25 * c else " ✗")
        fclass = failure_class(c, ranked[0], ranked[:3], acc[1] if acc else None)
        if name in chosen:
            classes[fclass].append(f"{stem} {c}→{ranked[0]}")
        lines.append(
            f"| {stem} | {ev['n']} | {c} | {ranked[0]}{mark} ({', '.join(map(str, ranked[1:3]))})"
            f" | {fmt_rule(rule) if name in chosen else NOT_FILE.get(name, '')} | {cands} "
            f"| {d['rank_c']} | {f'{acc[1]:.2f} ({acc[0]})' if acc else ''} | {fclass} |"
        )
    lines += ["", "## Failure classes (held out)", ""]
    for name, items in sorted(classes.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"* **{name}** ({len(items)}): {', '.join(items)}")
    if prep:
        lines += ["", *preprocessing_lines(prep, len(files), [int(v) for v in ho])]
    if timing:
        lines += [
            "",
            "## Cost at n = 100,000",
            "",
            f"`--scale-check`{' (kept from its last run)' if not timing.get('now') else ''}: "
            f"make_synthetic(100,000 samples, views of 100/300/600 features, 10 clusters): "
            f"estimate {timing['ranked']} in {timing['seconds']:.1f} s (graphs on 20,000 "
            "random rows, scales up to 1024 anchors, 2 shared cores under load).",
        ]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", help="comma-separated case names (default: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(DOCS / "choose_k.md"))
    ap.add_argument("--recompute", action="store_true", help="ignore the evidence cache")
    ap.add_argument("--scale-check", action="store_true", help="time n = 100,000")
    ap.add_argument(
        "--preprocessing",
        metavar="RULES",
        help="also read the estimate on views preprocessed by these auto rules "
        "(comma-separated, e.g. tfidf_text,tfidf_text_binary_l2), held out",
    )
    args = ap.parse_args()
    names = args.files.split(",") if args.files else [*labelled_files(), *CONSTRUCTIONS, *PROXIES]
    cases = {}
    for name in names:
        t0 = time.perf_counter()
        ev = evidence(name, args.seed, args.recompute)
        if ev:
            cases[name] = ev
            d = ev["by"][f"{DEFAULT_RULE[0]}/{DEFAULT_RULE[1]}"]
            print(
                f"{name:28s} c={ev['c']:3d} default {apply_rule(ev, DEFAULT_RULE)[:3]} "
                f"(rank of c {d['rank_c']}) {time.perf_counter() - t0:.1f} s",
                flush=True,
            )
    timing = {**scale_check(args.seed), "now": True} if args.scale_check else None
    json_path = DOCS / "choose_k.json"
    old = json.loads(json_path.read_text()) if json_path.exists() else {}
    old = old if isinstance(old, dict) else {}
    if timing is None:
        timing = old.get("scale_check")
    prep = old.get("preprocessing_check")
    if args.preprocessing:
        prep = preprocessing_check(cases, args.seed, args.preprocessing.split(","))
    chosen, in_rule, flat = held_out(cases)
    record = {
        "seed": args.seed,
        "default_rule": DEFAULT_RULE,
        "in_sample_rule": in_rule,
        "held_out": {f: {"rule": r, "ranked": k} for f, (r, k) in chosen.items()},
        "held_out_flat": {f: {"rule": r, "ranked": k} for f, (r, k) in flat.items()},
        "cases": cases,
        "scale_check": {k: v for k, v in timing.items() if k != "now"} if timing else None,
        "preprocessing_check": prep,
    }
    atomic_write(json_path, json.dumps(record))  # one line: the evidence is long
    command = "MVC_DATASETS=../shared/datasets python benchmarks/choose_k.py"
    out = table(cases, command + (" --scale-check" if args.scale_check else ""), timing, prep)
    atomic_write(args.out, out)
    print(out)


if __name__ == "__main__":
    main()
