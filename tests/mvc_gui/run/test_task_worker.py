"""A finished task worker keeps nothing of what it was given."""

from __future__ import annotations

import gc
import weakref

from PySide6.QtCore import QObject

from mvc_gui.run.workers import TaskWorker


class Payload:
    """Stands for a session state holding run results."""


def test_a_finished_task_releases_its_arguments(qtbot):
    parent = QObject()
    payload = Payload()
    alive = weakref.ref(payload)
    results = []
    worker = TaskWorker(lambda p: type(p).__name__, payload, parent=parent)
    worker.done.connect(results.append)
    worker.start()
    del payload
    assert worker.join(120)
    qtbot.waitUntil(lambda: results == ["Payload"], timeout=120_000)
    gc.collect()
    assert parent.children() == [worker]  # still its parent's child...
    assert alive() is None  # ...but the argument is gone
