"""ExprSet: the smart constructors' rules are sound, derivatives match the definition.

The oracle is a direct, unsimplified reading of each operator's meaning on small strings
(`member` below): it never builds a normal form, so every simplification rule of exprs.py
and every derivative rule of derivative.py is checked against the definition.
"""
import pytest
from hypothesis import given, settings, strategies as st
from tests.support.budget import examples

from refimpl.regex.derivative import derivative
from refimpl.regex.printer import to_string
from refimpl.errors import LimitError
from refimpl.limits import Limits
from refimpl.regex.dfa import LazyDFA
from refimpl.regex.exprs import ExprSet
from tests.support.regex_strategies import build, expr_trees, expr_words, matches, member


@settings(max_examples=examples(1500))
@given(expr_trees, st.lists(expr_words, min_size=1, max_size=12))
def test_simplified_expression_and_derivatives_agree_with_the_definition(t, ws):
    es = ExprSet()
    e = build(es, t)
    for w in ws + [b""]:
        assert matches(es, e, w) == member(t, w), (t, w, to_string(es, e))


@settings(max_examples=examples(500))
@given(expr_trees, st.lists(expr_words, min_size=1, max_size=8))
def test_lazy_dfa_agrees_with_derivatives(t, ws):
    es = ExprSet()
    e = build(es, t)
    dfa = LazyDFA(es, e)
    for w in ws:
        assert dfa.matches(w) == member(t, w), (t, w)


def test_hash_consing_gives_equal_expressions_equal_ids():
    es = ExprSet()
    a, b, c = (es.literal(bytes([x])) for x in b"abc")
    ab = es.concat(a, b)
    assert es.union(ab, c) == es.union(c, ab)  # commutativity
    assert es.union(ab, es.union(ab, c)) == es.union(ab, c)  # idempotence, flattening
    assert es.concat(es.concat(a, b), c) == es.concat(a, es.concat(b, c))  # associativity
    assert es.union(a, b) == es.byte_set((1 << ord("a")) | (1 << ord("b")))  # byte sets merge
    assert es.optional(ab) == es.union(ab, es.EPSILON)
    assert es.union(es.EPSILON, es.star(a)) == es.star(a)
    assert es.repeat(es.star(a), 2, 5) == es.star(a)
    assert es.star(es.plus(a)) == es.star(a)
    assert es.repeat(es.optional(ab), 3, 4) == es.repeat(es.optional(ab), 0, 4)
    assert es.concat(es.star(a), es.star(a), b) == es.concat(es.star(a), b)
    assert es.intersection(a, es.complement(a)) == es.NOTHING
    assert es.intersection(es.union(a, b), es.union(b, c)) == b
    assert es.complement(es.complement(ab)) == ab
    assert es.complement(es.EVERYTHING) == es.NOTHING
    assert es.star(es.byte_range(0, 255)) == es.EVERYTHING
    assert es.union(ab, es.EVERYTHING) == es.EVERYTHING
    assert es.intersection(ab, es.EVERYTHING) == ab


def test_classic_derivatives():
    es = ExprSet()
    ab = es.byte_set(0b11 << ord("a"))
    cd = es.byte_set(0b11 << ord("c"))
    c = es.literal(b"c")
    a = ord("a")
    assert derivative(es, es.concat(ab, cd), a) == cd
    assert derivative(es, es.plus(ab), a) == es.star(ab)
    assert derivative(es, ab, a) == es.EPSILON
    assert derivative(es, es.concat(ab, c), ord("c")) == es.NOTHING


def test_deep_expressions_need_no_recursion():
    # a?(b?(a?(b?...)|c)|c) ten thousand levels deep: the derivative, the printer and the
    # size count all walk it with explicit stacks.
    es = ExprSet()
    e = es.literal(b"z")
    for i in range(10_000):
        x = es.optional(es.literal(b"ab"[i % 2 : i % 2 + 1]))
        e = es.union(es.concat(x, e), es.literal(b"c"))
    d = derivative(es, e, ord("a"))
    assert d != es.NOTHING
    assert matches(es, e, b"z") and matches(es, e, b"abz") and not matches(es, e, b"zz")
    assert len(to_string(es, e)) > 10_000
    assert es.size(e) > 10_000


def test_expression_limit():
    es = ExprSet(Limits(expressions=100))
    with pytest.raises(LimitError) as info:
        es.literal(bytes(range(200)))
    assert info.value.limit == "expressions"


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
