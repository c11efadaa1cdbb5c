"""The 2-D layout computed in a child process (see ``mvc_gui.run.solver_process``).

openTSNE's Cython code and scipy/LAPACK hold the GIL for long stretches, which stalled the
window when the layout ran in a thread. The child receives ``("embed", job_id, (views,
methods, auto_rule, observed[, options]))`` (``options``: a dict, ``{"layout": "tsne" |
"umap"}``; absent means t-SNE), sends ``("frame", job_id, (iteration, layout))`` every 25
t-SNE iterations and ``("end", job_id, (layout or None, error, chosen preprocessing))``
last; ``("stop", job_id, None)`` cancels at the next frame, or at the next row block of the
passes before the first frame. ``("hold", job_id, None)`` makes the job wait at its next frame
until ``("release", job_id, None)``: the window holds a large layout while a run computes, so
the refinement (minutes at 1M) does not take the cores from the solver (the clusters come
first). The passes up to the first frame are not held: the points are on screen early.
"""

from __future__ import annotations

if __name__ == "__main__":  # a child: tie it to the window before the heavy imports below
    from mvc_gui.run.child_link import end_with_parent_of_argv

    end_with_parent_of_argv()

import traceback
from typing import Any

__all__ = ["serve"]


def serve(conn: Any) -> None:
    import numpy as np

    from core.numerics.layout import EmbeddingCancelled, embed, representation
    from mvc_gui.run.layout_input import between_blocks, layout_views
    from mvc_gui.run.solver_process import recv_message

    pending: list[Any] = []  # a job that arrived while another was running
    while True:
        try:
            kind, job, payload = pending.pop() if pending else recv_message(conn)
        except EOFError:
            return
        if kind == "quit":
            return
        if kind != "embed":
            continue
        state = {"stop": False, "held": False}

        def handle(msg: Any, job: int = job, state=state) -> None:
            k, j, _ = msg
            if k in ("embed", "quit"):  # a new job (read whole, buffers too): run it next
                pending[:] = [msg]
            state["stop"] |= (k == "stop" and j == job) or k in ("embed", "quit")
            if j == job and k in ("hold", "release"):
                state["held"] = k == "hold"

        def wait_turn(state=state) -> bool:
            """Read the messages; while held, wait (no CPU) for release, stop or a job."""
            while conn.poll():
                handle(recv_message(conn))
            while state["held"] and not state["stop"]:
                handle(recv_message(conn))
            return state["stop"]

        def callback(iteration: int, layout: np.ndarray, job: int = job, state=state) -> bool:
            while conn.poll():
                handle(recv_message(conn))
            if not state["stop"]:
                conn.send(("frame", job, (iteration, layout.astype(np.float32))))
            return wait_turn()

        def between(state=state) -> None:  # the passes before the first frame: not held
            while conn.poll():
                handle(recv_message(conn))
            if state["stop"]:
                raise EmbeddingCancelled("layout cancelled")

        chosen: list[str] = []
        try:
            options = payload[4] if len(payload) > 4 else {}
            # large dense views are read through lazy preprocessing, not copied; the
            # preprocessed views are dropped before the layout itself (minutes at 1M)
            between_blocks(between)  # a stop acts within these passes (minutes of CPU at 1M)
            try:
                views, chosen = layout_views(*payload[:4])
                x = representation(views)
                del views
            finally:
                between_blocks(None)
            method = options.get("layout", "tsne")
            layout = embed(x, method=method, callback=callback, n_jobs=1)
            del x
            conn.send(("end", job, (layout, "", chosen)))
        except EmbeddingCancelled:
            conn.send(("end", job, (None, "", chosen)))
        except Exception as exc:
            conn.send(("end", job, (None, f"{exc}\n\n{traceback.format_exc()}", chosen)))


if __name__ == "__main__":
    from mvc_gui.run.child_link import connect_to_parent

    # first: the parent's start deadline covers only the connection, not a lowered priority
    _conn = connect_to_parent()  # and this child ends with the window, however it ends

    from mvc_gui.run.priority import LAYOUT_NICENESS, lower_priority

    lower_priority(LAYOUT_NICENESS)  # below the solver child too
    # one BLAS thread: beside the busy solver child, OpenBLAS's two threads waited for each
    # other's core and a 65536 x 100 covariance block took 2.7 s instead of 0.06 s
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")

    serve(_conn)
