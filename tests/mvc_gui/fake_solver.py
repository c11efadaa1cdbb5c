"""A fake generator solver for GUI tests.

It lives in its own module (not conftest.py) because runs in the solver child process unpickle
it by module name: ``conftest`` names several files and the child found the wrong one once
the test folders changed.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp

from core.methods.base import COMMON_PARAMS, BaseSolver, FitResult
from core.methods.params import Param, ParamSpec


class FakeSolver(BaseSolver):
    """Yields a graph stage and ``max_iter`` iterations quickly (sleeping ``delay`` each)."""

    name = "fake"
    title = "Fake solver"
    summary = "A test double: nearest-centre labels, a decreasing objective."
    reference = "tests/mvc_gui/fake_solver.py"
    objective_label = "fake objective"
    param_spec = COMMON_PARAMS + ParamSpec(
        Param("lam", "float", 1.0, "A log-scale weight.", low=1e-4, high=1e4, log=True),
        Param("mode", "choice", "a", "A choice.", choices=("a", "b")),
        Param("flag", "bool", False, "A switch.", advanced=True),
        Param(
            "n_anchors",
            "int",
            None,
            "Anchors (None: automatic).",
            low=2,
            high=10_000,
            allow_none=True,
        ),
        Param("delay", "float", 0.01, "Seconds per iteration.", low=0.0, high=10.0),
        Param("fail_at", "int", 0, "Raise at this iteration (0: never).", low=0, high=10_000),
    )

    def __init__(
        self,
        n_clusters=2,
        *,
        max_iter=20,
        tol=1e-6,
        random_state=0,
        lam=1.0,
        mode="a",
        flag=False,
        n_anchors=None,
        delay=0.01,
        fail_at=0,
    ):
        self.n_clusters = n_clusters
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.lam = lam
        self.mode = mode
        self.flag = flag
        self.n_anchors = n_anchors
        self.delay = delay
        self.fail_at = fail_at

    def _run(self, views, rep):
        n = views[0].shape[0]
        rng = np.random.default_rng(self.random_state)
        x = views[0].toarray() if sp.issparse(views[0]) else views[0]
        m = min(n, 20)
        anchors = x[rng.choice(n, m, replace=False)]
        d = ((x[:, None, :] - anchors[None]) ** 2).sum(-1)
        z = np.exp(-(d - d.min(axis=1, keepdims=True)))
        z /= z.sum(axis=1, keepdims=True)
        graph = sp.csr_matrix(z)
        yield rep.stage("graph", 1.0, "anchor graph", anchor_graph=graph)
        centres = x[rng.choice(n, self.n_clusters, replace=False)]
        history = []
        labels = np.zeros(n, dtype=np.int64)
        for it in range(1, self.max_iter + 1):
            if self.fail_at and it == self.fail_at:
                raise RuntimeError("fake failure")
            time.sleep(self.delay)
            labels = np.argmin(((x[:, None, :] - centres[None]) ** 2).sum(-1), axis=1)
            for c in range(self.n_clusters):
                if np.any(labels == c):
                    centres[c] = x[labels == c].mean(axis=0)
            obj = 100.0 / it
            history.append(obj)
            w = np.arange(1, len(views) + 1, dtype=float)
            yield rep.iteration(it, obj, view_weights=w, labels=labels)
        return FitResult(
            labels=labels,
            objective_history=history,
            n_iter=self.max_iter,
            converged=False,
            view_weights=np.ones(len(views)) / len(views),
            anchor_graph=graph,
        )


class RotatingFakeSolver(FakeSolver):
    """The fake solver whose cluster numbers rotate every iteration (the same partition
    under new names), as k-means restarts renumber clusters: the GUI's steady display
    colours then differ from the solver's own numbers."""

    name = "fake_rotating"
    title = "Fake solver, rotating cluster numbers"

    def _run(self, views, rep):
        from dataclasses import replace

        inner = super()._run(views, rep)
        while True:
            try:
                state = next(inner)
            except StopIteration as stop:
                result = stop.value
                break
            if state.labels is not None:
                state = replace(state, labels=(state.labels + state.iteration) % self.n_clusters)
            yield state
        result.labels = (result.labels + result.n_iter) % self.n_clusters
        return result
