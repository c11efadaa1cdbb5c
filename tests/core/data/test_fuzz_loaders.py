"""A seeded sample of damaged files (benchmarks/fuzz_loaders.py), each read in a child
process: no crash, no hang, no raw exception and nothing silently wrong; every refusal a
DataError naming the file. The sample includes every structure mutation (a view list that
points at the labels, a MuData modality order that lies, a label vector of the wrong length)
of every generated file that takes it."""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import pytest

from conftest import datasets_dir

BENCH = Path(__file__).resolve().parents[3] / "benchmarks" / "fuzz_loaders.py"


def _fuzz_module():
    spec = importlib.util.spec_from_file_location("fuzz_loaders", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["fuzz_loaders"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_damaged_files_give_no_crash_hang_raw_exception_or_silently_wrong_load():
    fuzz = _fuzz_module()
    shared = datasets_dir()
    cases = fuzz.fuzz(
        16, seed=2026, shared=shared, timeout=60, max_source_bytes=4 << 20, every_structural=True
    )
    counts = Counter(c.outcome for c in cases)
    bad = [c for c in cases if c.outcome in fuzz.BAD]
    assert not bad, fuzz.report(cases)
    kinds = Counter(c.damage for c in cases)
    assert all(kinds[k] >= 1 for k in fuzz.STRUCTURAL), kinds
    assert counts["clear error"] > 0 and sum(counts.values()) == len(cases) >= 16 + 14


def test_a_view_that_is_the_labels_is_judged_silently_wrong_without_a_note():
    """The judge itself: the old loader (labels kept as a view, no note) would be caught."""
    fuzz = _fuzz_module()
    ref = {"n": 60, "views": [{"name": "view 1", "d": 7, "hash": "a"},
                              {"name": "view 2", "d": 40, "hash": "b"}],
           "labels": "y", "n_classes": 3, "label_variable": "'Y'", "metadata": [],
           "warnings": []}  # fmt: skip
    leaked = {**ref, "views": [*ref["views"], {"name": "view 3", "d": 1, "hash": "y"}]}
    source = fuzz.Source(Path("gen.mat"), "v5_cell", reference=ref)
    case = fuzz.Case("gen.mat", "labels-as-view", 1, Path("00001_gen.mat"), outcome="loaded")
    case.sig = leaked
    fuzz.judge(case, source)
    assert case.outcome == "silently wrong"
    case.outcome, case.sig = "loaded", {**leaked, "warnings": ["left out: view 3 ..."]}
    fuzz.judge(case, source)
    assert case.outcome == "loaded, noted"
