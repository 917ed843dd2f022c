"""ExprSet (refimpl/regex/exprs.py): hash-consing and the normal forms, ν and has_boolean of
every node against the definition, the caches, the limit.

The oracle is `member` (tests/support/regex_strategies.py), a direct, unsimplified reading
of each operator's meaning on small strings: it never builds a normal form, so every
simplification rule is checked against the definition — here through ν (is ε in the
language?), in test_derivative.py through whole words.
"""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl.errors import LimitError
from refimpl.limits import Limits
from refimpl.regex.exprs import AND, BYTES, CONCAT, EPSILON_KIND, NOT, OR, REPEAT, ExprSet
from tests.support.budget import examples
from tests.support.regex_strategies import build, deep_expression, expr_trees, matches, member


@settings(max_examples=examples(300))
@given(expr_trees)
def test_nullable_and_has_boolean_agree_with_the_definition(t):
    es = ExprSet()
    e = build(es, t)
    assert es.nullable(e) == member(t, b"") == (es.nullable_flags[e] == 1), t
    booleans = any(es.node(x).kind in (AND, NOT) for x in es.reachable(e))
    assert es.has_boolean[e] == booleans, t


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


def test_node_views():
    es = ExprSet()
    a, b = es.literal(b"a"), es.literal(b"b")
    assert es.node(a) == (BYTES, (), 1 << ord("a"), 0, None)
    assert es.node(es.concat(a, b)) == (CONCAT, (a, b), 0, 0, None)
    assert es.node(es.union(a, es.literal(b"bc"))).kind == OR
    assert es.node(es.repeat(es.literal(b"ab"), 2, 5)).lo == 2
    assert es.node(es.EPSILON).kind == EPSILON_KIND and es.node(es.EVERYTHING) == (NOT, (es.NOTHING,), 0, 0, None)
    assert es.node(es.star(es.literal(b"ab"))).kind == REPEAT


@settings(max_examples=examples(100))
@given(st.lists(st.binary(max_size=5), max_size=8))
def test_words_is_the_union_of_its_words(ws):
    es = ExprSet()
    e = es.words([[1 << b for b in w] for w in ws])
    for w in set(ws) | {b"", b"a", b"\x00\x00"}:
        assert matches(es, e, w) == (w in ws)


@settings(max_examples=examples(200))
@given(expr_trees, expr_trees)
def test_a_copy_into_another_set_is_what_that_set_builds(t, other):
    # the other set holds other expressions first, so its ids differ from the source's;
    # the copy is the node the set's own smart constructors build (the same normal form)
    source, es = ExprSet(), ExprSet()
    build(es, other)
    e = build(source, t)
    copied = es.copy(source, e)
    assert copied == build(es, t), t
    assert es.nullable(copied) == source.nullable(e) and es.has_boolean[copied] == source.has_boolean[e]
    assert es.size(copied) == source.size(e)


def test_sizes_and_reachable_sets_of_deep_expressions():
    es = ExprSet()
    e = deep_expression(es)
    reachable = es.reachable(e)
    assert reachable == sorted(reachable) and reachable[-1] == e  # children before parents
    assert es.size(e) == len(reachable) > 10_000


def test_caches_are_made_on_first_use_one_per_question():
    es = ExprSet()

    def question(es, e):
        return e

    cache = es.caches[question]
    assert cache == {} and es.caches[question] is cache and es.caches[len] is not cache
    assert ExprSet().caches[question] is not cache  # one per ExprSet


def test_expression_limit():
    es = ExprSet(Limits(expressions=100))
    with pytest.raises(LimitError) as info:
        es.literal(bytes(range(200)))
    assert info.value.limit == "expressions"
