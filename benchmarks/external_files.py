"""Files nobody tuned on: the automatic rules (each method's ``auto`` preprocessing, and
``n_clusters="auto"``) on 13 public multi-view benchmark files that are not in shared/.

Every rule was chosen on the shared files (held out by file among them); these files played no
part in any choice, so they are the plainest test of whether the rules carry over.

    MVC_EXTERNAL_DATASETS=/path/to/files python benchmarks/external_files.py [--k] [--grid]
        [--methods fmdc,...] [--files 100Leaves,...] [--out docs/benchmarks/external_files.md]

Getting the files (public GitHub repositories, at the commits below; ``SOURCES`` names each
file's repository and path):

    git clone https://github.com/weilyshmtu/Multi-view-DataSets   # commit 300b5178
    git clone https://github.com/Code706/DATASETS-Multi-view      # commit 6eff822b
    git clone https://github.com/Xuchen2020/NpMSC                 # commit eeb6e964

then copy the files of ``SOURCES`` into one folder (ORL from NpMSC, COIL20 and LandUse-21 from
DATASETS-Multi-view, the rest from Multi-view-DataSets). Files of those repositories that are
copies of shared files (20NewsGroups = NGs, MSRC-v1, UCI, Wikipedia = Wiki_fea, BBC =
BBC4view, ORL_4views = ORL) are left out.

``--k``: the estimate (``auto`` preprocessing, seed 0) against the class count: exact, within
25 %, the true k among the three shown; cached in docs/benchmarks/external_k.json.

``--grid``: each method with every fixed preprocessing setting, its ``auto`` rule and its rule
before issue 25, true k, seed 0 (``preprocess_grid.run_grid``, cells appended to
docs/benchmarks/external_grid.csv as they end, resumable). The table: the rule's regret against
the best fixed setting (the issue's yardstick, within 0.05), the previous rule's, and the
default's ACC against the best peer default (k-means on the concatenation, anchor-sc).
``--grid --seed 1`` (and 2) re-runs the files of ``SMALL`` (or of ``--files``) with another
seed; the table averages the seeds a file has complete.

``--grid --every-candidate`` runs every candidate rule of the shared grid too, and
``--pooled`` (with MVC_DATASETS set as well) then chooses each file's rule leave-one-file-out
over the shared files and these together (``preprocess_grid.held_out`` on both).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import date
from pathlib import Path

import numpy as np

from _common import DOCS, ROOT, git_rev, machine

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from preprocess_grid import (
    BASELINES,
    FIXED,
    GRID_METHODS,
    PREVIOUS_RULES,
    _acc,
    choices_by_file,
    read_grid,
    run_grid,
)

from core.data.atomic import atomic_write
from core.data.io import load_dataset
from core.data.preprocessing import preprocess
from core.numerics.n_clusters import estimate_n_clusters

WEILY = "weilyshmtu/Multi-view-DataSets@300b5178"
#: file -> where it comes from (repository@commit: path)
SOURCES = {
    "100Leaves": f"{WEILY}: 100Leaves.mat",
    "CCV": f"{WEILY}: CCV.mat",
    "COIL20": "Code706/DATASETS-Multi-view@6eff822b: COIL20.mat",
    "Cornell": f"{WEILY}: Cornell.mat",
    "LandUse-21": "Code706/DATASETS-Multi-view@6eff822b: LandUse-21.mat",
    "Movies": f"{WEILY}: Movies.mat",
    "ORL": "Xuchen2020/NpMSC@eeb6e964: ORL.mat",
    "Prokaryotic": f"{WEILY}: Prokaryotic.mat",
    "ProteinFold": f"{WEILY}: ProteinFold.mat",
    "Scene-15": f"{WEILY}: Scene-15.mat",
    "Texas": f"{WEILY}: Texas.mat",
    "Washington": f"{WEILY}: Washington.mat",
    "Wisconsin": f"{WEILY}: Wisconsin.mat",
}
FILES = tuple(SOURCES)
GRID_CSV = DOCS / "external_grid.csv"
K_JSON = DOCS / "external_k.json"
SEEDS = (0, 1, 2)
#: files of at most 1,100 samples, where one run's ACC moves most with the seed: every cell
#: also runs with seeds 1 and 2 (``--grid --seed S``), and the table averages the seeds
SMALL = (
    "Cornell",
    "Movies",
    "ORL",
    "Prokaryotic",
    "ProteinFold",
    "Texas",
    "Washington",
    "Wisconsin",
)


def external_dir() -> Path:
    root = os.environ.get("MVC_EXTERNAL_DATASETS")
    if not root:
        sys.exit("set MVC_EXTERNAL_DATASETS to the folder with the files of SOURCES")
    return Path(root)


def _kept(method: str, name: str) -> bool:
    """The settings the grid runs here: the fixed ones, the rule, the rule before issue 25."""
    from core.methods import REGISTRY

    rule = REGISTRY[method].auto_preprocessing
    return name in FIXED or name in (f"rule:{rule}", f"rule:{PREVIOUS_RULES.get(method, rule)}")


def estimate_k(files, seed: int) -> dict[str, dict]:
    """Each file's estimate (cached; a file already in the cache is not estimated again)."""
    cache = json.loads(K_JSON.read_text()) if K_JSON.exists() else {}
    for name in files:
        if name in cache:
            continue
        ds = load_dataset(str(external_dir() / f"{name}.mat"))
        est = estimate_n_clusters(preprocess(ds.views, "auto")[0], seed)
        cache[name] = {
            "n": ds.n_samples,
            "c": ds.n_classes,
            "shown": [int(k) for k in est.ranked[:3]],  # what every front end shows
            "k": int(est.k),
            "seconds": round(float(est.seconds), 2),
        }
        print(name, cache[name], flush=True)
        atomic_write(K_JSON, json.dumps(cache, indent=1))
    return cache


