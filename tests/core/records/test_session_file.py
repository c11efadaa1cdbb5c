"""Session files: schema, round trip, compact labels and clear errors."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from core.records.runs import RunResult
from core.records.session_file import (
    FORMAT,
    VERSION,
    DataSource,
    SessionFileError,
    SessionState,
    StoredRun,
    decode_labels,
    encode_labels,
    load_session,
    resolve_data_path,
    save_session,
)


def _state(data_path, n=300, runs=2):
    rng = np.random.default_rng(0)
    stored = []
    for i in range(runs):
        labels = rng.integers(0, 4, n)
        result = RunResult(
            method="fmdc",
            params={"n_clusters": 4, "n_anchors": 16 * (i + 1), "random_state": i, "tol": 1e-10},
            labels=labels,
            view_names=["a", "b"],
            view_weights=[0.25, 0.75],
            objective_history=[3.0, 2.0, float("nan")],
            history={"moved": [5.0, 1.0]},
            n_iter=3,
            converged=i == 0,
            stopped_early=i == 1,
            metrics={"acc": 0.5 + i / 10, "nmi": 0.4, "ari": 0.3},
            timings={"total": 0.7, "graph": 0.2},
            dataset={"name": "tiny", "n_samples": n},
            preprocessing=["zscore", "l2"],
        )
        stored.append(
            StoredRun(
                number=i + 3,
                result=result,
                seconds=0.7,
                iterations=[1, 2, 3],
                objective=[3.0, 2.0, 1.5],
                metric_iterations=[1, 2, 3],
                metric_curves={"acc": [0.1, 0.2, 0.3], "nmi": [0.1, 0.1, 0.1]},
            )
        )
    source = DataSource("file", "tiny", n, ["a", "b"], path=str(data_path))
    return SessionState(
        source=source,
        included=[True, False],
        preprocessing=["zscore", "auto"],
        method="fmdc",
        params={"n_clusters": 4, "n_anchors": 32, "random_state": 11},
        runs=stored,
    )


@pytest.fixture
def data_file(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    path = folder / "tiny.npz"
    np.savez(path, X0=np.zeros((3, 2)))
    return path


def test_round_trip_keeps_everything(tmp_path, data_file):
    state = _state(data_file)
    target = data_file.parent / "lesson.mvcs.json"
    save_session(target, state)
    assert [p.name for p in target.parent.iterdir()] == sorted(["lesson.mvcs.json", "tiny.npz"])
    record = json.loads(target.read_text())
    assert record["format"] == FORMAT and record["version"] == VERSION == 1
    assert record["data"]["path"] == str(data_file.resolve())
    assert record["data"]["relative_path"] == "tiny.npz"
    assert record["method"]["seed"] == 11
    back = load_session(target)
    assert back.source == DataSource(
        "file", "tiny", 300, ["a", "b"], path=str(data_file.resolve()), relative_path="tiny.npz"
    )
    assert back.included == [True, False] and back.preprocessing == ["zscore", "auto"]
    assert back.method == "fmdc" and back.params == state.params and back.seed == 11
    assert len(back.runs) == 2
    for got, want in zip(back.runs, state.runs, strict=True):
        assert got.number == want.number and got.seconds == pytest.approx(0.7)
        assert got.iterations == [1, 2, 3] and got.objective == [3.0, 2.0, 1.5]
        assert got.metric_curves == want.metric_curves
        g, w = got.result, want.result
        np.testing.assert_array_equal(g.labels, w.labels)
        assert g.labels.dtype == np.int64
        for attr in ("method", "params", "view_names", "view_weights", "history", "n_iter",
                     "converged", "stopped_early", "metrics", "timings", "dataset",
                     "preprocessing", "versions", "created"):  # fmt: skip
            assert getattr(g, attr) == getattr(w, attr), attr
        # NaN in the objective is written as null and read back as NaN
        assert g.objective_history[:2] == [3.0, 2.0] and np.isnan(g.objective_history[2])


def test_demo_source_round_trip(tmp_path):
    state = _state(tmp_path / "unused", runs=0)
    state.source = DataSource(
        "demo", "synthetic", 3000, ["v1", "v2", "v3"], demo="synthetic-3000",
        synthetic={"n": 3000, "dims": [20, 50, 30], "c": 8, "seed": 0},
    )  # fmt: skip
    save_session(tmp_path / "s.json", state)
    back = load_session(tmp_path / "s.json")
    assert back.source == state.source and back.runs == []


@pytest.mark.parametrize("n, top", [(0, 0), (5, 3), (1000, 255), (1000, 256), (50, 70_000)])
def test_labels_are_stored_compactly_and_exactly(n, top):
    labels = np.random.default_rng(1).integers(0, top + 1, n)
    if n:
        labels[0] = top
    enc = encode_labels(labels)
    np.testing.assert_array_equal(decode_labels(json.loads(json.dumps(enc))), labels)
    assert enc["dtype"] == ("|u1" if top < 256 else "<u2" if top < 65536 else "<u4")


def test_labels_compress_well():
    labels = np.repeat(np.arange(10), 200)  # 2000 samples in 10 sorted clusters
    enc = encode_labels(labels)
    assert len(enc["data"]) < 100
    labels = np.random.default_rng(0).integers(0, 10, 2000)
    assert len(encode_labels(labels)["data"]) < 2000  # under 1 byte per sample


def test_negative_labels_round_trip():
    labels = np.array([-1, 0, 3, -1])
    np.testing.assert_array_equal(decode_labels(encode_labels(labels)), labels)


def _write(tmp_path, record):
    path = tmp_path / "bad.mvcs.json"
    path.write_text(json.dumps(record))
    return path


def _valid_record(tmp_path, data_file):
    save_session(tmp_path / "ok.json", _state(data_file))
    return json.loads((tmp_path / "ok.json").read_text())


def test_newer_version_is_refused_naming_it(tmp_path, data_file):
    record = _valid_record(tmp_path, data_file)
    record["version"] = 2
    with pytest.raises(SessionFileError, match=r"bad.mvcs.json: .*version 2.*newer"):
        load_session(_write(tmp_path, record))
    record["version"] = "one"
    with pytest.raises(SessionFileError, match="version 'one'"):
        load_session(_write(tmp_path, record))


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda r: r.pop("format"), "not an MVC Studio session file"),
        (lambda r: r["data"].pop("path"), "data: the key 'path' is missing"),
        (lambda r: r["data"].update(kind="url"), "'kind' must be 'file', 'demo' or 'tables'"),
        (lambda r: r["views"].update(included=[True]), "1 'included' flags but 2"),
        (lambda r: r["runs"][1].pop("method"), r"runs\[1\]: the key 'method' is missing"),
        (lambda r: r["runs"][0].update(n_iter="3"), r"runs\[0\]: 'n_iter' must be int"),
        (lambda r: r["runs"][0]["labels"].update(n=7), r"runs\[0\].labels: 300 labels stored"),
        (lambda r: r["runs"][0]["labels"].update(data="@@"), "not valid zlib"),
        (lambda r: r["runs"][0]["curve"].update(objective=["x"]), "curve.objective must be"),
        (lambda r: r["data"].update(n_samples=299), r"runs\[0\].labels: 300 labels, but .* 299"),
        (lambda r: r.update(version=True), "version True"),
    ],
)
def test_schema_errors_name_the_key(tmp_path, data_file, edit, message):
    record = _valid_record(tmp_path, data_file)
    edit(record)
    with pytest.raises(SessionFileError, match=message):
        load_session(_write(tmp_path, record))


def test_unreadable_files(tmp_path):
    with pytest.raises(SessionFileError, match="cannot read the session file"):
        load_session(tmp_path / "nope.json")
    (tmp_path / "x.json").write_text("{not json")
    with pytest.raises(SessionFileError, match=r"x.json is not valid JSON \(line 1"):
        load_session(tmp_path / "x.json")


def test_data_path_absolute_then_relative_then_clear_error(tmp_path, data_file):
    save_session(data_file.parent / "lesson.json", _state(data_file))
    src = load_session(data_file.parent / "lesson.json").source
    assert resolve_data_path(src, data_file.parent / "lesson.json") == data_file.resolve()
    # the class folder copied elsewhere and the original removed: the relative path is used
    moved = tmp_path / "moved"
    shutil.copytree(data_file.parent, moved)
    shutil.rmtree(data_file.parent)
    assert resolve_data_path(src, moved / "lesson.json") == (moved / "tiny.npz").resolve()
    (moved / "tiny.npz").unlink()
    with pytest.raises(SessionFileError, match=r"data file is missing: .*class/tiny\.npz") as err:
        resolve_data_path(src, moved / "lesson.json")
    assert "moved/tiny.npz" in str(err.value)
