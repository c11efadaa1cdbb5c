"""The packaging files, checked without building (the real build is checked by
``packaging/check_build.py``): the spec bundles every resource where the frozen app looks for
it and excludes nothing our code imports, the menu entry and icons are valid, the frozen entry
point starts the GUI's child processes, and numba caches kernels of a frozen build in
NUMBA_CACHE_DIR whatever the working directory."""

from __future__ import annotations

import ast
import configparser
import os
import shutil
import struct
import subprocess
import sys
import textwrap
import threading
import types
from multiprocessing.connection import Listener
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


class _Recorder:
    """Stands in for PyInstaller's Analysis / PYZ / EXE / COLLECT: keeps the arguments."""

    calls: list[tuple[str, tuple, dict]]

    def __init__(self, kind: str, distpath: Path):
        self.kind, self.distpath = kind, distpath

    def __call__(self, *args, **kwargs):
        _Recorder.calls.append((self.kind, args, kwargs))
        obj = types.SimpleNamespace(**kwargs)
        if self.kind == "Analysis":
            obj.datas, obj.binaries, obj.pure, obj.scripts = list(kwargs["datas"]), [], [], []
        if self.kind == "COLLECT":
            (self.distpath / kwargs["name"]).mkdir(parents=True)
        return obj


@pytest.fixture
def spec(monkeypatch, tmp_path):
    """Run the spec with recorders instead of PyInstaller; returns the recorded calls."""
    hooks = types.ModuleType("PyInstaller.utils.hooks")
    hooks.collect_submodules = lambda package, **_: [f"{package}._fake"]
    hooks.copy_metadata = lambda name: [(f"/site/{name}.dist-info", f"{name}.dist-info")]
    for name in ("PyInstaller", "PyInstaller.utils"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "PyInstaller.utils.hooks", hooks)
    monkeypatch.setattr(sys, "path", list(sys.path))
    _Recorder.calls = []
    dist = tmp_path / "dist"
    namespace = {"SPECPATH": str(PACKAGING), "DISTPATH": str(dist), "__name__": "__main__"}
    for kind in ("Analysis", "PYZ", "EXE", "COLLECT"):
        namespace[kind] = _Recorder(kind, dist)
    code = compile((PACKAGING / "mvc_studio.spec").read_text(), "mvc_studio.spec", "exec")
    exec(code, namespace)
    calls: dict[str, list[dict]] = {}
    for kind, _args, kwargs in _Recorder.calls:
        calls.setdefault(kind, []).append(kwargs)
    return calls, dist


def test_spec_bundles_every_resource_where_the_frozen_app_finds_it(spec, tmp_path, monkeypatch):
    calls, dist = spec
    (analysis,) = calls["Analysis"]
    bundle = tmp_path / "bundle"
    for src, dest in analysis["datas"]:
        if src.startswith(str(ROOT)):
            (bundle / dest).mkdir(parents=True, exist_ok=True)
            shutil.copy(src, bundle / dest)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(bundle), raising=False)
    import resources
    from core.data.demo import load_demo
    from mvc_gui import resources as gui_resources

    wanted = [
        p.relative_to(ROOT / "resources")
        for p in (ROOT / "resources").rglob("*")
        if p.is_file() and p.suffix not in {".py", ".pyc"} and "__pycache__" not in p.parts
    ]
    assert len(wanted) >= 10  # demo data, icons, style sheet, teaching texts
    for rel in wanted:
        assert resources.resource_path(*rel.parts).is_file(), rel
        assert gui_resources.resource_path(*rel.parts).is_file(), rel
    assert resources.resource_path("datasets", "handwritten.npz").parent.parent == bundle / (
        "resources"
    )
    assert load_demo("handwritten").views[0].shape[0] == 2000  # read from the bundle
    metadata = {dest for _src, dest in analysis["datas"] if dest.endswith(".dist-info")}
    assert {"numpy.dist-info", "numba.dist-info", "mvc-studio.dist-info"} <= metadata
    assert {"mvc_gui.run.solver_process", "mvc_gui.run.embedding_process"} <= set(
        analysis["hiddenimports"]
    )
    assert calls["COLLECT"][0]["name"] == "mvc-studio"
    assert calls["EXE"][0]["name"] == "mvc-studio"
    if sys.platform != "win32":
        assert os.readlink(dist / "mvc-studio" / "mvc") == "mvc-studio"


