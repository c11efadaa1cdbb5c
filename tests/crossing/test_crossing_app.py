"""The crossing matrix through the app's Qt-free model: every method x input kind x after-run
action, generated from the registry and ``inputs.INPUT_KINDS``.

A run goes the way the window drives it, without a QApplication: the data loaded as the
loader child would (``Written.load``: the file's reader, the table spec, or row-block views),
a :class:`DataSession`, ``session.check(method)`` (what ``RunController.start`` raises before
anything starts), then what ``SolverWorker._main`` does (``run_solver`` on
``session.prepared``, ``attach_prediction_stats``), the frames added to a ``RunHistory`` and
the record built by ``controller.final_result``. The actions then use the functions behind
the window's commands: File > Export labels (``window.exports.export_labels``), Tools >
Cluster profiles (``tools.profiles._compute``), Assign new samples
(``tools.assign._assign_and_write`` with the run's model), Save / Open session
(``tools.sessions``: ``_source_of``, ``stored_from_entry``, ``_read``, ``entry_from_stored``)
and Export HTML report (``tools.report._build_and_write``). The app has no write-back command:
that cell checks that the app's run record (its ids) writes back through
``core.records.write_back`` as ``mvc run --write-back`` does.

A refused combination must be a DataError (shown in the message bar) of one line naming the
method, raised before the run starts.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from core.methods import REGISTRY

from .checks import (
    _norm,
    agreement,
    check_explain,
    check_inputs_unchanged,
    check_labels,
    check_profile_rows,
    check_write_back,
    fail,
    run_refusal,
)
from .inputs import ACTIONS, INPUT_KINDS, METHODS, InputKind, Written


class _Go:
    """The Control of ``run_solver``: never paused, never stopped."""

    def wait_turn(self) -> bool:
        return True

    def after_state(self, state: Any) -> None:
        pass


@dataclass
class AppRun:
    w: Written
    method: str
    session: Any = None
    refused: str | None = None  # the DataError / ParamError message before the run
    crash: str | None = None  # anything else that went wrong, "Type: message"
    history: Any = None
    end: Any = None
    folder: Path | None = None
    tb: str = ""

    @property
    def result(self):
        return self.history.result

    def clusters(self) -> dict[str, int]:
        r = self.result
        return dict(zip(r.ids, np.asarray(r.labels).tolist(), strict=True))


def app_run(w: Written, method: str, folder: Path, n_clusters: object = None) -> AppRun:
    """``n_clusters``: what the panel asks for (None: its default, the classes or auto)."""
    from core.data.dataset import DataError
    from core.methods.params import ParamError

    run = AppRun(w, method, folder=folder)
    try:
        from mvc_gui.model import runner
        from mvc_gui.model.data_session import DataSession
        from mvc_gui.model.run_history import RunHistory
        from mvc_gui.run.controller import final_result

        session = run.session = DataSession(w.load())
        cls = REGISTRY[method]
        default = session.n_classes or "auto"  # the panel's default clusters
        params = {"n_clusters": default if n_clusters is None else n_clusters}
        try:
            solver = cls.from_params(params)
            session.check(cls)
        except (DataError, ParamError) as exc:
            run.refused = str(exc)
            return run
        history = run.history = RunHistory(1, method, solver.get_params())
        history.truth = session.labels
        session.set_auto_rule(solver.auto_preprocessing)  # SolverWorker._main
        frames: list = []
        end = run.end = runner.run_solver(1, solver, session.prepared, session.labels,
                                          frames.append, _Go(), session.observed,
                                          session.views_for_k())  # fmt: skip
        for frame in frames:  # RunController._on_worker_frames_ready
            history.add(frame)
        if end.status != "finished":
            last = end.details.strip().splitlines()[-1] if end.details else end.error
            run.crash = f"run {end.status}: {last}"
            return run
        history.result, history.prediction = final_result(session, history.truth,
                                                          history.final, end)  # fmt: skip
    except Exception as exc:
        run.crash = f"{type(exc).__name__}: {exc}"
        run.tb = traceback.format_exc()
    return run


class AppRuns:
    def __init__(self, written, root: Path) -> None:
        self.written, self.root = written, root
        self.cache: dict[tuple[str, str], AppRun] = {}

    def get(self, method: str, kind: InputKind, n_clusters: object = None) -> AppRun:
        key = (method, kind.name, n_clusters)
        if key not in self.cache:
            folder = self.root / method / kind.name / str(n_clusters or "default")
            folder.mkdir(parents=True, exist_ok=True)
            self.cache[key] = app_run(self.written(kind), method, folder, n_clusters)
        return self.cache[key]


@pytest.fixture(scope="session")
def app_runs(written, tmp_path_factory):
    return AppRuns(written, tmp_path_factory.mktemp("app-runs"))


def expect_app_refusal(message: str | None, method: str, crash: str | None) -> None:
    if crash is not None:
        fail("app: crash instead of a clear refusal", crash)
    if message is None:
        fail("app: accepted instead of refused", method)
    if "\n" in message.strip():
        fail("app: refusal is not one line", message.strip().splitlines()[0])
    cls = REGISTRY[method]
    if not any(_norm(n) in _norm(message) for n in (method, cls.__name__, cls.title)):
        fail("app: refusal does not name the method", message)


# -- the matrix -----------------------------------------------------------------------------------
@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("kind", INPUT_KINDS, ids=str)
@pytest.mark.parametrize("method", METHODS)
def test_crossing_app(method: str, kind: InputKind, action: str, app_runs: AppRuns, written):
    cls, w = REGISTRY[method], written(kind)
    run = app_runs.get(method, kind)
    if run_refusal(cls, w) is not None:
        expect_app_refusal(run.refused, method, run.crash)
        return
    if run.refused is not None:
        fail("app: refused a supported combination", run.refused)
    if run.crash is not None:
        fail("app: run crashed", run.crash)
    if run.result is None:
        fail("app: final_result built no run record")
    ACTION_CHECKS[action](run)


@pytest.mark.parametrize("kind", INPUT_KINDS, ids=str)
@pytest.mark.parametrize("method", METHODS)
def test_auto_k_is_the_datas_in_the_app(method: str, kind: InputKind, app_runs: AppRuns, written):
    """n_clusters "auto" through the app's model on every input kind: estimated, the same
    for every method (FMDC reads the ``general`` rule's views itself)."""
    cls, w = REGISTRY[method], written(kind)
    run = app_runs.get(method, kind, "auto")
    if run_refusal(cls, w) is not None:
        expect_app_refusal(run.refused, method, run.crash)
        return
    if run.refused is not None or run.crash is not None:
        fail("app: auto k failed", run.refused or run.crash)
    reference = app_runs.get("fmdc", kind, "auto")
    if reference.crash is not None or reference.result is None:
        fail("app: FMDC with auto k failed", reference.crash)
    got = run.result.n_clusters_estimate["ranked"]
    want = reference.result.n_clusters_estimate["ranked"]
    if got != want:
        fail("app: the estimate depends on the method", f"{got} against FMDC's {want}")


def _labels(run: AppRun) -> None:
    from mvc_gui.window.exports import export_labels

    path = run.folder / "labels.csv"
    export_labels(str(path), run.result)
    check_labels(path, run.w, "app labels CSV")


def _write_back(run: AppRun) -> None:
    w = run.w
    if w.write_back is None:  # nothing to write into: the record must not invent ids
        if run.result.sample_ids is not None:
            fail("app: run record has ids the data does not", repr(run.result.sample_ids[:3]))
        check_inputs_unchanged(w)
        return
    from core.records.write_back import write_back

    target = run.folder / f"new{w.write_back_suffix}"
    write_back(w.write_back, target, run.result.ids, run.result.labels, id_column=w.id_column)
    check_write_back(target, w, run.clusters())


def _refused_in_worker(exc: Exception, what: str) -> None:
    """An action the app runs in a TaskWorker: a DataError is shown as a clear message."""
    from core.data.dataset import DataError

    if not isinstance(exc, DataError):
        fail(f"app: {what} crashed", f"{type(exc).__name__}: {exc}")
    if "\n" in str(exc).strip():
        fail(f"app: {what} refusal is not one line", str(exc).splitlines()[0])


def _profile(run: AppRun) -> None:
    from mvc_gui.tools.profiles import _compute

    ds = run.session.dataset
    try:
        rows, _profiles, _names = _compute(ds, np.asarray(run.result.labels))
    except Exception as exc:
        if run.w.stream:  # row-block views: a clear refusal is acceptable
            _refused_in_worker(exc, "profiles")
            return
        fail("app: profiles crashed", f"{type(exc).__name__}: {exc}")
    dicts = [{"view": r.view, "cluster": r.cluster, "feature": r.feature + 1,
              "mean_in": r.mean_in, "mean_out": r.mean_out} for r in rows]  # fmt: skip
    expected_from = run.w.load_in_memory() if run.w.stream else ds
    check_profile_rows(dicts, expected_from, run.clusters(), "app profiles")


def _predict(run: AppRun) -> None:
    from mvc_gui.tools.assign import _assign_and_write

    model = run.history.prediction
    if model is None:
        why = "a sample misses a view" if run.w.incomplete else "complete views"
        fail("app: no model to assign new samples", f"history.prediction is None ({why})")
    out = run.folder / "assigned.csv"
    try:
        _assign_and_write(model, run.w.load(), str(out))
    except Exception as exc:
        fail("app: assigning the run's own data failed", f"{type(exc).__name__}: {exc}")
    got = check_labels(out, run.w, "app assigned labels")
    share = agreement(run.clusters(), got)
    if share < 0.9:
        fail("app: assignment does not reproduce the run's labels", f"{share:.1%} agree")


def _session(run: AppRun) -> None:
    """File > Save session then Open session, through the functions SessionIO uses."""
    from core.data.io import load_dataset, load_spec
    from core.data.io.aligned import DataSpec
    from core.records.session_file import SessionState, save_session
    from mvc_gui.model.data_session import DataSession
    from mvc_gui.model.run_entries import RunEntry
    from mvc_gui.tools.sessions import _read, _source_of, entry_from_stored, stored_from_entry

    session, history = run.session, run.history
    entry = RunEntry(1, history, run.end.elapsed)
    state = SessionState(source=_source_of(session), included=list(session.included),
                         preprocessing=list(session.methods), method=run.method,
                         params=dict(history.params), runs=[stored_from_entry(entry)])  # fmt: skip
    path = run.folder / "app.mvcs.json"
    save_session(path, state)
    back, data_path = _read(str(path))
    src = back.source
    if data_path is not None:
        ds = load_dataset(data_path)
    elif src.spec is not None:
        ds = load_spec(DataSpec.from_dict(src.spec))
    else:
        fail("app session: no data source", repr(src))
    old = session.dataset
    if ds.n_views != len(back.included) or ds.n_samples != src.n_samples:
        fail("app session: reopened data differs", f"{ds.n_views} views, {ds.n_samples} samples")
    if src.sample_ids is not None and src.sample_ids != ds.ids.tolist():
        fail("app session: ids changed: runs not restored", repr(src.sample_ids[:3]))
    reopened = DataSession(ds)
    restored = entry_from_stored(back.runs[0], reopened).result
    if back.method != run.method or restored.params != _json(run.result.params):
        fail("app session: method or parameters changed", f"{back.method} {restored.params}")
    if not np.array_equal(restored.labels, run.result.labels):
        fail("app session: labels changed")
    if ds.ids.tolist() != old.ids.tolist():
        fail("app session: the reopened data has other ids", f"{ds.ids[:3]} vs {old.ids[:3]}")
    if (old.labels is None) != (reopened.labels is None) or (
        old.labels is not None and not np.array_equal(old.labels, reopened.labels)
    ):
        fail("app session: reference labels lost on reopening",
             f"the run had {old.meta.get('label_variable') or 'labels'!r}; reopened "
             f"{'none' if reopened.labels is None else 'other labels'}")  # fmt: skip
    if restored.ids != run.result.ids:
        fail("app session: the reopened run lost the data's sample ids",
             f"{restored.ids[:2]} instead of {run.result.ids[:2]}")  # fmt: skip
    names, had = list(restored.class_names), list(run.result.class_names)
    if names != had:
        fail("app session: the reopened run lost the class names",
             f"{names[:3]} instead of {had[:3]}")  # fmt: skip
    from mvc_gui.window.exports import export_labels

    before, after = run.folder / "labels-before.csv", run.folder / "labels-reopened.csv"
    export_labels(str(before), run.result)
    export_labels(str(after), restored)
    a, b = before.read_text().splitlines(), after.read_text().splitlines()
    if a != b:
        pairs = enumerate(zip(a, b, strict=False))
        i = next((i for i, (x, y) in pairs if x != y), min(len(a), len(b)))
        fail("app session: labels exported after reopening differ from the run's",
             f"line {i + 1}: {b[i] if i < len(b) else '(none)'!r} instead of "
             f"{a[i] if i < len(a) else '(none)'!r}")  # fmt: skip


def _json(obj):
    import json

    from core.records.runs import _jsonable

    return json.loads(json.dumps(_jsonable(obj)))


def _html(run: AppRun) -> None:
    from mvc_gui.tools.report import _build_and_write

    path = run.folder / "report.html"
    k = int(run.result.labels.max()) + 1
    try:
        _build_and_write(str(path), run.result, run.session.dataset, [], ["#000000"] * k)
    except Exception as exc:
        if run.w.stream:
            _refused_in_worker(exc, "HTML report")
            return
        fail("app: HTML report crashed", f"{type(exc).__name__}: {exc}")
    text = path.read_text(encoding="utf-8")
    cls = REGISTRY[run.method]
    if run.method not in text and cls.title not in text:
        fail("app: HTML report does not name the method", run.method)
    if run.w.dataset_name not in text:
        fail("app: HTML report does not name the dataset", run.w.dataset_name)


def _explain(run: AppRun) -> None:
    """The Analysis workbench's computations (core.analysis, Qt-free) on the app's run, with
    a cluster as the group, exported through the writers ``mvc explain`` uses; and one
    sample's explanation through the run's prediction model."""
    from core.analysis.association import associate, write_association_csv
    from core.analysis.compare import compare_groups, write_compare_csv
    from core.analysis.explain_sample import explain_sample
    from core.analysis.groups import composition, write_composition_csv
    from core.analysis.view_agreement import view_agreement, write_view_agreement_csv

    session, result = run.session, run.result
    ds = session.dataset
    labels = np.asarray(result.labels)
    rows = np.flatnonzero(labels == labels[0])
    folder = run.folder / "workbench"
    try:
        tables = compare_groups(ds.views, rows, observed=ds.observed,
                                view_names=list(ds.view_names))  # fmt: skip
        comp = composition(rows, labels, ds.metadata, kinds=ds.metadata_columns())
        assoc = associate(labels, ds.metadata, kinds=ds.metadata_columns())
        agree = view_agreement(session.prepared()[0], labels, int(labels.max()) + 1,
                               weights=result.view_weights, observed=session.observed,
                               view_names=list(ds.view_names))  # fmt: skip
    except Exception as exc:
        fail("app: workbench analyses crashed", f"{type(exc).__name__}: {exc}")
    write_compare_csv(folder / "compare.csv", tables, group="group")
    write_composition_csv(folder / "composition.csv", {"group": comp})
    write_association_csv(folder / "association.csv", assoc)
    write_view_agreement_csv(folder / "view_agreement.csv", agree)
    in_memory = run.w.load_in_memory() if run.w.stream else ds
    check_explain(folder, in_memory, [result.ids[i] for i in rows], "app workbench")
    model = run.history.prediction
    if model is None:
        fail("app: no model to explain a sample with", "history.prediction is None")
    picks = np.linspace(0, labels.size - 1, 10).astype(int)
    found = [explain_sample(model, ds.views, int(i), observed=ds.observed) for i in picks]
    same = np.mean([ex.predicted == labels[ex.index] for ex in found])
    if same < 0.8:
        fail("app: a sample's view votes do not follow its cluster", f"{same:.0%} agree")


#: one check per action, by name (a new action in ACTIONS needs its check here)
ACTION_CHECKS = {a: globals()["_" + a.replace("-", "_")] for a in ACTIONS}
