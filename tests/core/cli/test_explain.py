"""``mvc explain RUN.json DATA``: a group against the rest, the clusters against the metadata,
survival and view agreement, as CSV (core/cli/explain.py)."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from core.cli.main import main
from tests.nutrimouse_tables import nutrimouse, table_args, write_nutrimouse


def _rows(path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _add_columns(meta, columns: dict[str, dict[str, str]]) -> None:
    """Add columns (mouse id -> value) to the metadata table."""
    rows = _rows(meta)
    names = [*rows[0].keys(), *columns]
    lines = [",".join(names)]
    for r in rows:
        extra = [columns[c][r["mouse_id"]] for c in columns]
        lines.append(",".join([*r.values(), *extra]))
    meta.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def mice(tmp_path_factory):
    """Nutrimouse-like tables (two mice without lipids) with a random number column, and a
    survival time planted by genotype (ppar mice die sooner), with an event flag."""
    root = tmp_path_factory.mktemp("explain")
    t = write_nutrimouse(root / "data")
    data = t["data"]
    rng = np.random.default_rng(11)
    ids = data["ids"].tolist()
    time = rng.exponential(np.where(data["genotype"] == 1, 1.0, 20.0))
    censor = rng.exponential(40.0, len(ids))
    event = (time <= censor).astype(int)
    columns = {
        "weight": {i: f"{v:.3f}" for i, v in zip(ids, rng.normal(25, 3, len(ids)), strict=True)},
        "months": {i: f"{v:.3f}" for i, v in zip(ids, np.minimum(time, censor), strict=True)},
        "died": {i: str(v) for i, v in zip(ids, event, strict=True)},
        "status": {i: "2" if v else "0" for i, v in zip(ids, event, strict=True)},
    }
    _add_columns(t["meta"], columns)
    return root, t


def _run(root, t, method: str, *extra: str) -> str:
    report = root / f"{'_'.join([method, *extra]).replace('-', '')}.json"
    if not report.exists():
        argv = ["run", *table_args(t), "--method", method, "--n-clusters", "10", "--quiet",
                "--report", str(report), *extra]  # fmt: skip
        assert main(argv) == 0
    return str(report)


def test_association_ranks_diet_and_genotype_above_random_columns_and_survival(mice, capsys):
    root, t = mice
    report = _run(root, t, "alpc")
    out = root / "explained"
    argv = ["explain", report, *table_args(t), "--time-column", "months", "--event-column",
            "died", "--out-dir", str(out)]  # fmt: skip
    assert main(argv) == 0, capsys.readouterr().err
    said = capsys.readouterr().out
    assert "each of the 10 clusters compared with the rest" in said
    assert "log-rank across clusters" in said
    table = _rows(out / "association.csv")
    order = [r["column"] for r in table]
    for strong in ("genotype", "diet"):
        for weak in ("cage", "weight"):
            assert order.index(strong) < order.index(weak), order
    rows = {r["column"]: r for r in table}
    assert float(rows["genotype"]["p"]) < 0.01 and float(rows["diet"]["p"]) < 0.01
    assert float(rows["weight"]["p"]) > 0.05 and rows["weight"]["test"] == "Kruskal-Wallis"
    assert rows["diet"]["test"] == "chi-square" and rows["diet"]["effect_name"] == "Cramér's V"
    assert float(rows["months/died"]["p"]) < 0.01 and rows["months/died"]["test"] == "log-rank"
    curves = _rows(out / "survival.csv")
    assert len({r["cluster"] for r in curves}) >= 2 and float(curves[0]["logrank_p"]) < 0.01
    agreement = _rows(out / "view_agreement.csv")
    assert [r["view"] for r in agreement] == ["genes", "lipids"]
    assert [int(r["n_observed"]) for r in agreement] == [40, 38]
    compare = _rows(out / "compare.csv")
    assert {r["group"] for r in compare} == {f"cluster {k}" for k in range(10)}
    composition = _rows(out / "composition.csv")
    assert {r["group"] for r in composition} == {*(f"cluster {k}" for k in range(10)), "all"}


def test_a_group_against_the_rest_counts_only_the_mice_that_have_the_view(mice, capsys):
    root, t = mice
    report = _run(root, t, "alpc")
    data = t["data"]
    ids = data["ids"]
    ppar = ids[data["genotype"] == 1]
    group = root / "ppar.txt"
    group.write_text("\n".join(ppar) + "\n")
    out = root / "ppar"
    argv = ["explain", report, *table_args(t), "--group", str(group), "--out-dir", str(out)]
    assert main(argv) == 0, capsys.readouterr().err
    rows = _rows(out / "compare.csv")
    no_lipids = set(t["no_lipids"])
    in_group = sum(1 for i in ppar if i not in no_lipids)
    lipid_rows = [r for r in rows if r["view"] == "lipids"]
    gene_rows = [r for r in rows if r["view"] == "genes"]
    assert len(lipid_rows) == 21 and len(gene_rows) == 120
    assert {(int(r["n_a"]), int(r["n_b"])) for r in lipid_rows} == {(in_group, 38 - in_group)}
    assert {(int(r["n_a"]), int(r["n_b"])) for r in gene_rows} == {(20, 20)}
    # the genes carry the genotype: many differ, in both directions
    sig = [r for r in gene_rows if float(r["q"]) < 0.05]
    assert {r["direction"] for r in sig} == {"higher", "lower"} and len(sig) > 30
    composition = {(r["group"], r["column"], r["value"]): int(r["count"])
                   for r in _rows(out / "composition.csv")}  # fmt: skip
    assert composition[("group", "genotype", "ppar")] == 20
    assert composition[("group", "size", "")] == 20 and composition[("all", "size", "")] == 40
    alpha = root / "ppar-alpha"
    assert main([*argv[:-1], str(alpha), "--alpha", "0.05"]) == 0
    assert len(_rows(alpha / "compare.csv")) == sum(
        1 for r in rows if float(r["q"]) < 0.05
    )  # fmt: skip
    versus = root / "wt.txt"
    versus.write_text("\n".join(ids[data["genotype"] == 0][:8]) + "\n")
    pair = root / "pair"
    argv = ["explain", report, *table_args(t), "--group", str(group), "--versus", str(versus),
            "--out-dir", str(pair)]  # fmt: skip
    assert main(argv) == 0
    genes = [r for r in _rows(pair / "compare.csv") if r["view"] == "genes"]
    assert {(int(r["n_a"]), int(r["n_b"])) for r in genes} == {(20, 8)}


def _refused(argv, capsys) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mvc: error: "), err
    return err[0]


def test_bad_input_is_refused_in_one_line(mice, capsys, tmp_path):
    root, t = mice
    report = _run(root, t, "alpc")
    data = [*table_args(t)]
    out = ["--out-dir", str(tmp_path / "out")]
    bad = tmp_path / "bad.txt"
    bad.write_text("mouse_1\nmouse_999\n")
    err = _refused(["explain", report, *data, "--group", str(bad), *out], capsys)
    assert "mouse_999" in err and "bad.txt" in err
    err = _refused(["explain", report, *data, "--time-column", "nosuch", "--event-column",
                    "died", *out], capsys)  # fmt: skip
    assert "nosuch" in err
    err = _refused(["explain", report, *data, "--time-column", "months", "--event-column",
                    "status", *out], capsys)  # fmt: skip
    assert "--event-column status" in err and "0 (censored) or 1" in err
    err = _refused(["explain", report, *data, "--versus", str(bad), *out], capsys)
    assert "--versus goes with --group" in err
    err = _refused(["explain", report, *data, "--time-column", "months", *out], capsys)
    assert "--time-column" in err
    err = _refused(["explain", report, *data, "--align", "shared", *out], capsys)
    assert "other data: 2 of its sample ids" in err  # the two mice without lipids
    shared = _run(root, t, "alpc", "--align", "shared")
    capsys.readouterr()  # the run's notes
    err = _refused(["explain", shared, *data, *out], capsys)
    assert "made on 38 of the 40 samples" in err and "--align shared" in err
    other = write_nutrimouse(tmp_path / "other", nutrimouse(n_per=1, start=41, seed=5))
    err = _refused(["explain", report, *table_args(other), *out], capsys)
    assert "other data" in err
    err = _refused(["explain", str(tmp_path / "none.json"), *data, *out], capsys)
    assert "none.json not found" in err
    (tmp_path / "old.json").write_text('{"format": "mvc-studio-run/1", "method": "fmdc"}')
    err = _refused(["explain", str(tmp_path / "old.json"), *data, *out], capsys)
    assert "old.json holds no cluster labels" in err
    (tmp_path / "other.json").write_text("[1, 2]")
    err = _refused(["explain", str(tmp_path / "other.json"), *data, *out], capsys)
    assert "other.json is not an MVC Studio run record" in err
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_a_planted_group_gives_exactly_its_features_in_both_directions(tmp_path, capsys):
    """Id-keyed tables: a dense view, and a count view some samples are absent from; the
    group's compare.csv at q < 0.05 lists exactly the planted features, higher and lower,
    and the absent samples count in neither group."""
    from tests.planted_groups import HIGHER, LOWER, planted

    views, a, observed = planted()
    n = views[0].shape[0]
    ids = [f"s{i:03d}" for i in range(n)]
    counts = views[1].toarray()
    for name, x, rows in (("expr", views[0], range(n)),
                          ("counts", counts, np.flatnonzero(observed[:, 1]))):  # fmt: skip
        lines = ["id," + ",".join(f"{name}{j}" for j in range(x.shape[1]))]
        lines += [f"{ids[i]}," + ",".join(repr(float(v)) for v in x[i]) for i in rows]
        (tmp_path / f"{name}.csv").write_text("\n".join(lines) + "\n")
    data = [arg for name in ("expr", "counts")
            for arg in ("--view", f"{name}={tmp_path / name}.csv")]  # fmt: skip
    report = tmp_path / "run.json"
    assert main(["run", *data, "--method", "fmdc", "--n-clusters", "2", "--quiet",
                 "--report", str(report)]) == 0  # fmt: skip
    group = tmp_path / "group.txt"
    group.write_text("# the planted group\n" + "\n".join(ids[i] for i in a) + "\n")
    out = tmp_path / "out"
    argv = ["explain", str(report), *data, "--group", str(group), "--alpha", "0.05",
            "--out-dir", str(out)]  # fmt: skip
    assert main(argv) == 0, capsys.readouterr().err
    rows = _rows(out / "compare.csv")
    planted_names = {f"{v}{j}" for v in ("expr", "counts") for j in HIGHER + LOWER}
    assert {r["name"] for r in rows} == planted_names
    for r in rows:
        j = int(r["feature"]) - 1
        assert r["direction"] == ("higher" if j in HIGHER else "lower"), r
    in_a = np.zeros(n, dtype=bool)
    in_a[a] = True
    seen = observed[:, 1]
    counted = {(int(r["n_a"]), int(r["n_b"])) for r in rows if r["view"] == "counts"}
    assert counted == {(int((seen & in_a).sum()), int((seen & ~in_a).sum()))}
    assert int((seen & in_a).sum()) < a.size
    mean = {r["name"]: float(r["mean_a"]) for r in rows}
    assert mean["counts0"] == pytest.approx(counts[seen & in_a, 0].mean(), rel=1e-5)
