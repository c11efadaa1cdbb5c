"""Same seed, same labels: every method on the shared files with 1 thread, with 2 threads,
and again with 2 threads beside a busy process (issue 27 item 2).

    MVC_DATASETS=... python benchmarks/determinism.py [--methods dtll,fmdc]
        [--files Handwritten,MNIST-4] [--skip mvsc-hfd:WebKB,rg-mvc:ACM] [--no-load]
        [--work /tmp/mvc-determinism] [--doc docs/benchmarks/determinism.md]

Every labelled ``.mat`` file in $MVC_DATASETS (or ``--files``), every method (or
``--methods``), as ``mvc run FILE --method M --seed 0`` runs it: ``auto`` preprocessing, the
defaults, k = the true class count. Each pass is one child process per file whose thread
counts are set in its environment before anything is imported (NUMBA_NUM_THREADS,
OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, MKL_NUM_THREADS): ``1t`` with 1, ``2t`` with 2 and
``again`` with 2 once more, with a busy loop on one core beside it (``--no-load``: without).
The labels must be equal as arrays, not up to a permutation; where they are not, the table
gives the ARI between the runs. A method that refuses a file (its own check of the size or
the parameters, or an estimated peak memory above the memory available) is listed with the
reason; ``--skip method:file`` leaves out a cell that is only too slow for the run at hand.
Results are kept in ``--work`` per (file, pass), so an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

from _common import DOCS, ROOT, datasets_dir, git_rev, machine

PASSES = {"1t": 1, "2t": 2, "again": 2}
THREAD_VARS = ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
METHODS = ("kmeans-concat", "anchor-sc", "fmdc", "dtll", "mvsc-hfd", "alpc", "rg-mvc")
DOC = DOCS / "determinism.md"
NOTES = "<!-- notes below: kept when benchmarks/determinism.py writes the table again -->"


def child(path: str, methods: list[str], out: str) -> None:
    """Run ``methods`` on the file at ``path`` (in this process's thread settings) and write
    {method: {"labels": [...]} or {"refused": reason} or {"error": text}, "_threads": ...}."""
    import numba

    from core.data.dataset import DataError
    from core.data.io import load_dataset
    from core.data.preprocessing import preprocess
    from core.methods import REGISTRY
    from core.methods.params import ParamError
    from core.numerics.threads import blas_threads

    result: dict = {"_threads": {"numba": numba.get_num_threads(), "blas": blas_threads()}}
    ds = load_dataset(path)
    if ds.labels is None:
        result["_unlabelled"] = True
        Path(out).write_text(json.dumps(result))
        return
    from core.data.streamed import available_ram

    avail = available_ram()
    for name in methods:
        cls = REGISTRY[name]
        t0 = time.perf_counter()
        try:
            views, _ = preprocess(ds.views, "auto", cls.auto_preprocessing)
            params = {"n_clusters": ds.n_classes, "random_state": 0}
            need = cls.estimate_memory(ds.n_samples, [x.shape[1] for x in views], params)
            if avail is not None and need > avail:
                raise DataError(f"needs ~{need / 2**30:.1f} GB, {avail / 2**30:.1f} GB available")
            solver = cls.from_params(params)
            solver.fit(views)
            result[name] = {"labels": [int(v) for v in solver.labels_]}
        except (DataError, ParamError) as exc:
            result[name] = {"refused": str(exc)}
        except Exception as exc:
            result[name] = {"error": f"{type(exc).__name__}: {exc}"}
        result[name]["seconds"] = round(time.perf_counter() - t0, 2)
    Path(out).write_text(json.dumps(result))


def _hog() -> subprocess.Popen:
    """A busy loop on one core (the load of the ``again`` pass)."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def run_pass(path: Path, methods: list[str], threads: int, out: Path, load: bool) -> None:
    env = {**os.environ, **{k: str(threads) for k in THREAD_VARS}}
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), str(ROOT / "benchmarks"), env.get("PYTHONPATH", "")]
    )
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(path)]
    cmd += ["--methods", ",".join(methods), "--out", str(out)]
    hog = _hog() if load else None
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    finally:
        if hog is not None:
            hog.kill()
            hog.wait()
    if proc.returncode != 0 or not out.exists():
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        err = {"error": f"child exited with {proc.returncode}: {' | '.join(tail)}"}
        out.write_text(json.dumps(dict.fromkeys(methods, err)))


def labelled_files(root: Path) -> list[Path]:
    """Every .mat file in the folder, smallest first (unlabelled ones are reported by the
    children and left out of the table)."""
    return sorted(root.glob("*.mat"), key=lambda p: (p.stat().st_size, p.name))


def ari(a: list[int], b: list[int]) -> float:
    from sklearn.metrics import adjusted_rand_score

    return float(adjusted_rand_score(a, b))


def cell(results: dict[str, dict], method: str) -> tuple[str, str]:
    """(kind, text) of one (method, file) over the passes: kind is identical / differs /
    refused / error / not run."""
    runs = {p: r.get(method) for p, r in results.items()}
    if any(v is None for v in runs.values()):
        return "not run", "not run"
    for p, v in runs.items():
        if "refused" in v:
            return "refused", f"refused ({p}): {v['refused']}"
    for p, v in runs.items():
        if "error" in v:
            return "error", f"error ({p}): {v['error']}"
    base = runs["1t"]["labels"]
    diffs = [
        f"{p} ARI {ari(base, v['labels']):.4f}" for p, v in runs.items() if v["labels"] != base
    ]
    if runs["2t"]["labels"] != runs["again"]["labels"]:
        diffs.append(f"2t vs again ARI {ari(runs['2t']['labels'], runs['again']['labels']):.4f}")
    return ("differs", "differs: " + ", ".join(diffs)) if diffs else ("identical", "identical")


