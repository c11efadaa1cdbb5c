"""A quick first command (issue 27): ``mvc --help``, ``mvc methods`` and ``mvc info`` import
no solver and no numba (core/cli/catalog.py), what they read from the sources agrees with the
registry, and a run that compiles kernels says so once (core/cli/compile_notice.py).

The import checks run in a fresh interpreter each: this one has imported everything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from core.cli import catalog, compile_notice
from core.methods import REGISTRY

ROOT = Path(__file__).resolve().parents[3]

_REPORT = textwrap.dedent(
    """
    import json, sys
    from core.cli.main import main
    try:
        code = main(sys.argv[1:])
    except SystemExit as exc:  # --help
        code = exc.code
    light = ("core.methods.params", "core.methods.states")
    heavy = sorted(
        m for m in sys.modules
        if m.split(".")[0] in ("numba", "sklearn")
        or (m.startswith("core.methods.") and m not in light)
        or m.startswith(("core.records.", "core.experiments.robustness", "core.experiments.tune"))
    )
    sys.stderr.write("MODULES " + json.dumps({"code": code, "heavy": heavy}) + "\\n")
    """
)


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("NUMBA_DISABLE_JIT", None)
    return {**env, **extra}


def _heavy_modules(args: list[str], env: dict[str, str]) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-c", _REPORT, *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    line = next(x for x in proc.stderr.splitlines() if x.startswith("MODULES "))
    report = json.loads(line.removeprefix("MODULES "))
    assert report["code"] == 0, proc.stderr
    return report["heavy"]


@pytest.fixture
def tiny_npz(tmp_path):
    g = np.random.default_rng(0)
    y = np.repeat([0, 1], 20)
    path = tmp_path / "tiny.npz"
    np.savez(path, X0=g.normal(size=(40, 3)) + 4 * y[:, None], X1=g.normal(size=(40, 2)), y=y)
    return path


def test_help_and_info_import_no_solver_and_no_numba(tmp_path, tiny_npz):
    env = _env(tmp_path)
    assert _heavy_modules(["--help"], env) == []
    assert _heavy_modules(["info", str(tiny_npz)], env) == []
    assert _heavy_modules(["run", "--help"], env) == []
    assert _heavy_modules(["sweep", "--help"], env) == []


def test_methods_reads_the_copy_of_the_method_table(tmp_path, monkeypatch):
    """The first ``mvc methods`` for these sources imports the registry and keeps a copy of
    the table; every later one reads it and imports nothing heavy."""
    env = _env(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", env["XDG_CACHE_HOME"])
    first = catalog.method_table()  # this process has the registry: writes the copy
    assert (Path(env["XDG_CACHE_HOME"]) / "mvc-studio" / catalog.TABLE_FILE).is_file()
    assert [m.name for m in first] == list(REGISTRY)
    assert _heavy_modules(["methods"], env) == []


def test_what_the_sources_say_is_what_the_registry_says(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert catalog.method_names() == list(REGISTRY)
    assert catalog.streaming_methods() == [n for n, c in REGISTRY.items() if c.streams]
    assert list(catalog.REGISTRY) == list(REGISTRY)
    assert catalog.REGISTRY["fmdc"] is REGISTRY["fmdc"]
    for table in (catalog.method_table(), catalog.method_table()):  # from the registry, a copy
        for info, cls in zip(table, REGISTRY.values(), strict=True):
            assert (info.name, info.title, info.summary) == (cls.name, cls.title, cls.summary)
            assert list(info.param_spec) == list(cls.param_spec)
    from core.experiments.robustness import NOISE_SCALES
    from core.experiments.tune import CRITERIA

    assert catalog.source_literal("core.experiments.robustness", "NOISE_SCALES") == NOISE_SCALES
    assert catalog.source_literal("core.experiments.tune", "CRITERIA") == CRITERIA


def test_a_method_registered_at_run_time_is_known_to_the_commands(tmp_path, monkeypatch):
    from core.methods.base import BaseSolver, register

    class LateSolver(BaseSolver):
        name, title, summary = "late_fake", "Late", "Registered after the commands' import."

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    try:
        register(LateSolver)
        assert "late_fake" in catalog.REGISTRY and "late_fake" in catalog.method_names()
        assert catalog.REGISTRY["late_fake"] is LateSolver
        assert catalog.method_table()[-1].name == "late_fake"
    finally:
        REGISTRY.pop("late_fake", None)


_TINY_SOLVER = textwrap.dedent(
    """
    import numpy as np

    from core.methods.base import COMMON_PARAMS, BaseSolver, FitResult, register
    from core.numerics.jit.config import JIT, njit


    @njit(**JIT)
    def above(x, cut):
        out = np.zeros(x.size, dtype=np.int64)
        for i in range(x.size):
            out[i] = x[i] > cut
        return out


    @register
    class TinySolver(BaseSolver):
        name = "tiny"
        title = "Tiny"
        summary = "One cached kernel: the first view's first feature above its median."
        param_spec = COMMON_PARAMS

        def __init__(self, n_clusters=2, *, max_iter=100, tol=1e-6, random_state=0):
            self.n_clusters, self.max_iter, self.tol = n_clusters, max_iter, tol
            self.random_state = random_state

        def _run(self, views, rep):
            x = np.ascontiguousarray(views[0][:, 0], dtype=np.float64)
            labels = above(x, float(np.median(x)))
            yield rep.iteration(1, 1.0, labels=labels)
            return FitResult(labels=labels, objective_history=[1.0], n_iter=1, converged=True)
    """
)


def test_a_run_that_compiles_says_so_once(tmp_path, tiny_npz):
    """An empty numba cache folder: the run compiles its kernel and says so, once; the next
    run loads it from the cache and says nothing."""
    (tmp_path / "tiny_solver.py").write_text(_TINY_SOLVER)
    script = (
        f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import tiny_solver\n"
        "from core.cli.main import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    env = _env(tmp_path, NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    argv = ["run", str(tiny_npz), "--method", "tiny", "--n-clusters", "2", "--quiet"]
    runs = []
    for _ in range(2):
        proc = subprocess.run(
            [sys.executable, "-c", script, *argv],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr
        runs.append(proc.stderr)
    said = compile_notice.notice("tiny")
    assert runs[0].count("compiling the solvers once") == 1
    assert said in runs[0]
    assert "compiling" not in runs[1]


def test_the_notice_names_the_method_s_compile_time():
    assert compile_notice.notice("fmdc") == (
        f"compiling the solvers once (about {compile_notice.COMPILE_SECONDS['fmdc']} s; "
        "later runs start at once)"
    )
    assert str(max(compile_notice.COMPILE_SECONDS.values())) in compile_notice.notice(None)
