"""Runs dock > Consensus: one partition from the selected runs (LWGP, Huang et al. 2018:
``core.experiments.consensus``) added to the list as a run of its own (show it, export its
labels like any run), with the agreement (pairwise ARI) between the runs in the dock's note.
The computation runs in a :class:`~mvc_gui.run.workers.TaskWorker`."""

from __future__ import annotations

from typing import Any

import numpy as np

from core.experiments.consensus import Consensus, consensus_partition
from core.numerics.metrics import all_metrics
from core.records.runs import RunResult
from mvc_gui.model.run_history import RunHistory
from mvc_gui.run.workers import TaskWorker

__all__ = ["agreement_text", "consensus_history", "start_consensus"]

REFERENCE = "Huang, Wang, Lai, Locally Weighted Ensemble Clustering, IEEE TCYB 2018 (LWGP)"


def agreement_text(numbers: list[int], res: Consensus) -> str:
    """The agreement matrix as short lines: '#1 vs #2 0.83, ...; with the consensus ...'."""
    pairs = [
        f"#{numbers[i]}-#{numbers[j]} {res.agreement[i, j]:.2f}"
        for i in range(len(numbers))
        for j in range(i + 1, len(numbers))
    ]
    mine = [f"#{n} {a:.2f}" for n, a in zip(numbers, res.with_consensus, strict=True)]
    return f"Agreement (ARI) {', '.join(pairs)}; with the consensus: {', '.join(mine)}."


def consensus_history(entries: list[Any], res: Consensus, number_hint: int) -> RunHistory:
    """A finished 'run' holding the consensus labels (exportable like any run)."""
    first = entries[0].result
    numbers = [e.number for e in entries]
    params = {"runs": numbers, "method": "LWGP", "theta": 0.4, "reference": REFERENCE}
    truth = first.true_labels
    result = RunResult(
        method="consensus",
        params=params,
        labels=res.labels,
        true_labels=truth,
        view_names=list(first.view_names),
        metrics={} if truth is None else all_metrics(truth, res.labels),
        dataset=dict(first.dataset),
        converged=True,
    )
    result.history = {"agreement": res.agreement.ravel().tolist()}
    h = RunHistory(-number_hint, "consensus", params)
    h.labels = h.solver_labels = res.labels
    h.result = result
    return h


def start_consensus(panel: Any, entries: list[Any]) -> TaskWorker:
    """Compute the consensus of ``entries`` off the GUI thread, then add it to ``panel``."""
    parts = [np.asarray(e.result.labels) for e in entries]
    k = int(np.median([int(p.max()) + 1 for p in parts]) + 0.5)
    worker = TaskWorker(consensus_partition, parts, k, parent=panel)

    def done(res: Consensus) -> None:
        entry = panel.add_history(consensus_history(entries, res, panel._next))
        if entry is not None:
            text = agreement_text([e.number for e in entries], res)
            panel.note.setText(f"Consensus of {len(entries)} runs: {text}")

    worker.done.connect(done)
    worker.failed.connect(lambda msg, _d: panel._error(f"Consensus: {msg}"))
    worker.start()
    return worker
