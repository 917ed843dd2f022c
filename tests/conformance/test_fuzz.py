"""Differential fuzzing (conformance/fuzz.py): with a fixed seed it finds each injected
fault and shrinks it to a short repro that replays; it is deterministic for a seed and
spreads over jobs; it finds nothing between the Matcher and the naive oracle.

Every campaign here is bounded by work (a number of batches), not by time: the same
examples and shrinks on any machine, however loaded.
"""
import json
import os

import pytest

from conformance.__main__ import main
from conformance.faults import FAULTS
from conformance.fuzz import Worker, fuzz
from conformance.registry import get_engine
from conformance.runner import check_vector
from conformance.strategies import VOCAB_MODES
from conformance.vectors import Vector, read_vectors

#: seed 0 finds each fault within this many batches: drop-eos and utf8-split in the first,
#: no-pop and slice-last in the third, negated-range in the 25th (a bound, not a target)
FAULT_BATCHES = 30


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_fuzz_finds_each_fault(fault, tmp_path):
    # the grammar kinds the bound was measured on: a GBNF grammar cut to one-letter lexemes
    # is correct but slow to walk (a parser row per trie node), long under PyPy
    report = fuzz("fault:" + fault, None, seed=0, out_dir=str(tmp_path), first_only=True, quiet=True,
                  kinds=("regex", "lark", "json_schema"), batches=FAULT_BATCHES)
    assert report.failures, report.table()
    f = report.failures[0]
    vector = next(v for _, _, v in read_vectors(os.path.join(str(tmp_path), "fault_" + fault, "fuzz-vectors.jsonl")))
    assert len(vector.path) <= 3  # shrunk to a short path
    # the minimal case replays as a disagreement, and refimpl agrees with itself on it
    assert check_vector(get_engine("fault:" + fault), vector).status == "disagree"
    assert check_vector(get_engine("refimpl"), vector).status == "agree"
    assert os.path.exists(f["repro"])


def test_fuzz_is_deterministic_and_spreads_over_jobs(tmp_path):
    lines = []
    for i in range(2):
        out = str(tmp_path / str(i))
        fuzz("fault:drop-eos", None, seed=7, out_dir=out, first_only=True, quiet=True, batches=3)
        with open(os.path.join(out, "fault_drop-eos", "fuzz-vectors.jsonl"), encoding="utf-8") as f:
            lines.append(f.read())
    assert lines[0] == lines[1] and lines[0]
    report = fuzz("fault:utf8-split", None, seed=7, jobs=2, out_dir=str(tmp_path / "jobs"), first_only=True, quiet=True,
                  batches=3)
    assert report.failures and report.jobs == 2


def test_a_campaign_is_bounded_by_time_or_by_batches(tmp_path, capsys):
    """The same batches whatever the clock says; the time bound stays for users (and
    --batches on the command line)."""
    report = fuzz("refimpl", None, seed=1, out_dir=str(tmp_path), quiet=True, batches=2, examples_per_batch=3)
    assert report.batches == 2 and report.stats.examples >= 6 and not report.failures
    assert main(["fuzz", "--engine", "refimpl", "--batches", "1", "--quiet", "--out", str(tmp_path)]) == 0
    assert "1 batches" in capsys.readouterr().out


def test_fuzz_finds_nothing_between_matcher_and_oracle(tmp_path):
    report = fuzz("oracle", None, seed=3, out_dir=str(tmp_path), quiet=True, batches=1, examples_per_batch=12)
    assert not report.failures, report.table()
    assert report.stats.steps > 0


def test_special_is_a_vocabulary_mode(tmp_path):
    assert "special" in VOCAB_MODES
    report = fuzz("oracle", None, seed=5, out_dir=str(tmp_path), quiet=True, vocab_mode="special", kinds=["lark"],
                  batches=1, examples_per_batch=12)
    assert not report.failures, report.table()
    assert report.stats.steps > 0


def test_the_time_budget_cuts_a_shrink_short_and_keeps_the_smallest_case_so_far():
    """A clock that passes the deadline as the first disagreement is found (no timed
    assertion: the clock is the test's): nothing is left for shrinking, the campaign ends
    after hypothesis's first shrink step, and the disagreement is recorded, marked as cut
    short; without a time budget, the same batch shrinks further to the same kind."""
    worker = {}

    def clock():
        w = worker.get("w")
        return 1e6 if w is not None and w.shrinking else 0.0

    kinds = ("regex", "lark", "json_schema")
    w = worker["w"] = Worker("fault:utf8-split", 100.0, seed=0, worker=0, max_steps=8, clock=clock)
    cut = w.run(kinds, "mixed", first_only=True, examples_per_batch=25)
    assert cut["batches"] == 1 and len(cut["failures"]) == 1
    f = cut["failures"][0]
    assert f["cut_short"] and f["divergence"]["signature"] == "regex:extra-partial-utf8"
    assert f["shrink_examples"] <= 3, f["shrink_examples"]
    vector = Vector.from_json(json.loads(f["vector"]))  # a disagreement seen, as it replays
    assert check_vector(get_engine("fault:utf8-split"), vector).status == "disagree"
    full = Worker("fault:utf8-split", None, seed=0, worker=0, max_steps=8, batches=1).run(
        kinds, "mixed", first_only=True, examples_per_batch=25)
    g = full["failures"][0]
    # at least as far (on PyPy the first failing example can be minimal already)
    assert not g["cut_short"] and g["shrink_examples"] >= f["shrink_examples"]
    assert g["divergence"]["signature"] == f["divergence"]["signature"]


def test_a_cut_short_shrink_is_said_in_the_table_and_the_repro(tmp_path, monkeypatch):
    import conformance.fuzz as fuzz_module

    monkeypatch.setattr(fuzz_module, "SHRINK_SECONDS", 0.0)  # a shrink's own bound: none left
    report = fuzz("fault:drop-eos", None, seed=0, out_dir=str(tmp_path), first_only=True, quiet=True,
                  kinds=("regex",), batches=1)
    assert report.failures and report.failures[0]["cut_short"]
    assert fuzz_module.CUT_SHORT in report.table()
    with open(report.failures[0]["repro"], encoding="utf-8") as f:
        assert fuzz_module.CUT_SHORT in f.read()
