"""User errors end as one line ``mvc: error: ...`` on stderr naming the user's own file, line,
column or flag, exit status 2: never a traceback, never the description file the command
hands its loader child (``tables.json``), never a parameter the user did not give."""

from __future__ import annotations

import numpy as np
import pytest

from core.cli.main import main

IDS = [f"mouse_{i}" for i in (4, 35, 7, 112, 18, 9, 250, 61, 3, 40, 77, 1)]


def _error(capsys, argv: list[str], alone: bool = True) -> str:
    """Run ``mvc``; it must fail with exit status 2 and one error line on stderr (the only
    line; or, ``alone=False``, the last one after the notes on the loaded data)."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines[-1].startswith("mvc: error: ") and "Traceback" not in err, lines
    assert len(lines) == 1 or not alone, lines
    assert "tables.json" not in err
    return lines[-1].removeprefix("mvc: error: ")


@pytest.fixture
def tables(tmp_path):
    """rna.csv (numbers) and meta.csv (text only: mouse_id,genotype,diet) keyed by mouse id."""
    rows = [f"{s},{i * 0.5:.2f},{(i % 3) * 1.5:.2f},{(i * 7) % 5}" for i, s in enumerate(IDS)]
    (tmp_path / "rna.csv").write_text("\n".join(["mouse_id,g1,g2,g3", *rows]) + "\n")
    meta = [f"{s},{('wt', 'het', 'ko')[i % 3]},{('chow', 'hfd')[i % 2]}" for i, s in enumerate(IDS)]
    (tmp_path / "meta.csv").write_text("\n".join(["mouse_id,genotype,diet", *meta]) + "\n")
    return tmp_path


def _run(folder, *extra: str, view: str = "rna.csv") -> list[str]:
    return ["run", "--method", "kmeans-concat", "--quiet", "--view", f"rna={folder / view}",
            "--meta", str(folder / "meta.csv"), *extra]  # fmt: skip


# -- 1. the header of a text-only metadata table ------------------------------------------


@pytest.mark.parametrize("extra", [[], ["--id-column", "mouse_id"]])
def test_the_label_column_of_a_text_only_metadata_table_is_found(tables, capsys, extra):
    argv = ["info", "--view", f"rna={tables / 'rna.csv'}", "--meta", str(tables / "meta.csv"),
            "--label-column", "diet", *extra]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "labels (diet): 2 classes (chow: 6, hfd: 6)" in out
    assert "metadata: genotype (categorical), diet (categorical)" in out


# -- 2. errors from the loader child name the user's files and flags ---------------------


@pytest.mark.parametrize("isolate", ["--isolate", "--no-isolate"])
@pytest.mark.parametrize(
    ("extra", "bad", "expected"),
    [
        (["--label-column", "subtype"], None,
         "--label-column: no column 'subtype' in meta.csv (metadata columns: 'genotype', 'diet')"),
        (["--id-column", "sample"], None, "rna.csv: no id column 'sample' (columns: 'mouse_id', "),
        ([], "oops",
         "rna.csv: column 'g2', data row 5 (line 6): 'oops' is not a number in a numeric column"),
    ],
)  # fmt: skip
def test_table_errors_name_the_users_file_or_flag(tables, capsys, isolate, extra, bad, expected):
    if bad:
        lines = (tables / "rna.csv").read_text().splitlines()
        cells = lines[5].split(",")
        cells[2] = bad
        lines[5] = ",".join(cells)
        (tables / "rna.csv").write_text("\n".join(lines) + "\n")
    assert _error(capsys, _run(tables, *extra, isolate)).startswith(expected)


# -- 3. a non-finite value: the file, its line and the column -----------------------------


@pytest.mark.parametrize("isolate", ["--isolate", "--no-isolate"])
def test_an_infinite_cell_names_the_file_line_and_column(tables, capsys, isolate):
    text = (tables / "rna.csv").read_text().replace("mouse_250,3.00,0.00", "mouse_250,inf,0.00")
    (tables / "rna.csv").write_text(text)
    assert _error(capsys, _run(tables, isolate)).startswith(
        "rna.csv: column 'g1', data row 7 (line 8): 'inf' is infinite"
    )


# -- 4. few samples, bad parameter text, labels of one class ------------------------------


@pytest.fixture
def npz(tmp_path):
    def write(n: int, y: np.ndarray | None = None, name: str = "data.npz") -> str:
        rng = np.random.default_rng(0)
        arrays = {"X0": rng.normal(size=(n, 4)), "X1": rng.normal(size=(n, 3))}
        np.savez(tmp_path / name, **arrays, **({} if y is None else {"y": y}))
        return str(tmp_path / name)

    return write


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("abc", "--n-clusters takes an integer in [2, 100000] or 'auto'; got 'abc'"),
        ("", "--n-clusters takes an integer in [2, 100000] or 'auto'; got ''"),
        ("2.5", "The 'n_clusters' parameter of"),
    ],
)
def test_a_parameter_that_is_no_number_names_its_flag(npz, capsys, value, expected):
    argv = ["run", npz(30, np.arange(30) % 2), "--method", "kmeans-concat", "--quiet"]
    assert _error(capsys, [*argv, "--n-clusters", value]).startswith(expected)


def test_other_number_flags_say_what_they_take(npz, capsys):
    argv = ["run", npz(30, np.arange(30) % 2), "--method", "fmdc", "--quiet", "--max-iter", "x"]
    assert _error(capsys, argv).startswith("--max-iter takes an integer in [")


def test_labels_of_one_class_fall_back_to_an_estimated_number_of_clusters(npz, capsys):
    """Never "The 'n_clusters' parameter ... Got 1": the user gave no n_clusters."""
    argv = ["run", npz(40, np.zeros(40, int)), "--method", "kmeans-concat", "--quiet"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "note: the labels ('y') have one class ('0') for all 40 samples" in captured.err
    assert "number of clusters estimated: k = " in captured.out and "ACC" not in captured.out


def test_a_label_column_of_one_class_is_refused_by_its_flag(tables, capsys):
    text = (tables / "meta.csv").read_text().replace(",hfd", ",chow")
    (tables / "meta.csv").write_text(text)
    assert _error(capsys, _run(tables, "--label-column", "diet")).startswith(
        "--label-column 'diet': every sample has the value 'chow' (1 class)"
    )


def test_too_few_samples_to_estimate_k_is_one_line(npz, capsys):
    argv = ["run", npz(3), "--method", "kmeans-concat", "--quiet"]
    message = _error(capsys, argv, alone=False)
    assert message.startswith("3 samples are too few to estimate the number of clusters")


def test_three_labelled_samples_still_run(npz, capsys):
    argv = ["run", npz(3, np.array([0, 1, 0])), "--method", "kmeans-concat", "--quiet"]
    assert main(argv) == 0


# -- 5. a view chosen twice ---------------------------------------------------------------


@pytest.mark.parametrize("views", ["1,1", "2,1,2"])
def test_a_view_chosen_twice_is_refused(npz, capsys, views):
    argv = ["run", npz(30, np.arange(30) % 2), "--method", "kmeans-concat", "--quiet"]
    message = _error(capsys, [*argv, "--views", views])
    twice = views[-1]  # the message may start with the flag: "--views 1,1: view 1 ..."
    assert f"view {twice} ('view {twice}') is selected twice: each view can be used once" in message


def test_the_seed_is_named_by_the_flag_the_user_typed(npz, capsys):
    argv = ["run", npz(30, np.arange(30) % 2), "--method", "kmeans-concat", "--quiet"]
    assert _error(capsys, [*argv, "--seed", "x"]).startswith("--seed takes an integer in [")
