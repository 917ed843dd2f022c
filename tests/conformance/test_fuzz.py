"""Differential fuzzing (conformance/fuzz.py): with a fixed seed it finds each injected
fault and shrinks it to a short repro that replays; it is deterministic for a seed and
spreads over jobs; it finds nothing between the Matcher and the naive oracle."""
import os

import pytest


from conformance.faults import FAULTS
from conformance.registry import get_engine
from conformance.runner import check_vector
from conformance.vectors import (
    read_vectors,
)


# fixed seeds; each fault is found in a few seconds (the budget is a ceiling)
FUZZ_BUDGET = 45.0


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_fuzz_finds_each_fault(fault, tmp_path):
    from conformance.fuzz import fuzz

    # the grammar kinds the budget was measured on: a GBNF grammar cut to one-letter lexemes
    # is correct but slow to walk (a parser row per trie node), long under PyPy
    report = fuzz("fault:" + fault, FUZZ_BUDGET, seed=0, out_dir=str(tmp_path), first_only=True, quiet=True,
                  kinds=("regex", "lark", "json_schema"))
    assert report.failures, report.table()
    f = report.failures[0]
    vector = next(v for _, _, v in read_vectors(os.path.join(str(tmp_path), "fault_" + fault, "fuzz-vectors.jsonl")))
    assert len(vector.path) <= 3  # shrunk to a short path
    # the minimal case replays as a disagreement, and refimpl agrees with itself on it
    assert check_vector(get_engine("fault:" + fault), vector).status == "disagree"
    assert check_vector(get_engine("refimpl"), vector).status == "agree"
    assert os.path.exists(f["repro"])


def test_fuzz_is_deterministic_and_spreads_over_jobs(tmp_path):
    from conformance.fuzz import fuzz

    lines = []
    for i in range(2):
        out = str(tmp_path / str(i))
        fuzz("fault:drop-eos", 20, seed=7, out_dir=out, first_only=True, quiet=True)
        with open(os.path.join(out, "fault_drop-eos", "fuzz-vectors.jsonl"), encoding="utf-8") as f:
            lines.append(f.read())
    assert lines[0] == lines[1] and lines[0]
    report = fuzz("fault:utf8-split", 20, seed=7, jobs=2, out_dir=str(tmp_path / "jobs"), first_only=True, quiet=True)
    assert report.failures and report.jobs == 2


def test_fuzz_finds_nothing_between_matcher_and_oracle(tmp_path):
    from conformance.fuzz import fuzz

    report = fuzz("oracle", 4, seed=3, out_dir=str(tmp_path), quiet=True)
    assert not report.failures, report.table()
    assert report.stats.steps > 0


def test_special_is_a_vocabulary_mode(tmp_path):
    from conformance.strategies import VOCAB_MODES

    assert "special" in VOCAB_MODES
    report = fuzz_oracle_special(tmp_path)
    assert not report.failures, report.table()
    assert report.stats.steps > 0


def fuzz_oracle_special(tmp_path):
    from conformance.fuzz import fuzz

    return fuzz("oracle", 4, seed=5, out_dir=str(tmp_path), quiet=True, vocab_mode="special", kinds=["lark"])
