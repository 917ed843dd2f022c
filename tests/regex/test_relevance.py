"""Emptiness, containment and forced bytes against brute force on small alphabets."""
import itertools
from collections import deque

import pytest
from hypothesis import given, settings

from refimpl.errors import LimitError
from refimpl.regex.derivative import derivative
from refimpl.regex.exprs import ExprSet
from refimpl.regex.relevance import _candidates, _probe, check_empty, forced_bytes, is_contained, is_empty
from tests.support.budget import examples
from tests.support.regex_strategies import EXPR_ALPHABET, build, expr_trees, member

SHORT_WORDS = [bytes(w) for n in range(5) for w in itertools.product(EXPR_ALPHABET + b"z", repeat=n)]


def shortest_word(es, e, limit=10_000):
    """A word of L(e) found by breadth-first search over derivatives (None if none)."""
    queue = deque([(e, b"")])
    seen = {e}
    while queue and len(seen) < limit:
        x, w = queue.popleft()
        if es.nullable(x):
            return w
        for b in range(256):
            d = derivative(es, x, b)
            if d not in seen and d != es.NOTHING:
                seen.add(d)
                queue.append((d, w + bytes([b])))
    return None


@settings(max_examples=examples(400))
@given(expr_trees)
def test_is_empty_agrees_with_brute_force(t):
    es = ExprSet()
    e = build(es, t)
    answer = is_empty(es, e)
    assert answer is not None
    if answer:
        assert not any(member(t, w) for w in SHORT_WORDS), t
    else:
        w = shortest_word(es, e)
        assert w is not None and member(t, w), (t, w)


@settings(max_examples=examples(300))
@given(expr_trees)
def test_what_a_search_learns_of_other_states_is_true(t):
    """is_empty remembers the answers for the states it explored: every state that reaches
    the witness is non-empty, every state of an empty search is empty. Each remembered
    answer against a search of its own."""
    es = ExprSet()
    e = build(es, t)
    is_empty(es, e)
    for x, empty in list(es.caches[is_empty].items()):
        assert (shortest_word(es, x) is None) == empty, (t, x)


def test_a_search_marks_only_the_states_that_reach_its_witness():
    """From a(b*c&b*d)|e the search meets b*c&b*d (empty, though not ∅) before the
    witness ε: that state must not be remembered as non-empty."""
    from refimpl.regex import compile_pattern

    es = ExprSet()
    e = compile_pattern(es, "a(?:b*c&b*d)|e", extended=True)
    both = derivative(es, e, ord("a"))
    assert both != es.NOTHING
    assert is_empty(es, e) is False
    emptiness = es.caches[is_empty]
    assert emptiness.get(e) is False and emptiness.get(both) is not False
    assert is_empty(es, both) is True


@settings(max_examples=examples(300))
@given(expr_trees, expr_trees)
def test_is_contained_agrees_with_brute_force(ta, tb):
    es = ExprSet()
    a, b = build(es, ta), build(es, tb)
    answer = is_contained(es, a, b)
    assert answer is not None
    if answer:
        assert not any(member(ta, w) and not member(tb, w) for w in SHORT_WORDS)
    else:
        w = shortest_word(es, es.intersection(a, es.complement(b)))
        assert w is not None and member(ta, w) and not member(tb, w), (ta, tb, w)


@settings(max_examples=examples(300))
@given(expr_trees)
def test_forced_bytes_prefix_every_word(t):
    es = ExprSet()
    e = build(es, t)
    forced = forced_bytes(es, e)
    assert all(w.startswith(forced) for w in SHORT_WORDS if member(t, w)), (t, forced)


def test_fuel_gives_unknown_never_a_wrong_answer():
    es = ExprSet()
    # a{0,50}b & ~(a*b) is empty, but proving it visits ~50 derivative states
    a50 = es.repeat(es.literal(b"a"), 0, 50)
    b = es.literal(b"b")
    hard = es.intersection(es.concat(a50, b), es.complement(es.concat(es.star(es.literal(b"a")), b)))
    assert hard != es.NOTHING  # not visible syntactically
    assert is_empty(es, hard, fuel=3) is None
    with pytest.raises(LimitError) as info:
        check_empty(es, hard, fuel=3)
    assert info.value.limit == "relevance_fuel"
    assert is_empty(es, hard) is True
    assert is_contained(es, es.literal(b"a" * 40), a50, fuel=2) is None
    assert is_contained(es, es.literal(b"a" * 40), a50) is True
    assert is_contained(es, es.literal(b"a" * 51), a50) is False


def test_a_failed_probe_leaves_the_answer_to_the_search():
    # the probe tries one byte per byte set: `a` for [a-c], where every word starts with
    # b or c; it finds no witness, the breadth-first search over the classes does
    es = ExprSet()
    e = es.intersection(es.byte_range(ord("a"), ord("c")), es.complement(es.literal(b"a")))
    assert _probe(es, e, _candidates(es, e), 24) >= 0
    assert is_empty(es, e) is False and shortest_word(es, e) == b"b"