def k_table(cache: dict[str, dict], files) -> list[str]:
    rows = [
        "| file | n | true k | estimate (also plausible) | exact | within 25 % | among the three |",
        "|---|---|---|---|---|---|---|",
    ]
    hits = np.zeros(3, int)
    for name in files:
        r = cache[name]
        shown = r["shown"]
        c, k = r["c"], r["k"]
        got = np.array([k == c, abs(k - c) <= 0.25 * c, c in shown])
        hits += got
        mark = ["✓" if g else "" for g in got]
        others = ", ".join(str(x) for x in shown if x != k)
        rows.append(f"| {name} | {r['n']} | {c} | {k} ({others}) | {' | '.join(mark)} |")
    n = len(files)
    rows.append(f"| **all** | | | | **{hits[0]}/{n}** | **{hits[1]}/{n}** | **{hits[2]}/{n}** |")
    return rows


def _settings_acc(grid, m, x, by, rule, prev):
    """(fixed settings' ACC, the rule's, the previous rule's) on one seed, or None until all
    have run (a file is averaged over the seeds it has complete)."""
    fixed = {n: _acc(grid, m, x, by[n]) for n in FIXED}
    cur, was = _acc(grid, m, x, by[rule]), _acc(grid, m, x, by[prev])
    if cur is None or was is None or any(v is None for v in fixed.values()):
        return None
    return fixed, cur, was


