"""Brzozowski derivatives (refimpl/regex/derivative.py): every rule of the module's table on
an example, and on random expressions the theorem they rest on, w ∈ L(e) iff ν(d_w(e)),
against the definition of the languages (`member`, tests/support/regex_strategies.py).
"""
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl.regex.derivative import derivative
from refimpl.regex.exprs import ExprSet
from refimpl.regex.printer import to_string
from tests.support.budget import examples
from tests.support.regex_strategies import build, deep_expression, expr_trees, expr_words, matches, member


@settings(max_examples=examples(1500))
@given(expr_trees, st.lists(expr_words, min_size=1, max_size=12))
def test_derivatives_agree_with_the_definition(t, ws):
    es = ExprSet()
    e = build(es, t)
    for w in ws + [b""]:
        assert matches(es, e, w) == member(t, w), (t, w, to_string(es, e))


def test_each_rule():
    es = ExprSet()
    a, b, c = (ord(x) for x in "abc")
    lit = {x: es.literal(bytes([x])) for x in (a, b, c)}
    ab = es.byte_set(1 << a | 1 << b)
    assert derivative(es, es.NOTHING, a) == es.NOTHING                         # d(∅) = ∅
    assert derivative(es, es.EPSILON, a) == es.NOTHING                         # d(ε) = ∅
    assert derivative(es, ab, a) == es.EPSILON                                 # b ∈ S
    assert derivative(es, ab, c) == es.NOTHING                                 # b ∉ S
    assert derivative(es, es.concat(lit[a], lit[b]), a) == lit[b]              # d(r)·s
    a_opt = es.optional(lit[a])
    assert derivative(es, es.concat(a_opt, lit[b]), b) == es.EPSILON           # ν(r): d(r)·s | d(s)
    assert derivative(es, es.concat(a_opt, lit[b]), a) == lit[b]
    assert derivative(es, es.union(lit[a], es.literal(b"ac")), a) == es.optional(lit[c])
    both = es.intersection(es.literal(b"ab"), es.concat(ab, ab))
    assert derivative(es, both, a) == lit[b]                                   # d(r) & d(s)
    assert derivative(es, es.complement(lit[a]), a) == es.complement(es.EPSILON)
    assert derivative(es, es.repeat(lit[a], 2, 3), a) == es.repeat(lit[a], 1, 2)
    assert derivative(es, es.star(lit[a]), a) == es.star(lit[a])


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


def test_derivatives_are_kept_per_expression_and_byte():
    es = ExprSet()
    e = es.concat(es.plus(es.literal(b"ab")), es.literal(b"c"))
    d = derivative(es, e, ord("a"))
    cache = es.caches[derivative]
    assert cache[e << 8 | ord("a")] == d
    assert all(key & 0xFF == ord("a") for key in cache)  # the sub-expressions' on the way
    cache[e << 8 | ord("a")] = es.EPSILON  # a cached answer is the answer
    assert derivative(es, e, ord("a")) == es.EPSILON


def test_deep_expressions_need_no_recursion():
    es = ExprSet()
    e = deep_expression(es)
    assert derivative(es, e, ord("a")) != es.NOTHING
    assert matches(es, e, b"z") and matches(es, e, b"abz") and not matches(es, e, b"zz")
