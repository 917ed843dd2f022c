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


def test_repros_one_per_kind_of_failure_in_a_stated_place(tmp_path, monkeypatch, capsys):
    """Not a file per disagreement in the current directory: by default a new temporary
    directory, named in the output, with one repro per kind of failure; --max-repros
    sets how many, 0 none."""
    import tempfile

    (tmp_path / "cwd").mkdir()
    (tmp_path / "tmp").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    assert main(["run", "--engine", "fault:drop-eos", "--suite", REGEX_SUITE, "--quiet"]) == 1
    out = capsys.readouterr().out
    assert not os.listdir(tmp_path / "cwd")
    [made] = os.listdir(tmp_path / "tmp")
    folder = tmp_path / "tmp" / made / "fault_drop-eos"
    assert made.startswith("maskref-repros-") and len(os.listdir(folder)) == 2  # one repro: .txt and .jsonl
    failing = sum(1 for line in out.splitlines() if line.startswith("  DISAGREE"))
    assert "repros: 1 written to %s (at most 1 per kind of failure" % folder in out
    assert "55 failures without one" in out and failing == 20  # (the table shows 20 of the 56)
    assert main(["run", "--engine", "fault:drop-eos", "--suite", REGEX_SUITE, "--quiet", "--max-repros", "0"]) == 1
    assert "repros: none written (--max-repros 0); 56 failures without one" in capsys.readouterr().out
    assert len(os.listdir(tmp_path / "tmp")) == 1  # no directory made for none
    mine = tmp_path / "mine"
    assert main(["run", "--engine", "fault:drop-eos", "--suite", REGEX_SUITE, "--quiet", "--repros", str(mine),
                 "--max-repros", "3"]) == 1
    assert len(os.listdir(mine / "fault_drop-eos")) == 6


def test_progress_says_the_failures_so_far_and_the_time_left():
    """The run's progress line (refimpl/progress.py draws it: `run ENGINE · 212/588 ·
    <this note> · 5 s`)."""
    from conformance.runner import Report, Result, progress_note

    report = Report(get_engine("refimpl"))
    assert progress_note(report, 0, 588, 0.5) == "0 disagreeing"  # no rate yet: no time left
    crash = Result("v", "regex", "disagree", divergence={"step": 0})
    crash.fault = "crash"
    report.add(crash)
    report.add(Result("w", "regex", "disagree", divergence={"step": 1}))
    assert progress_note(report, 2, 588, 1.0) == "1 disagreeing · 1 faults · about 5 min left"
    assert progress_note(report, 2, 5000, 1.0) == "1 disagreeing · 1 faults · about 42 min left"


class _Refusing:
    """An engine whose start raises `error` (or, None, returns a session)."""

    def __init__(self, error, uses_refimpl=False):
        from conformance.engine import Engine, Session

        class Fake(Engine):
            name = "fake"

            def start(self, spec, vocab, grammar=None):
                if error is not None:
                    raise error
                return Session()

        self.engine = Fake()
        self.engine.uses_refimpl = uses_refimpl


def test_an_error_vector_passes_an_engine_that_refuses_its_grammar(tmp_path):
    """Any error at the start is a refusal (a peer's Refused, or what it raises), a
    NotSupported that is not one is unsupported, a session is a disagreement (under:
    what should be refused is allowed); refimpl's engines must raise refimpl's error
    at refimpl's position (an offset one off, or a TypeError, disagrees)."""
    from conformance.runner import write_repro
    from conformance.vectors import GrammarSpec, NotSupported, Refused, byte_vocabulary, refused
    from refimpl import GrammarError

    spec = GrammarSpec("lark", "start: /a(/\n")
    v = refused(spec, byte_vocabulary(), "test/bad-regex")
    assert v.error == {"type": "GrammarError", "offset": 9, "line": 1, "column": 10}
    assert check_vector(get_engine("refimpl"), v).status == "agree"
    assert check_vector(get_engine("oracle"), v).status == "agree"
    assert check_vector(_Refusing(Refused("peer: bad regex")).engine, v).status == "agree"
    assert check_vector(_Refusing(RuntimeError("peer: bad regex")).engine, v).reason == "RuntimeError: peer: bad regex"
    assert check_vector(_Refusing(NotSupported("peer: no Lark")).engine, v).status == "unsupported"
    accepted = check_vector(_Refusing(None).engine, v)
    assert accepted.status == "disagree" and accepted.divergence["direction"] == "under"
    assert accepted.divergence["error"] == (
        "accepts a grammar refimpl refuses: GrammarError (offset 9, line 1, column 10)")
    one_off = GrammarError("invalid regex", spec.source, 8)
    assert check_vector(_Refusing(one_off).engine, v).status == "agree"  # a peer: any error
    wrong = check_vector(_Refusing(one_off, uses_refimpl=True).engine, v)
    assert wrong.status == "disagree" and wrong.divergence["error"].startswith(
        "refuses the grammar with GrammarError (offset 8, line 1, column 9), refimpl with GrammarError (offset 9")
    typed = check_vector(_Refusing(TypeError("unsupported operand"), uses_refimpl=True).engine, v)
    assert typed.status == "disagree" and "refuses the grammar with TypeError, refimpl" in typed.divergence["error"]
    from conformance.bugreport import divergences  # what a bug report looks for: the same one divergence

    assert [d.error for d in divergences(_Refusing(None).engine, v)] == [accepted.divergence["error"]]
    assert list(divergences(_Refusing(Refused("peer: bad regex")).engine, v)) == []
    text = open(write_repro(str(tmp_path), _Refusing(None).engine, v, accepted.divergence), encoding="utf-8").read()
    assert "start: /a(/" in text and "expected     refimpl refuses the grammar: GrammarError (offset 9" in text
    assert "path " not in text
