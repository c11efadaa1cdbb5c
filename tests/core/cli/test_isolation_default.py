"""Which files `mvc run` reads in a child by default: HDF5 ones (libhdf5 was seen to loop on
damaged files; a child with a time limit ends that), not MATLAB v5 or NPZ (checked ahead)."""

from __future__ import annotations

import h5py
import numpy as np

from core.cli.main import main
from core.data.open import DataSource, OpenPolicy, isolates


def test_hdf5_files_are_isolated_by_default_and_the_flags_win(tmp_path):
    h5 = tmp_path / "views.h5ad"
    with h5py.File(h5, "w") as f:
        f["X"] = np.ones((4, 3))
    npz = tmp_path / "views.npz"
    np.savez(npz, X0=np.ones((4, 3)))
    h5_file, npz_file = DataSource(file=str(h5)), DataSource(file=str(npz))
    assert isolates(h5_file, OpenPolicy())
    assert not isolates(npz_file, OpenPolicy())
    assert not isolates(h5_file, OpenPolicy(isolate=False))
    assert isolates(npz_file, OpenPolicy(isolate=True))


def test_run_reads_a_hanging_hdf5_file_in_a_child_that_is_stopped(tmp_path, monkeypatch, capsys):
    """The default for an HDF5 file goes through the isolated loader (here told to time out
    at once), so a reader stuck in C code becomes a clear error instead of a hang."""
    import core.data.isolated_load as iso

    h5 = tmp_path / "stuck.h5ad"
    with h5py.File(h5, "w") as f:
        f["X"] = np.ones((4, 3))
    original = iso.load_isolated
    monkeypatch.setattr(iso, "load_isolated", lambda path, **kw: original(path, timeout=0.0, **kw))
    assert main(["run", str(h5), "--method", "fmdc", "--n-clusters", "2"]) == 2
    assert "did not finish within" in capsys.readouterr().err
