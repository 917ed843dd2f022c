"""The runner (conformance/runner.py): refimpl's own engines and the oracle agree with
the suite, and the compliance matrix has a row per engine."""
import os

import pytest

from conformance.__main__ import main
from conformance.generate import SUITE_DIR
from conformance.registry import get_engine
from conformance.runner import check_vector
from conformance.vectors import read_vectors

REGEX_SUITE = os.path.join(SUITE_DIR, "regex.jsonl")


def matcher_backends():
    try:
        import accel
    except ImportError:
        return []
    return [name for name, reason in accel.available_backends().items()
            if reason is None and name not in ("python", "cmd:<command>")]


@pytest.mark.parametrize("backend", matcher_backends())
def test_regex_suite_agrees_with_matcher_backends(backend, tmp_path):
    assert main(["run", "--backend", backend, "--suite", REGEX_SUITE, "--quiet", "--out", str(tmp_path)]) == 0


def test_oracle_reads_eos_that_ends_a_stop_lexeme():
    """The naive oracle goes on after an EOS that ended a stop="" lexeme (and after the
    token lexemes' EOS reads); it agrees with the Matcher on those vectors."""
    oracle = get_engine("oracle")
    ids = ("tokens/stop-eos/bytes/0", "tokens/stop-eos/special/0", "tokens/stop-eos-last/special/0",
           "tokens/eos-token/special/0")
    vectors = [v for _, _, v in read_vectors(os.path.join(SUITE_DIR, "tokens.jsonl")) if v.id in ids]
    assert len(vectors) == len(ids)
    for v in vectors:
        assert check_vector(oracle, v).status == "agree", v.id


def test_the_compliance_matrix_row(tmp_path):
    """`run --matrix`: one Markdown row per engine, a cell per grammar kind."""
    from conformance.runner import MATRIX_KINDS, matrix_header, matrix_row, run_suite

    suite = os.path.join(SUITE_DIR, "findings.jsonl")
    report = run_suite(get_engine("fault:drop-eos"), suite, str(tmp_path), quiet=True)
    row = matrix_row(report)
    assert matrix_header().splitlines()[0].count("|") == row.count("|") == len(MATRIX_KINDS) + 4
    cells = dict(zip([k for k, _ in MATRIX_KINDS], row.split(" | ")[1:]))
    lark = report.rows["lark"]
    assert cells["lark"].startswith("%d ✓ %d ≈ %d ✗" % (lark["agree"], lark["known"], lark["disagree"]))
    assert lark["disagree"] > 0  # the fault never allows EOS
