"""The lazy DFA (refimpl/regex/dfa.py): its language is the definition's, its table fills on
demand, a class at a time, dead means no continuation, and its size is bounded."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl.errors import LimitError
from refimpl.limits import Limits
from refimpl.regex.classes import byte_classes
from refimpl.regex.derivative import derivative
from refimpl.regex.dfa import DEAD, LazyDFA
from refimpl.regex.exprs import ExprSet
from tests.support.budget import examples
from tests.support.regex_strategies import build, expr_trees, expr_words, member


@settings(max_examples=examples(500))
@given(expr_trees, st.lists(expr_words, min_size=1, max_size=8))
def test_lazy_dfa_agrees_with_the_definition(t, ws):
    es = ExprSet()
    e = build(es, t)
    dfa = LazyDFA(es, e)
    for w in ws:
        assert dfa.matches(w) == member(t, w), (t, w)


@settings(max_examples=examples(150))
@given(expr_trees)
def test_expand_fills_a_state_s_row_one_derivative_per_class(t):
    es = ExprSet()
    dfa = LazyDFA(es, build(es, t))
    dfa.expand(dfa.start)
    row = dfa.table[dfa.start << 8:(dfa.start + 1) << 8]
    assert -1 not in row
    assert dfa.transitions_computed <= len(byte_classes(es, dfa.states[dfa.start]))
    fresh = LazyDFA(es, dfa.states[dfa.start])
    assert [fresh.states[fresh.step(fresh.start, b)] for b in range(256)] == [dfa.states[s] for s in row]


def test_a_derivative_with_an_empty_language_is_the_dead_state():
    es = ExprSet()
    b_star = es.star(es.literal(b"b"))
    e = es.concat(es.literal(b"a"), es.intersection(es.concat(b_star, es.literal(b"c")), es.concat(b_star, es.literal(b"d"))))
    dfa = LazyDFA(es, e)
    after_a = derivative(es, e, ord("a"))
    assert after_a != es.NOTHING  # not ∅ as a node, but no word is left
    assert dfa.step(dfa.start, ord("a")) == DEAD and dfa.run(b"abc") == DEAD
    assert LazyDFA(es, after_a).start == DEAD


def test_table_is_filled_on_demand():
    es = ExprSet()
    dfa = LazyDFA(es, es.plus(es.byte_range(ord("0"), ord("9"))))
    s = dfa.run(b"12")
    assert dfa.table[s << 8 | ord("3")] == -1
    assert dfa.step(s, ord("3")) == s == dfa.table[s << 8 | ord("3")]


def test_dfa_state_limit():
    es = ExprSet(Limits(dfa_states=50))
    e = es.repeat(es.literal(b"a"), 1000, 1000)
    dfa = LazyDFA(es, e)
    with pytest.raises(LimitError) as info:
        dfa.run(b"a" * 100)
    assert info.value.limit == "dfa_states"


def test_pathological_alternation_is_linear():
    # (a|aa)*b: the classic backtracking blow-up is a 3-state DFA here.
    es = ExprSet()
    a = es.literal(b"a")
    e = es.concat(es.star(es.union(a, es.literal(b"aa"))), es.literal(b"b"))
    dfa = LazyDFA(es, e)
    assert not dfa.matches(b"a" * 50_000)
    assert dfa.matches(b"a" * 50_000 + b"b")
    assert len(dfa.states) <= 5
