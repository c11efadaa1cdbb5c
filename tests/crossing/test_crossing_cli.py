"""The crossing matrix through the command line: every method of the registry x every input
kind of ``inputs.INPUT_KINDS`` x every after-run action is one test id, generated; a new
method or input kind is covered without writing a test.

Each (method, input kind) runs ``mvc run`` once (cached for the session) with every output
the input allows (labels, write-back, report, profiles, HTML); each action then inspects
its output. A combination that is not supported (a method without ``supports_incomplete``
on samples missing a view, a method that does not read row blocks on ``--stream``, an action
the input has no data for) must be a CLEAR REFUSAL: exit code 2 and stderr exactly one line
``mvc: error: ...`` naming something the user typed, never a traceback.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from core.methods import REGISTRY

from .checks import (
    agreement,
    check_explain,
    check_inputs_unchanged,
    check_labels,
    check_profile_rows,
    check_write_back,
    fail,
    labels_by_id,
    names_typed,
    run_refusal,
)
from .inputs import ACTIONS, INPUT_KINDS, METHODS, InputKind, Written


# -- calling the CLI in process -------------------------------------------------------------------
@dataclass
class Call:
    argv: list[str]
    rc: int | None = None
    out: str = ""
    err: str = ""
    exc: str | None = None  # an exception that escaped main(): "Type: message"
    tb: str = ""
    files: dict[str, Path] = field(default_factory=dict)

    def last_err(self) -> str:
        lines = self.err.strip().splitlines()
        return lines[-1] if lines else "(no stderr)"


def call_cli(argv: list[str]) -> Call:
    call = Call(list(argv))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            from core.cli.main import main

            call.rc = main(argv)
        except SystemExit as exc:  # argparse
            call.rc = exc.code if isinstance(exc.code, int) else 1
        except BaseException as exc:
            call.exc = f"{type(exc).__name__}: {exc}"
            call.tb = traceback.format_exc()
    call.out, call.err = out.getvalue(), err.getvalue()
    return call


def expect_ok(call: Call, what: str) -> None:
    if call.exc is not None:
        fail(f"{what} crashed", call.exc)
    if call.rc != 0:
        fail(f"{what} exit {call.rc}", call.last_err())


def expect_refusal(call: Call, method: str, must_name: str | None = None) -> None:
    """Exit 2, stderr exactly one line 'mvc: error: ...' naming something the user typed
    (``must_name``: that flag in particular)."""
    if call.exc is not None:
        fail("crash instead of a clear refusal", call.exc)
    if call.rc == 0:
        fail("accepted instead of refused", " ".join(call.argv[:4]) + " ...")
    if call.rc != 2:
        fail(f"refusal with exit code {call.rc}, not 2", call.last_err())
    lines = call.err.strip().splitlines()
    if "Traceback" in call.err:
        fail("refusal shows a traceback", call.last_err())
    if len(lines) != 1 or not lines[0].startswith("mvc: error:"):
        bad = [ln for ln in lines if ln.startswith("mvc: error:")] or lines[-1:]
        cause = (
            "refusal after work (stderr has more than the error line)"
            if len(lines) > 1 and lines[-1].startswith("mvc: error:")
            else "refusal is not one 'mvc: error:' line"
        )
        fail(cause, f"{len(lines)} lines; {bad[0] if bad else ''}")
    if must_name is not None and must_name not in lines[0]:
        fail(f"refusal does not name {must_name}", lines[0])
    if not names_typed(lines[0], call.argv, method):
        fail("refusal names nothing the user typed", lines[0])


# -- the cached runs ------------------------------------------------------------------------------
class CliRuns:
    """One ``mvc run`` per (method, input kind) with every output the input allows, and one
    per refused action; cached for the session."""

    def __init__(self, written, root: Path) -> None:
        self.written, self.root = written, root
        self.cache: dict[tuple, Call] = {}

    def folder(self, *parts: str) -> Path:
        p = self.root.joinpath(*parts)
        p.mkdir(parents=True, exist_ok=True)
        return p

    def base(self, method: str, w: Written) -> list[str]:
        return ["run", "--method", method, *w.data_args, *w.run_flags, "--quiet"]

    def full(self, method: str, kind: InputKind) -> Call:
        key = (method, kind.name, "all")
        if key not in self.cache:
            w = self.written(kind)
            d = self.folder(method, kind.name)
            files = {"labels": d / "labels.csv", "report": d / "run.json"}
            if w.write_back is not None:
                files["write-back"] = d / f"new{w.write_back_suffix}"
            if not w.stream:
                files["profile"], files["html"] = d / "prof.csv", d / "report.html"
            flag = {"labels": "--out", "report": "--report", "write-back": "--write-back",
                    "profile": "--profile", "html": "--html"}  # fmt: skip
            argv = self.base(method, w)
            for name, path in files.items():
                argv += [flag[name], str(path)]
            call = call_cli(argv)
            call.files = files
            self.cache[key] = call
        return self.cache[key]

    def only(self, method: str, kind: InputKind, flag: str, name: str) -> Call:
        """A run asking for the labels and one output the input may not give (a refusal, or
        the output: then it must be right)."""
        key = (method, kind.name, flag)
        if key not in self.cache:
            w = self.written(kind)
            d = self.folder(method, kind.name, flag.strip("-"))
            labels, target = d / "labels.csv", d / name
            call = call_cli([*self.base(method, w), "--out", str(labels), flag, str(target)])
            call.files = {"labels": labels, flag: target}
            self.cache[key] = call
        return self.cache[key]


@pytest.fixture(scope="session")
def cli_runs(written, tmp_path_factory):
    return CliRuns(written, tmp_path_factory.mktemp("cli-runs"))


# -- the matrix -----------------------------------------------------------------------------------
@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("kind", INPUT_KINDS, ids=str)
@pytest.mark.parametrize("method", METHODS)
def test_crossing(method: str, kind: InputKind, action: str, cli_runs: CliRuns, written) -> None:
    cls, w = REGISTRY[method], written(kind)
    run = cli_runs.full(method, kind)
    if run_refusal(cls, w) is not None:
        expect_refusal(run, method)
        return
    expect_ok(run, "mvc run")
    ACTION_CHECKS[action](method, kind, w, run, cli_runs)


def _labels(method, kind, w: Written, run: Call, runs: CliRuns) -> None:
    check_labels(run.files["labels"], w)


def _write_back(method, kind, w: Written, run: Call, runs: CliRuns) -> None:
    if w.write_back is None:  # no metadata table or .h5ad/.h5mu to add a column to
        call = runs.only(method, kind, "--write-back", "new.tsv")
        expect_refusal(call, method, "--write-back")
        check_inputs_unchanged(w)
        return
    clusters = check_labels(run.files["labels"], w)
    check_write_back(run.files["write-back"], w, clusters)


def _written(method, kind, run: Call, runs: CliRuns, flag: str, name: str) -> tuple[Path, Path]:
    """The file ``flag`` wrote and the labels of that run: a streamed run writes profiles and
    the HTML report too (they read the views in row blocks), in a run of its own."""
    if runs.written(kind).stream:
        run = runs.only(method, kind, flag, name)
        expect_ok(run, f"mvc run --stream {flag}")
        run = Call(run.argv, 0, files={"labels": run.files["labels"], name: run.files[flag]})
    path = run.files[name]
    if not path.exists():
        fail(f"{flag} file not written", str(path))
    return path, run.files["labels"]


def _profile(method, kind, w: Written, run: Call, runs: CliRuns) -> None:
    path, labels = _written(method, kind, run, runs, "--profile", "profile")
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    clusters = check_labels(labels, w)
    check_profile_rows(rows, w.load_in_memory(), clusters, "profiles")


def _predict(method, kind, w: Written, run: Call, runs: CliRuns) -> None:
    report = run.files["report"]
    if not report.exists():
        fail("run record not written", str(report))
    out = report.with_name("pred.csv")
    pred = call_cli(["predict", "--run", str(report), *w.data_args, "--out", str(out)])
    expect_ok(pred, "mvc predict with the run's data arguments")
    got = check_labels(out, w, "predicted labels")
    own = labels_by_id(run.files["labels"])
    share = agreement(own, got)
    if share < 0.9:
        fail("predict does not reproduce the run's labels", f"{share:.1%} agree on the data")


def _session(method, kind, w: Written, run: Call, runs: CliRuns) -> None:
    """A session built from the run's record and labels (as the app would hold it), saved,
    read back and its data reopened: labels, ids and parameters survive."""
    from core.cli.data_args import table_spec
    from core.cli.main import build_parser
    from core.data.io import load_dataset, load_spec
    from core.data.io.aligned import DataSpec
    from core.records.runs import RunResult
    from core.records.session_file import (
        DataSource,
        SessionState,
        StoredRun,
        load_session,
        resolve_data_path,
        save_session,
    )

    rec = json.loads(run.files["report"].read_text())
    by_id = labels_by_id(run.files["labels"])
    n = rec["n_samples"]
    ids = rec["sample_ids"] or [str(i) for i in range(1, n + 1)]
    if (rec["sample_ids"] is not None) != w.own_ids:
        fail("run record: sample_ids do not say whether the data has ids", repr(ids[:3]))
    labels = np.array([by_id[i] for i in ids])
    result = RunResult(
        method=rec["method"], params=rec["params"], labels=labels,
        view_names=rec["view_names"], metrics=rec["metrics"], n_iter=rec["n_iter"],
        converged=rec["converged"], dataset=rec["dataset"], preprocessing=rec["preprocessing"],
        sample_ids=rec["sample_ids"], class_names=rec["class_names"],
    )  # fmt: skip
    args = build_parser(method).parse_args(["run", "--method", method, *w.data_args])
    spec = table_spec(args)
    views = list(rec["view_names"])
    source = DataSource("tables" if spec else "file", rec["dataset"]["name"], n, views,
                        sample_ids=rec["sample_ids"])  # fmt: skip
    if spec is not None:
        source.spec = spec.to_dict()
    else:
        source.path = str(Path(args.file).resolve())
    stored_run = StoredRun(1, result, rec["timings"].get("total"))
    state = SessionState(source, [True] * len(views), ["auto"] * len(views), method,
                         dict(rec["params"]), [stored_run])  # fmt: skip
    path = run.files["report"].with_name("run.mvcs.json")
    save_session(path, state)
    back = load_session(path)
    stored = back.runs[0].result
    if back.method != method or back.params != rec["params"] or stored.params != rec["params"]:
        fail("session: method or parameters changed", f"{back.method} {back.params}")
    if not np.array_equal(stored.labels, labels):
        fail("session: labels changed", f"{int((stored.labels != labels).sum())} differ")
    if back.source.sample_ids != rec["sample_ids"] or back.source.n_samples != n:
        fail("session: sample ids changed", repr((back.source.sample_ids or [])[:3]))
    if stored.metrics != {k: float(v) for k, v in rec["metrics"].items()}:
        fail("session: metrics changed", repr(stored.metrics))
    # reopening: the session's data source gives the same samples, in the same order
    if back.source.kind == "tables":
        ds = load_spec(DataSpec.from_dict(back.source.spec))
    else:
        ds = load_dataset(resolve_data_path(back.source, path))
    if ds.n_samples != n or list(ds.view_names) != views:
        fail("session: the reopened data differs",
             f"{ds.n_samples} samples {list(ds.view_names)}, run {n} {views}")  # fmt: skip
    reopened = dict(zip(ds.ids.tolist(), stored.labels.tolist(), strict=True))
    if reopened != by_id:
        fail("session: reopened labels are not on the same ids", "")


def _html(method, kind, w: Written, run: Call, runs: CliRuns) -> None:
    path, _ = _written(method, kind, run, runs, "--html", "html")
    text = path.read_text(encoding="utf-8")
    cls = REGISTRY[method]
    if method not in text and cls.title not in text:
        fail("HTML report does not name the method", method)
    if w.dataset_name not in text:
        fail("HTML report does not name the dataset", w.dataset_name)


def _explain(method, kind, w: Written, run: Call, runs: CliRuns) -> None:
    """``mvc explain`` with the run's data arguments and a cluster as the group: the tables
    count only the samples that have each view; an unknown id is a clear refusal."""
    report = run.files["report"]
    if not report.exists():
        fail("run record not written", str(report))
    by_id = labels_by_id(run.files["labels"])
    first = next(iter(by_id.values()))
    group = [i for i, k in by_id.items() if k == first]
    folder = report.parent / "explain"
    folder.mkdir(exist_ok=True)
    ids = folder / "group.txt"
    ids.write_text("\n".join(group) + "\n", encoding="utf-8")
    data = [*w.data_args, *w.run_flags]
    call = call_cli(["explain", str(report), *data, "--group", str(ids), "--out-dir",
                     str(folder / "out")])  # fmt: skip
    expect_ok(call, "mvc explain with the run's data arguments")
    check_explain(folder / "out", w.load_in_memory(), group, "mvc explain")
    bad = folder / "strangers.txt"
    bad.write_text(f"{group[0]}\nno-such-sample\n", encoding="utf-8")
    refused = call_cli(["explain", str(report), *data, "--group", str(bad), "--out-dir",
                        str(folder / "refused")])  # fmt: skip
    expect_refusal(refused, method)
    if "no-such-sample" not in refused.err:
        fail("explain refusal does not name the unknown id", refused.last_err())
    if (folder / "refused").exists():
        fail("explain wrote tables before refusing", str(folder / "refused"))


# -- the number of clusters estimated (no action: a run parameter) ------------------------------
def _estimate(runs: CliRuns, method: str, kind: InputKind) -> Call:
    key = (method, kind.name, "auto-k")
    if key not in runs.cache:
        w = runs.written(kind)
        report = runs.folder(method, kind.name, "auto-k") / "run.json"
        call = call_cli([*runs.base(method, w), "--n-clusters", "auto", "--report", str(report)])
        call.files = {"report": report}
        runs.cache[key] = call
    return runs.cache[key]


@pytest.mark.parametrize("kind", INPUT_KINDS, ids=str)
@pytest.mark.parametrize("method", METHODS)
def test_auto_k_is_the_datas(method: str, kind: InputKind, cli_runs: CliRuns, written) -> None:
    """``--n-clusters auto`` on every input kind: estimated, and the same for every method
    (the estimate reads the data as the ``general`` rule prepares it, whatever the method
    reads: FMDC's rule is that one)."""
    cls, w = REGISTRY[method], written(kind)
    run = _estimate(cli_runs, method, kind)
    if run_refusal(cls, w) is not None:
        expect_refusal(run, method)
        return
    expect_ok(run, "mvc run --n-clusters auto")
    estimate = json.loads(run.files["report"].read_text())["n_clusters_estimate"]
    reference = _estimate(cli_runs, "fmdc", kind)
    expect_ok(reference, "mvc run --method fmdc --n-clusters auto")
    want = json.loads(reference.files["report"].read_text())["n_clusters_estimate"]["ranked"]
    if estimate["ranked"] != want:
        fail("the estimate depends on the method", f"{estimate['ranked']} against FMDC's {want}")


#: one check per action, by name (a new action in ACTIONS needs its check here)
ACTION_CHECKS = {a: globals()["_" + a.replace("-", "_")] for a in ACTIONS}
