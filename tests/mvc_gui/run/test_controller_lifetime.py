"""A controller whose last reference goes while its finished worker awaits deletion.

The worker's signal slots held the controller; deleting the worker released them, freed the
controller inside the worker's destructor, and the controller deleted the worker again as its
child: a segfault (CI, about 1 run in 10 of test_layout_hold). Run in a child process, since
the failure kills the process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

SCRIPT = textwrap.dedent(
    """
    import time
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication
    from core.data.demo import make_synthetic
    from mvc_gui.model.data_session import DataSession
    from mvc_gui.run.controller import RunController
    from mvc_gui.run.embedding_controller import EmbeddingController

    app = QApplication([])
    dataset = make_synthetic(150, (4, 6), 3, seed=0)

    def settle(done):
        deadline = time.monotonic() + 120
        while not done() and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.002)
        assert done(), "timed out"

    for _ in range(3):
        layout = EmbeddingController(use_process=False)
        finals = []
        layout.layout_updated.connect(lambda xy, final: final and finals.append(xy))
        layout.request(DataSession(dataset))
        settle(lambda: bool(finals))
        assert layout.shutdown(5.0)
        del layout  # the last reference, before the worker's deferred deletion
        app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        app.processEvents()

        runs = RunController(use_process=False)
        ended = []
        runs.run_finished.connect(ended.append)
        runs.start("fmdc", {"n_clusters": 3, "n_anchors": 16}, DataSession(dataset))
        settle(lambda: bool(ended))
        del runs
        app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        app.processEvents()
    print("survived")
    """
)


def test_dropping_a_controller_with_a_finished_worker_does_not_crash():
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0 and "survived" in out.stdout, out.stderr[-2000:]
