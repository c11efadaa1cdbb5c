"""A first run against a later one, and the light commands (issue 27 item 3).

Each method gets an empty numba cache folder (``NUMBA_CACHE_DIR``) and runs twice on the demo
data, ``mvc run --demo --method M --quiet``: the first run compiles the kernels (and says so
on stderr, core/cli/compile_notice.py), the second loads them from the folder. A third empty
folder is filled the app's way first, by the solver child's warm-up while the window waits
(``mvc_gui.run.warm.warm_kernels``), and the run after it is timed. Then ``mvc --help``,
``mvc methods`` and ``mvc info --demo`` (median of ``--repeat``), which import no solver.

    python benchmarks/first_run.py [--methods fmdc ...] [--repeat 5] [--json out.json]
    python benchmarks/first_run.py --code /tmp/old  # the light commands of another checkout

Wall seconds on a busy machine mostly measure the machine: CPU seconds (user + sys of the
command) are printed beside them. The issue's targets: a first run within 2x the warm one,
or compiled before the user asks (the app's warm-up); ``mvc --help`` under 1 s.
docs/benchmarks/first_run.md has the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTICE = "compiling the solvers once"
#: what the app's solver child does while the window waits for the first Run
_WARM_UP = """import sys
from mvc_gui.run.warm import warm_kernels
warm_kernels(sys.argv[1], lambda: False)
"""


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd: list[str], env: dict[str, str], cwd: Path = ROOT) -> dict[str, object]:
    """Wall and CPU seconds of one command, and whether it said it compiles."""
    cpu, t0 = _child_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr}")
    return {"wall": wall, "cpu": _child_cpu() - cpu, "notice": NOTICE in proc.stderr}


def mvc(*args: str) -> list[str]:
    return [sys.executable, "-m", "core.cli", *args]


def first_and_later(method: str, env: dict[str, str]) -> dict[str, object]:
    run = mvc("run", "--demo", "--method", method, "--quiet")
    with tempfile.TemporaryDirectory() as cold, tempfile.TemporaryDirectory() as warmed:
        first = timed(run, {**env, "NUMBA_CACHE_DIR": cold})
        later = timed(run, {**env, "NUMBA_CACHE_DIR": cold})
        warm_up = timed(
            [sys.executable, "-c", _WARM_UP, method], {**env, "NUMBA_CACHE_DIR": warmed}
        )
        after = timed(run, {**env, "NUMBA_CACHE_DIR": warmed})
    return {"first": first, "later": later, "app_warm_up": warm_up, "after_warm_up": after}


def light(code: Path, repeat: int, env: dict[str, str]) -> dict[str, dict[str, float]]:
    env = {**env, "PYTHONPATH": str(code)}
    out = {}
    with tempfile.TemporaryDirectory() as home:
        env["XDG_CACHE_HOME"] = home  # `mvc methods` keeps its copy of the table here
        out["methods (first)"] = timed(mvc("methods"), env, code)
        for name in ("--help", "methods", "info --demo"):
            runs = [timed(mvc(*name.split()), env, code) for _ in range(repeat)]
            out[name] = {k: statistics.median(r[k] for r in runs) for k in ("wall", "cpu")}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--methods", nargs="+", default=["fmdc"])
    ap.add_argument("--repeat", type=int, default=5, help="runs of each light command")
    ap.add_argument("--code", type=Path, nargs="*", default=[], help="other checkouts")
    ap.add_argument("--no-runs", action="store_true", help="the light commands only")
    ap.add_argument("--json", type=Path, help="write the numbers here")
    args = ap.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("NUMBA_DISABLE_JIT", None)
    result: dict[str, object] = {"load_average": os.getloadavg(), "cpus": os.cpu_count()}
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if not args.no_runs:
        for method in args.methods:
            r = first_and_later(method, env)
            result[method] = r
            f, later, w, a = r["first"], r["later"], r["app_warm_up"], r["after_warm_up"]
            print(
                f"{method}: first run {f['wall']:.1f} s ({f['cpu']:.1f} s CPU, notice "
                f"{'yes' if f['notice'] else 'NO'}), later {later['wall']:.1f} s "
                f"({later['cpu']:.1f} s CPU, notice {'YES' if later['notice'] else 'no'}): "
                f"ratio {f['wall'] / later['wall']:.1f}x wall, {f['cpu'] / later['cpu']:.1f}x "
                f"CPU; compiling {f['cpu'] - later['cpu']:.1f} s CPU"
            )
            print(
                f"{method}: app warm-up {w['wall']:.1f} s ({w['cpu']:.1f} s CPU), the run "
                f"after it {a['wall']:.1f} s ({a['cpu']:.1f} s CPU, notice "
                f"{'YES' if a['notice'] else 'no'}): {a['wall'] / later['wall']:.1f}x the later run"
            )
    for code in [ROOT, *args.code]:
        numbers = light(code, args.repeat, env)
        result[f"light {code}"] = numbers
        for name, t in numbers.items():
            print(f"{code}: mvc {name}: {t['wall']:.2f} s wall, {t['cpu']:.2f} s CPU")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
