"""The one script of the PyInstaller build, frozen into two programs of one folder.

* ``mvc-studio``: the desktop app (``mvc_gui.app.main``); ``mvc``: the command line
  (``core.cli.main.main``). Which one runs is chosen by the name the program was started under
  (``mvc`` is a symbolic link on Linux and macOS, a second program on Windows).
* Child processes: a frozen program has no Python interpreter behind ``sys.executable``, yet
  the GUI's solver / t-SNE children are started as ``sys.executable -m MODULE ARGS`` and
  joblib's loky workers as ``sys.executable -m ...popen_loky_posix ARGS`` plus a resource
  tracker with ``-c "from ...resource_tracker import main; main(FD, VERBOSE)"``. Those
  command lines are recognised here and run the bundled module, like ``python -m`` would;
  ``multiprocessing.freeze_support()`` does the same for multiprocessing's own children.
"""

from __future__ import annotations

import importlib
import multiprocessing
import re
import runpy
import sys
from pathlib import Path

# modules a frozen program may be asked to run as ``-m MODULE`` (nothing else is accepted)
CHILD_MODULES = frozenset(
    {
        "mvc_gui.run.solver_process",
        "mvc_gui.run.embedding_process",
        "joblib.externals.loky.backend.popen_loky_posix",
    }
)
_LOKY_TRACKER = re.compile(
    r"from (joblib\.externals\.loky\.backend\.resource_tracker) import main; "
    r"main\((\d+), (True|False)\)"
)


def run_child(argv: list[str]) -> bool:
    """Run a child command line (see the module docstring); False when ``argv`` is not one."""
    if len(argv) >= 3 and argv[1] == "-m" and argv[2] in CHILD_MODULES:
        sys.argv = [argv[0], *argv[3:]]
        runpy.run_module(argv[2], run_name="__main__", alter_sys=True)
        return True
    if "-c" in argv[:-1]:
        match = _LOKY_TRACKER.fullmatch(argv[argv.index("-c") + 1])
        if match:
            tracker = importlib.import_module(match.group(1))
            tracker.main(int(match.group(2)), match.group(3) == "True")
            return True
    return False


def main() -> int:
    multiprocessing.freeze_support()  # exits here in multiprocessing's own child processes
    if run_child(sys.argv):
        return 0
    if Path(sys.argv[0]).stem.lower() == "mvc":
        from core.cli.main import main as cli_main

        return cli_main(sys.argv[1:])
    from mvc_gui.app import main as gui_main

    return gui_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
