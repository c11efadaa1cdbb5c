"""The numba cache folder follows every kernel source file, not only the caller's own."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

from core.numerics.jit.config import KEEP_CACHES, kernel_sources_digest, prune_old_caches

CALLEE = "from numba import njit\n\n@njit(cache=True)\ndef callee(x):\n    return x + {step}\n"
CALLER = textwrap.dedent(
    """
    from numba import njit
    from kernels.callee import callee

    @njit(cache=True)
    def caller(x):
        return callee(x) * 10
    """
)


def _package(root, step: int) -> None:
    pkg = root / "kernels"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "caller.py").write_text(CALLER)
    (pkg / "callee.py").write_text(CALLEE.format(step=step))


def _caller_result(root, cache) -> int:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(root)}
    env.pop("NUMBA_DISABLE_JIT", None)
    code = "from kernels.caller import caller; print(caller(1))"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return int(out.stdout.split()[-1])


def test_a_changed_callee_reaches_its_cached_caller(tmp_path):
    root, base = tmp_path / "src", tmp_path / "cache"
    root.mkdir()
    _package(root, step=1)
    first = kernel_sources_digest(root, ("kernels",))
    assert _caller_result(root, base / first) == 20
    time.sleep(0.01)
    _package(root, step=2)  # only the callee's file changes
    # numba alone keeps the caller's cached code, with the old callee inside it
    assert _caller_result(root, base / first) == 20
    second = kernel_sources_digest(root, ("kernels",))
    assert second != first
    assert _caller_result(root, base / second) == 30


def test_the_digest_ignores_files_without_kernels(tmp_path):
    _package(tmp_path, step=1)
    before = kernel_sources_digest(tmp_path, ("kernels",))
    (tmp_path / "kernels" / "plain.py").write_text("VALUE = 1\n")
    assert kernel_sources_digest(tmp_path, ("kernels",)) == before


def test_old_caches_are_pruned_after_a_day(tmp_path):
    base = tmp_path / "numba"
    old = time.time() - 3 * 86_400
    folders = []
    for i in range(KEEP_CACHES + 3):
        folder = base / f"{i:016x}"
        folder.mkdir(parents=True)
        os.utime(folder, (old + i, old + i))
        folders.append(folder)
    recent = folders[0]
    os.utime(recent, None)  # used today: kept although it is not among the newest versions
    current = base / ("f" * 16)
    frozen_build = base / "kernels_526e580c03a55ff07d5e325422e51a85252ea916"
    frozen_build.mkdir()
    os.utime(frozen_build, (old, old))
    prune_old_caches(base, current)
    left = sorted(d.name for d in base.iterdir() if d != frozen_build)
    assert frozen_build.exists()  # a frozen build's cache is not a version folder
    # the current one, the recently used one, and the newest others up to KEEP_CACHES
    kept_old = [f.name for f in folders[::-1][: KEEP_CACHES - 2]]
    assert left == sorted([current.name, recent.name, *kept_old])