def _imported_modules() -> set[str]:
    names: set[str] = set()
    for folder in ("core", "mvc_gui", "resources"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names.update(alias.name for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    names.add(node.module)
                    names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_spec_excludes_nothing_our_code_imports(spec):
    calls, _dist = spec
    excludes = calls["Analysis"][0]["excludes"]
    assert "tkinter" in excludes and "PySide6.QtNetwork" in excludes
    imported = _imported_modules()
    assert {"numpy", "PySide6.QtWidgets", "openTSNE"} <= imported  # the scan sees imports
    clashes = {m for m in imported for ex in excludes if m == ex or m.startswith(ex + ".")}
    assert not clashes, f"the spec excludes modules the app imports: {sorted(clashes)}"


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", path
    return struct.unpack(">II", data[16:24])


def test_desktop_entry_and_icons():
    desktop = PACKAGING / "mvc-studio.desktop"
    validator = shutil.which("desktop-file-validate")
    if validator:  # the freedesktop.org validator when installed, the key checks always
        proc = subprocess.run([validator, str(desktop)], capture_output=True, text=True)
        assert proc.returncode == 0 and "error" not in proc.stdout, proc.stdout
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # keys are case-sensitive
    parser.read(desktop, encoding="utf-8")
    entry = parser["Desktop Entry"]
    assert entry["Type"] == "Application" and entry["Name"] == "MVC Studio"
    assert entry["Exec"].split()[0] == "mvc-studio" and entry["Terminal"] == "false"
    assert entry["Categories"].endswith(";") and "Science" in entry["Categories"].split(";")
    icon = entry["Icon"]
    for size in ICON_SIZES:
        assert _png_size(PACKAGING / "icons" / f"{icon}-{size}.png") == (size, size)

    ico = (PACKAGING / "icons" / f"{icon}.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", ico[:6])
    assert (reserved, kind) == (0, 1)
    sizes = []
    for i in range(count):
        w, _h, _p, _r, _planes, _bpp, length, offset = struct.unpack(
            "<BBBBHHII", ico[6 + 16 * i : 22 + 16 * i]
        )
        assert ico[offset : offset + 8] == b"\x89PNG\r\n\x1a\n" and offset + length <= len(ico)
        sizes.append(w or 256)
    assert sizes == [16, 24, 32, 48, 64, 128, 256]


def test_entry_point_accepts_only_known_child_command_lines(monkeypatch):
    monkeypatch.syspath_prepend(str(PACKAGING))
    import frozen_entry
    from joblib.externals.loky.backend import resource_tracker

    assert not frozen_entry.run_child(["mvc-studio", "--demo", "--run"])
    assert not frozen_entry.run_child(["mvc-studio", "-m", "http.server", "8000"])
    assert not frozen_entry.run_child(["mvc-studio", "-c", "import os; os.remove('x')"])
    # the command line loky's resource tracker is started with (a frozen program gets it)
    loky = f"from {resource_tracker.main.__module__} import main; main(7, False)"
    assert frozen_entry._LOKY_TRACKER.fullmatch(loky)


def test_entry_point_runs_the_solver_child(tmp_path):
    """``PROGRAM -m mvc_gui.run.solver_process ADDRESS KEY`` serves runs, as ``python -m``."""
    key = os.urandom(16)
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); import frozen_entry; "
        "sys.exit(0 if frozen_entry.run_child(['prog', '-m', *sys.argv[2:]]) else 3)"
    )
    with Listener(authkey=key) as listener:
        cmd = [sys.executable, "-c", script, str(PACKAGING), "mvc_gui.run.solver_process"]
        proc = subprocess.Popen([*cmd, listener.address, key.hex()], cwd=ROOT)
        accepted: list = []
        waiter = threading.Thread(target=lambda: accepted.append(listener.accept()), daemon=True)
        waiter.start()
        waiter.join(60)
        assert accepted, "the child did not connect"
        conn = accepted[0]
        assert conn.recv() == ("ready", None)
        conn.send(("quit", None, None))
        assert proc.wait(30) == 0
        conn.close()


_FROZEN_KERNEL = textwrap.dedent(
    """
    import sys
    import types
    sys.frozen, sys._MEIPASS = True, sys.argv[1]
    import core.numerics.jit.config
    from numba import njit

    module = types.ModuleType("fake_kernel")  # numba re-imports it when loading the cache
    sys.modules["fake_kernel"] = module
    # a frozen build's code objects carry relative file names and there is no source file
    exec(compile("def add_one(x):\\n    return x + 1\\n", "core/numerics/jit/fake_kernel.py",
    "exec"),
         module.__dict__)
    kernel = njit(cache=True)(module.add_one)
    assert kernel(1) == 2
    print(type(kernel._cache._impl.locator).__name__, kernel._cache._cache_path,
          sum(kernel.stats.cache_hits.values()))
    """
)


def test_frozen_build_caches_kernels_in_numba_cache_dir(tmp_path):
    bundle, cache = tmp_path / "bundle", tmp_path / "cache"
    bundle.mkdir()
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    env.pop("NUMBA_DISABLE_JIT", None)
    env.pop("NUMBA_CACHE_LOCATOR_CLASSES", None)
    runs = []
    for cwd in (tmp_path, bundle):  # two working directories: one cache
        proc = subprocess.run(
            [sys.executable, "-c", _FROZEN_KERNEL, str(bundle)],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr
        runs.append(proc.stdout.split())
    (locator, path, hits_first), (_locator, path_again, hits_second) = runs
    assert locator == "FrozenCacheLocator"
    assert Path(path).parent == cache and path_again == path
    assert (hits_first, hits_second) == ("0", "1")
    assert any(Path(path).glob("fake_kernel.add_one-*.nbi"))
