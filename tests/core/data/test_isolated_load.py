"""Reading files in a child process: the caller survives a reader that crashes, hangs, runs
out of memory or is cancelled, and gets a clear message naming the file and the variable."""

from __future__ import annotations

import sys
import textwrap
import time

import numpy as np
import pytest
import scipy.sparse as sp

from core.data.dataset import DataError, MultiViewDataset
from core.data.io import save_npz
from core.data.isolated_load import LoadCancelled, load_isolated
from core.data.store import open_store, write_store

FAKE_READER = """
import json, os, signal, sys, time
mode = os.environ["FAKE_READER_MODE"]
print(json.dumps({"fraction": 0.5, "what": "variable 'X'"}), flush=True)
if mode == "crash":
    os.kill(os.getpid(), signal.SIGSEGV)
elif mode == "hang":
    time.sleep(60)
elif mode == "memory":
    data = bytearray(8 << 30)
"""


@pytest.fixture
def fake_reader(tmp_path, monkeypatch):
    (tmp_path / "fake_reader.py").write_text(textwrap.dedent(FAKE_READER))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))

    def use(mode: str) -> None:
        monkeypatch.setenv("FAKE_READER_MODE", mode)

    return use


def _dataset() -> MultiViewDataset:
    rng = np.random.default_rng(0)
    views = [rng.normal(size=(30, 4)), sp.random(30, 12, density=0.3, random_state=1)]
    return MultiViewDataset(
        views=views,
        labels=np.arange(30) % 3,
        view_names=["a", "b"],
        sample_ids=[f"s{i}" for i in range(30)],
        metadata={"age": np.arange(30.0), "site": np.array(["x", "y"] * 15)},
        observed=np.ones((30, 2), bool),
        name="tiny",
    )


def test_store_round_trip_is_memory_mapped(tmp_path):
    ds = _dataset()
    back = open_store(write_store(ds, tmp_path / "store"))
    assert isinstance(back.views[0].base, np.memmap)  # shared pages, no copy
    np.testing.assert_array_equal(back.views[0], ds.views[0])
    assert (back.views[1] != ds.views[1]).nnz == 0
    assert back.ids.tolist() == ds.ids.tolist() and back.view_names == ["a", "b"]
    assert back.metadata["site"].tolist() == ds.metadata["site"].tolist()
    np.testing.assert_array_equal(back.labels, ds.labels)


def test_a_file_loads_in_a_child_with_progress(tmp_path):
    path = save_npz(_dataset(), tmp_path / "tiny.npz")
    seen = []
    ds = load_isolated(path, progress=lambda f, what: seen.append(what))
    assert ds.n_samples == 30 and ds.dims == [4, 12] and ds.name == "tiny"
    assert seen and "tiny.npz" in seen[0]


def test_a_damaged_file_is_a_clear_error(tmp_path):
    path = tmp_path / "broken.mat"
    path.write_bytes(b"MATLAB 5.0 MAT-file".ljust(124) + b"\x00\x01IM" + b"\x0e\x00\x00\x00" * 4)
    with pytest.raises(DataError, match=r"broken\.mat"):
        load_isolated(path)


@pytest.mark.skipif(sys.platform == "win32", reason="signals and rlimits are POSIX")
@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("crash", r"x\.mat: the file is damaged: the MATLAB reader crashed \(SIGSEGV\) "
         r"while reading variable 'X'; nothing was loaded"),
        ("memory", r"reading variable 'X' needed more memory than allowed"),
    ],
)  # fmt: skip
def test_a_reader_that_dies_becomes_a_message(tmp_path, fake_reader, mode, message):
    fake_reader(mode)
    path = tmp_path / "x.mat"
    path.write_bytes(b"anything")
    with pytest.raises(DataError, match=message):
        load_isolated(path, child_module="fake_reader", memory=1 << 30)


def test_a_hang_times_out_and_cancel_stops_at_once(tmp_path, fake_reader):
    fake_reader("hang")
    path = tmp_path / "x.mat"
    path.write_bytes(b"anything")
    # the limit leaves a busy machine time to start the child and hear what it reads
    with pytest.raises(DataError, match=r"did not finish within 10 s .* variable 'X'"):
        load_isolated(path, child_module="fake_reader", timeout=10)
    t0 = time.monotonic()
    with pytest.raises(LoadCancelled):  # (the time limit would raise DataError)
        load_isolated(path, child_module="fake_reader", cancel=lambda: time.monotonic() > t0 + 1)
