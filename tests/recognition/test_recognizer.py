"""The recogniser (refimpl/recognition/recognizer.py): its state is a value.

(state, top) names what has been read; `advance`, `restart`, `flush`, `scan`,
`token_lexemes`, `accepts_at` and `eos_allowed` take a state and return one and move
nothing, so a state explored to any depth answers as the same bytes consumed from
scratch would, and the consumed state answers the same after any exploration. Only
consuming and rollback move (state, top). Random context-free grammars over multi-byte
lexemes (some lazy, some with %ignore: tests/support/grammars.py), random texts.
"""
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl import Grammar
from refimpl.errors import GrammarError
from refimpl.recognition.lexer import DEAD
from refimpl.recognition.recognizer import Recognizer
from tests.support.budget import examples
from tests.support.grammars import cfg_grammars

texts = st.lists(st.sampled_from([b"a", b"b", b"c", b"ab", b"0", b"1", b" ", b",", b"\xc3\xa9"]), max_size=5).map(b"".join)


def compiled(ir):
    try:
        return Grammar(ir, "ir", ir.to_text()).compiled
    except GrammarError:
        return None


def fresh_outcome(grammar, data):
    """(accepted so far, accepting at the end) of `data` read from scratch."""
    r = Recognizer(grammar)
    return (True, r.is_accepting()) if r.consume_bytes(data) else (False, False)


def explored_outcome(r, data):
    """The same, by advancing from r's state without consuming."""
    state, top = r.state, r.top
    for b in data:
        state, top = r.advance(state, top, b)
        if state == DEAD:
            return (False, False)
    return (True, r.accepts_at(state, top))


@settings(max_examples=examples(150))
@given(cfg_grammars(), texts, st.lists(texts, min_size=1, max_size=4))
def test_a_state_explored_answers_as_the_bytes_consumed(ir, prefix, continuations):
    g = compiled(ir)
    if g is None:
        return
    r = Recognizer(g)
    if not r.consume_bytes(prefix):
        return
    consumed = (r.state, r.top, r.parser.rows[:r.top], r.bytes_consumed, r.is_accepting())
    for more in continuations:
        assert explored_outcome(r, more) == fresh_outcome(g, prefix + more), (ir.to_text(), prefix, more)
        r.eos_allowed(r.state, r.top)
        r.token_lexemes(r.state, r.top)
        r.flush(r.state, r.top)
        # exploring moved nothing: the same state, the same rows, the same answers
        assert (r.state, r.top, r.parser.rows[:r.top], r.bytes_consumed, r.is_accepting()) == consumed


@settings(max_examples=examples(100))
@given(cfg_grammars(), texts, texts)
def test_consuming_and_rollback_move_the_state_and_nothing_else_does(ir, first, second):
    g = compiled(ir)
    if g is None:
        return
    r = Recognizer(g)
    if not r.consume_bytes(first):
        assert (r.state, r.top, r.bytes_consumed) == (r.lexer_start(1), 1, 0)  # refused: nothing consumed
        return
    after_first = (r.state, r.top, r.bytes_consumed)
    ok = r.consume_bytes(second)
    assert ok == fresh_outcome(g, first + second)[0]
    if ok:
        r.rollback(len(second))
    assert (r.state, r.top, r.bytes_consumed) == after_first


def test_a_copied_row_has_a_lexer_start_of_its_own():
    """%ignore matched once pushes a copy of the row with a lexer start of its own (the
    skip may not come again): the recogniser's rows (LexedRow) keep it."""
    g = Grammar.from_lark('%llguidance {"ignore_once": true}\nstart: "a" "b"\n%ignore " "').compiled
    r = Recognizer(g)
    assert r.consume_bytes(b"a b") and r.top == 3  # rows: the start, after "a", the copy after " "
    rows = r.parser.rows
    assert rows[2] is not rows[1] and rows[2].items == rows[1].items  # the copy: the same items
    skip = r.lexer.skip_mask
    assert r.lexer.possible[r.lexer_start(2)] & skip and not r.lexer.possible[r.lexer_start(3)] & skip
    assert r.is_accepting() and not Recognizer(g).consume_bytes(b"a  b")  # once only
