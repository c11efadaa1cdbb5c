"""Memory-mapped views reach the child processes as their file, not as a copy."""

from __future__ import annotations

from multiprocessing import Pipe
from pathlib import Path

import numpy as np

from core.data.dataset import check_views
from core.data.demo import make_synthetic
from core.data.store import open_store, write_store
from mvc_gui.run.solver_process import recv_message, send_message


def test_store_views_travel_as_maps_of_the_same_file(tmp_path):
    ds = make_synthetic(400, (5, 7), 3, seed=0)
    store = open_store(write_store(ds, tmp_path / "store"))
    a, b = Pipe()
    own = np.arange(6.0)
    send_message(a, ("run", [store.views, own[1:4]]))
    _, (views, part) = recv_message(b)
    for sent, got in zip(store.views, views, strict=True):
        assert isinstance(got, np.memmap)
        assert Path(got.filename).parent == (tmp_path / "store").resolve()
        np.testing.assert_array_equal(got, sent)
        assert not got.flags.writeable
    # the solver's validation keeps the map (no float64 copy of a float64 store)
    assert all(np.shares_memory(v, c) for v, c in zip(views, check_views(views), strict=True))
    # ordinary arrays and non-contiguous parts of a map still travel by value
    np.testing.assert_array_equal(part, own[1:4])
    rows = store.views[1][10:20]
    send_message(a, [rows, store.views[1][:, 2]])
    got_rows, got_column = recv_message(b)
    assert isinstance(got_rows, np.memmap)
    np.testing.assert_array_equal(got_rows, rows)
    assert not isinstance(got_column, np.memmap)
    np.testing.assert_array_equal(got_column, store.views[1][:, 2])