def grid_table(methods, files) -> list[str]:
    from core.methods import REGISTRY

    grids = [read_grid(GRID_CSV, seed) for seed in SEEDS]
    table = choices_by_file(files, methods)
    rows = [
        "| method | rule | files | rule within 0.05 of the best fixed setting | median regret | "
        "previous rule within 0.05 | median | default ACC >= best peer default - 0.05 | "
        "mean ACC: default / previous rule / best fixed setting |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    per_file = [
        "| method | file | default (rule) | previous rule | best fixed setting | "
        "best peer default | seeds |",
        "|---|---|---|---|---|---|---|",
    ]
    peer_rule = {b: f"rule:{REGISTRY[b].auto_preprocessing}" for b in BASELINES}
    for m in methods:
        rule = f"rule:{REGISTRY[m].auto_preprocessing}"
        prev = f"rule:{PREVIOUS_RULES.get(m, REGISTRY[m].auto_preprocessing)}"
        reg, reg_prev, at_peer, accs, seeds_used = [], [], [], [], []
        for x in files:
            by = table[m, x]
            done = [(g, _settings_acc(g, m, x, by, rule, prev)) for g in grids]
            done = [(g, r) for g, r in done if r is not None]
            runs = [r for _, r in done]
            if not runs:
                continue
            fixed = {n: float(np.mean([r[0][n] for r in runs])) for n in FIXED}
            cur = float(np.mean([r[1] for r in runs]))
            was = float(np.mean([r[2] for r in runs]))
            seeds_used.append(len(runs))
            best_name = max(fixed, key=fixed.get)
            top = fixed[best_name]
            reg.append(top - cur)
            reg_prev.append(top - was)
            accs.append((cur, was, top))
            peers = []
            for b in BASELINES:
                got = [_acc(g, b, x, table[b, x][peer_rule[b]]) for g, _ in done]
                if all(a is not None for a in got):
                    peers.append(float(np.mean(got)))
            peer = max(peers) if peers else None
            if peer is not None and m not in BASELINES:
                at_peer.append(cur >= peer - 0.05)
            per_file.append(
                f"| {m} | {x} | {cur:.3f} ({top - cur:+.3f}) | {was:.3f} | "
                f"{best_name} {top:.3f} | {'-' if peer is None else f'{peer:.3f}'} | "
                f"{len(runs)} |"
            )
        if not reg:
            continue
        n = len(reg)
        mean = np.mean(accs, axis=0)
        peer_s = f"{sum(at_peer)}/{len(at_peer)}" if at_peer else "-"
        rows.append(
            f"| {m} | {rule.removeprefix('rule:')} | {n} | {sum(r <= 0.05 for r in reg)}/{n} | "
            f"{np.median(reg):.3f} | {sum(r <= 0.05 for r in reg_prev)}/{n} | "
            f"{np.median(reg_prev):.3f} | {peer_s} | "
            f"{mean[0]:.3f} / {mean[1]:.3f} / {mean[2]:.3f} |"
        )
    return [*rows, "", *per_file]


def pooled_k() -> list[str]:
    """benchmarks/choose_k.py's held-out choice of the estimator's rule, over the shared files
    and these together (MVC_DATASETS pointing to a folder of both)."""
    import choose_k

    names = [f"{x}.mat" for x in FILES]
    cases = {}
    for name in [*choose_k.labelled_files(), *choose_k.CONSTRUCTIONS, *choose_k.PROXIES]:
        ev = choose_k.evidence(name, 0)
        if ev is not None:
            cases[name] = ev
    nested, _, _ = choose_k.held_out(cases)
    rows = [
        "| files | exact | within 25 % | true k among the three shown |",
        "|---|---|---|---|",
    ]
    for label, group in (
        ("shared", [f for f in nested if f not in names]),
        ("these", [f for f in nested if f in names]),
        ("all", list(nested)),
    ):
        h = sum(choose_k.hits(nested[f][1], cases[f]["c"]) for f in group)
        n = len(group)
        rows.append(
            f"| {label} ({n}) | {h[0]:.0f} ({100 * h[0] / n:.0f} %) | "
            f"{h[1]:.0f} ({100 * h[1] / n:.0f} %) | {h[2]:.0f} ({100 * h[2] / n:.0f} %) |"
        )
    return [
        f"## The number of clusters, leave one file out over the shared files and these "
        f"{len(FILES)} together",
        "",
        "Each file's rule (neighbours, size weight, thresholds, alternatives shown) chosen on "
        "the other files by `benchmarks/choose_k.py`'s nested procedure, the constructions "
        "required within 25 % as there:",
        "",
        *rows,
    ]


