"""A seeded sample of damaged files (benchmarks/fuzz_loaders.py), each read in a child
process: no crash, no hang and no raw exception; every refusal a DataError naming the file."""

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
def test_forty_damaged_files_give_no_crash_hang_or_raw_exception():
    fuzz = _fuzz_module()
    shared = datasets_dir()
    cases = fuzz.fuzz(40, seed=2026, shared=shared, timeout=60, max_source_bytes=4 << 20)
    counts = Counter(c.outcome for c in cases)
    bad = [c for c in cases if c.outcome in ("crash", "hang", "raw exception")]
    assert not bad, fuzz.report(cases)
    assert counts["clear error"] > 0 and sum(counts.values()) == 40