def table(files: list[str], methods: list[str], work: Path) -> tuple[str, dict[str, int], list]:
    lines = ["| file | " + " | ".join(methods) + " |", "|---|" + "---|" * len(methods)]
    counts: dict[str, int] = {}
    notes = []
    for f in files:
        results = {}
        for p in PASSES:
            out = work / f"{f}.{p}.json"
            results[p] = json.loads(out.read_text()) if out.exists() else {}
        if any(r.get("_unlabelled") for r in results.values()):
            continue
        row = []
        for m in methods:
            kind, text = cell(results, m)
            counts[kind] = counts.get(kind, 0) + 1
            if kind in ("identical", "not run"):
                row.append(text)
            else:
                row.append(kind if len(text) > 40 else text)
                if len(text) > 40:
                    notes.append(f"{m} on {f}: {text}")
        lines.append(f"| {f} | " + " | ".join(row) + " |")
    return "\n".join(lines), counts, notes


def seconds(files: list[str], methods: list[str], work: Path) -> dict[str, float]:
    total = dict.fromkeys(PASSES, 0.0)
    for f in files:
        for p in PASSES:
            out = work / f"{f}.{p}.json"
            if out.exists():
                res = json.loads(out.read_text())
                total[p] += sum(res.get(m, {}).get("seconds", 0.0) for m in methods)
    return total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--files", default="", help="file names without .mat (default: all)")
    ap.add_argument("--skip", default="", help="method:file cells left out (too slow here)")
    ap.add_argument("--no-load", action="store_true", help="no busy loop beside 'again'")
    ap.add_argument("--work", default="/tmp/mvc-determinism", help="kept results (resume)")
    ap.add_argument("--doc", default=str(DOC), help="'' for no document")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    methods = [m for m in args.methods.split(",") if m]
    if args.child:
        child(args.child, methods, args.out)
        return 0
    from core.methods import REGISTRY

    bad = [m for m in methods if m not in REGISTRY]
    if bad:
        sys.exit(f"unknown methods {bad}; choose from {sorted(REGISTRY)}")
    root = datasets_dir()
    paths = labelled_files(root)
    if args.files:
        wanted = args.files.split(",")
        missing = [f for f in wanted if not (root / f"{f}.mat").exists()]
        if missing:
            sys.exit(f"not in {root}: {missing}")
        paths = [root / f"{f}.mat" for f in wanted]
    skip = {tuple(s.split(":", 1)) for s in args.skip.split(",") if s}
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    t_start = time.perf_counter()
    for path in paths:
        todo = [m for m in methods if (m, path.stem) not in skip]
        for p, threads in PASSES.items():
            out = work / f"{path.stem}.{p}.json"
            done = json.loads(out.read_text()) if out.exists() else {}
            missing = [m for m in todo if m not in done]
            if done.get("_unlabelled") or not missing:
                continue
            t0 = time.perf_counter()
            part = out.with_suffix(".part")  # only the missing methods, merged below
            run_pass(path, missing, threads, part, load=(p == "again" and not args.no_load))
            res = {**done, **json.loads(part.read_text())}
            out.write_text(json.dumps(res))
            part.unlink()
            state = "unlabelled" if res.get("_unlabelled") else res.get("_threads", "failed")
            print(f"{path.stem:26s} {p:5s} {time.perf_counter() - t0:7.1f} s  {state}", flush=True)
    files = [p.stem for p in paths]
    text, counts, notes = table(files, methods, work)
    print(text)
    summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    print(f"\n{summary}")
    for n in notes:
        print(n)
    if args.doc:
        write_doc(Path(args.doc), text, summary, notes, files, methods, args, work, t_start)
    return 0


def write_doc(path, text, summary, notes, files, methods, args, work, t_start) -> None:
    secs = seconds(files, methods, work)
    command = "MVC_DATASETS=../shared/datasets python benchmarks/determinism.py"
    for flag in ("methods", "files", "skip"):
        value = getattr(args, flag)
        if value and not (flag == "methods" and value == ",".join(METHODS)):
            command += f" --{flag} {value}"
    if args.no_load:
        command += " --no-load"
    fit = ", ".join(f"{p} {v / 60:.1f} min" for p, v in secs.items())
    body = [
        "# Same seed, same labels: 1 thread, 2 threads, and again under load",
        "",
        "Every method with its defaults (seed 0, `auto` preprocessing, k = the true class "
        "count, as `mvc run`) on the shared files, in three child processes per file: `1t` "
        "with NUMBA/OMP/OPENBLAS/MKL_NUM_THREADS=1, `2t` with 2, `again` with 2 once more "
        + ("" if args.no_load else "beside a busy loop on one core ")
        + "(labels compared as arrays, not up to a permutation; ARI where they differ).",
        "",
        "    " + command,
        "",
        text,
        "",
        f"Cells: {summary}.",
    ]
    if notes:
        body += ["", *[f"* {n}" for n in notes]]
    body += [
        "",
        f"Fit time summed over the cells: {fit}.",
        "",
        f"{date.today()}, commit {git_rev()}, {machine()}, load {os.getloadavg()[0]:.1f}.",
        "",
    ]
    # the hand-written part below the marker is kept when the table is written again
    old = path.read_text() if path.exists() else ""
    if NOTES in old:
        body += [NOTES + old.split(NOTES, 1)[1].rstrip("\n"), ""]
    path.write_text("\n".join(body))
    print(f"wrote {path}")


if __name__ == "__main__":
    raise SystemExit(main())