def pooled_held_out(methods, shared: Path) -> list[str]:
    """``preprocess_grid.held_out`` over the shared files and these together: one folder of
    links to both sets and one grid of both CSVs (in a temporary folder)."""
    import tempfile

    import defaults
    from preprocess_grid import GRID_CSV as SHARED_GRID
    from preprocess_grid import held_out

    with tempfile.TemporaryDirectory() as tmp:
        pool = Path(tmp)
        for path in shared.glob("*.mat"):  # every labelled file: choose_k reads them all
            (pool / path.name).symlink_to(path)
        for name in FILES:
            (pool / f"{name}.mat").symlink_to(external_dir() / f"{name}.mat")
        grid = pool / "grid.csv"
        with grid.open("w") as out:
            for i, part in enumerate((SHARED_GRID, GRID_CSV)):
                text = part.read_text().splitlines(keepends=True)
                out.writelines(text if i == 0 else text[1:])
        os.environ["MVC_DATASETS"] = str(pool)
        table = held_out(methods, [*defaults.FILES, *FILES], grid, pool / "none.csv")
        k_lines = pooled_k()
    summary = table.split("\n\n")[0]
    return [
        *k_lines,
        "",
        f"## Preprocessing, leave one file out over the {len(defaults.FILES)} shared files "
        f"and these {len(FILES)} together",
        "",
        "`--pooled`: each file's rule chosen among every candidate on the other "
        f"{len(defaults.FILES) + len(FILES) - 1} (the shared grid's candidates, every one "
        "run on these files too with `--grid --every-candidate`); the small files of both "
        "sets on 3-seed means.",
        "",
        summary,
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--k", action="store_true", help="estimate k on every file")
    ap.add_argument("--grid", action="store_true", help="run the missing preprocessing cells")
    ap.add_argument("--methods", default=",".join(GRID_METHODS))
    ap.add_argument("--files", help="default: every file (with --seed 1 or 2: the small ones)")
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--every-candidate",
        action="store_true",
        help="with --grid: every candidate rule of the shared grid, not only the method's rule",
    )
    ap.add_argument(
        "--pooled",
        action="store_true",
        help="leave-one-file-out over the shared and these files together (needs MVC_DATASETS)",
    )
    ap.add_argument("--out", default=str(DOCS / "external_files.md"))
    args = ap.parse_args()
    files = args.files.split(",") if args.files else list(SMALL if args.seed else FILES)
    methods = args.methods.split(",")
    bad = [x for x in files if x not in SOURCES] + [m for m in methods if m not in GRID_METHODS]
    if bad:
        sys.exit(f"unknown files or methods {bad}")
    shared = os.environ.get("MVC_DATASETS")
    # preprocess_grid reads files by name from MVC_DATASETS, in its workers too
    os.environ["MVC_DATASETS"] = str(external_dir())
    if args.k:
        estimate_k(files, args.seed)
    if args.grid:
        run_grid(
            methods,
            files,
            GRID_CSV,
            Path("/nonexistent"),
            args.processes,
            seed=args.seed,
            every_cell=bool(args.seed),
            only=None if args.every_candidate else _kept,
        )
    lines = [
        "# Files nobody tuned on",
        "",
        f"`MVC_EXTERNAL_DATASETS=... python benchmarks/external_files.py` on {date.today()}, "
        f"{machine()}, commit {git_rev()}, load {os.getloadavg()[0]:.1f}. Files and how to get "
        "them: the script's docstring. What the figures say: docs/tuning.md (the number of "
        "clusters) and docs/benchmarks/defaults.md (preprocessing). No rule was changed after "
        "seeing these files.",
        "",
    ]
    if K_JSON.exists():
        cache = json.loads(K_JSON.read_text())
        lines += ["## Number of clusters", "", *k_table(cache, [x for x in FILES if x in cache])]
    if GRID_CSV.exists():
        title = "## Preprocessing and defaults (true k; mean over the seeds each file has run)"
        lines += ["", title, ""]
        lines += grid_table([m for m in GRID_METHODS if m in methods], list(FILES))
    if args.pooled:
        if not shared:
            sys.exit("--pooled needs MVC_DATASETS: the shared files are half of the pool")
        lines += ["", *pooled_held_out([m for m in GRID_METHODS if m in methods], Path(shared))]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        atomic_write(Path(args.out), text)


if __name__ == "__main__":
    main()
