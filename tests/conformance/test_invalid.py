"""The `invalid` group (conformance/invalid.py): grammars every engine must refuse, as
error vectors; the checked-in group is what `generate` writes, refimpl and its worker
refuse each with the recorded error, and every frontend's error paths are covered."""
import collections
import os
import sys

import pytest

from conformance.generate import SUITE_DIR, generate
from conformance.invalid import TABLES
from conformance.registry import get_engine
from conformance.runner import check_vector
from conformance.vectors import ids_of, read_vectors

INVALID_SUITE = os.path.join(SUITE_DIR, "invalid.jsonl")


def stored():
    return [v for _, _, v in read_vectors(INVALID_SUITE)]


def test_checked_in_group_is_what_generate_writes():
    fresh = [v.to_line() for v in generate(kinds=["invalid"])["invalid"]]
    assert fresh == [v.to_line() for v in stored()]


@pytest.mark.parametrize("engine", ["refimpl", "cmd:%s -m refimpl.serving.worker" % sys.executable])
def test_each_vector_is_an_error_vector_refimpl_refuses_as_recorded(engine):
    """One step each (the empty mask, not accepting: what a reader that predates `error`
    reads), an id invalid/<table>/<name>, a note; refimpl agrees (refuses with the
    recorded error), and so does its worker (the grammar's text sent, its typed error
    back through the protocol)."""
    refimpl = get_engine(engine)
    by_table = collections.Counter()
    for v in stored():
        assert v.error is not None and v.error["type"] in ("RegexError", "GrammarError", "SchemaError"), v.id
        assert len(v.steps) == 1 and ids_of(v.steps[0].mask) == [] and not v.steps[0].accepting, v.id
        assert v.note and v.id.startswith("invalid/"), v.id
        by_table[v.id.split("/")[1]] += 1
        r = check_vector(refimpl, v)
        assert (r.status, r.reason.split(":")[0]) == ("agree", v.error["type"]), (v.id, r.to_json())
    assert set(by_table) == {name for name, _, _, _ in TABLES} and min(by_table.values()) >= 10, by_table
    # a bound on the group's size (181 since issue 35's error vectors of the ebnf
    # frontends, one per error no vector reached; about 1 s per engine)
    assert 60 <= sum(by_table.values()) <= 200


def test_positions_are_recorded():
    """Grammar errors say where (offset, line, column), regex errors the offset into the
    pattern, schema errors the pointer; the parametric rules' errors of issue 35's
    surviving mutants are among them."""
    errors = {v.id: v.error for v in stored()}
    assert errors["invalid/lark/bad-regex"] == {"type": "GrammarError", "offset": 9, "line": 1, "column": 10}
    assert errors["invalid/lark/param-condition-comma"]["type"] == "GrammarError"
    assert errors["invalid/lark/param-unused"] == {"type": "GrammarError", "offset": 12, "line": 2, "column": 1}
    assert errors["invalid/regex/unclosed-group"] == {"type": "RegexError", "offset": 1}
    assert errors["invalid/json_schema/negative-min-length"] == {"type": "SchemaError", "pointer": "/minLength"}
    assert all(e.get("offset") is not None for i, e in errors.items() if e["type"] == "RegexError")


def test_show_says_the_error(capsys):
    from conformance.__main__ import main

    assert main(["show", INVALID_SUITE, "--id", "invalid/regex/unclosed-group"]) == 0
    out = capsys.readouterr().out
    assert 'regex "a(b"' in out and "refused  type RegexError, offset 1" in out and "step" not in out
