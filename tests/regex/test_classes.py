"""Byte classes (refimpl/regex/classes.py) against their definitions.

* `refine(masks)`: two bytes share a class iff every mask holds both or neither;
* `byte_classes(es, e)`: bytes of one class have the same derivative, from e and from
  the derivatives of e (what makes one representative per class enough);
* `class_of(es, exprs, b)`: b's class for several expressions at once: its bytes have
  one derivative from each (the lexer fills a state's transitions class by class);
* `byte_sets(es, e)`: the masks of the BYTES nodes reachable from e;
* `covered_bytes(es, e)`: their union; without a complement in e, a byte outside it has
  the derivative ∅ everywhere below e.
"""
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl.regex.classes import byte_classes, byte_sets, class_of, covered_bytes, lowest_byte, partition, refine
from refimpl.regex.derivative import derivative
from refimpl.regex.exprs import ALL_BYTES, BYTES, ExprSet
from tests.support.budget import examples
from tests.support.regex_strategies import build, expr_trees, expr_words

# the bytes the expression trees use, and two they never do
PROBES = b"abcz\xff"


def test_byte_classes_partition_the_bytes():
    es = ExprSet()
    e = es.concat(es.byte_range(ord("a"), ord("z")), es.byte_range(ord("0"), ord("9")), es.byte_set(1 << ord("x")))
    classes = byte_classes(es, e)
    assert sum(bin(c).count("1") for c in classes) == 256
    union = 0
    for c in classes:
        assert union & c == 0
        union |= c
    assert len(classes) == 4  # a-w|y-z, x, 0-9, the rest
    assert [lowest_byte(c) for c in classes] == [0, ord("0"), ord("a"), ord("x")]


@settings(max_examples=examples(300))
@given(st.lists(st.integers(min_value=1, max_value=ALL_BYTES) | st.sampled_from([1 << b for b in range(0, 256, 7)]),
                max_size=12))
def test_refine_is_the_coarsest_partition_the_masks_respect(masks):
    # the definition: two bytes share a class iff every mask holds both or neither
    by_signature = {}
    for b in range(256):
        key = tuple(m >> b & 1 for m in masks)
        by_signature[key] = by_signature.get(key, 0) | 1 << b
    assert refine(masks) == sorted(by_signature.values(), key=lambda c: c & -c)


@settings(max_examples=examples(150))
@given(expr_trees, st.lists(expr_words, max_size=3))
def test_bytes_of_a_class_have_one_derivative_below_e(t, paths):
    es = ExprSet()
    e = build(es, t)
    classes = byte_classes(es, e)
    for path in [b""] + paths:
        x = e
        for b in path:  # a derivative of e: e's classes hold for it too
            x = derivative(es, x, b)
        for c in classes:
            members = [b for b in PROBES if c >> b & 1] + [lowest_byte(c)]
            assert len({derivative(es, x, b) for b in members}) == 1, (t, path, bin(c))


@settings(max_examples=examples(150))
@given(st.lists(expr_trees, min_size=1, max_size=3), st.integers(0, 255))
def test_the_class_of_a_byte_for_several_expressions(trees, b):
    es = ExprSet()
    exprs = [build(es, t) for t in trees]
    c = class_of(es, exprs, b)
    assert c >> b & 1
    members = [x for x in range(256) if c >> x & 1]
    for e in exprs:
        assert len({derivative(es, e, x) for x in members}) == 1, (trees, b, bin(c))
        assert any(c & ~k == 0 for k in byte_classes(es, e))  # inside one class of each


@settings(max_examples=examples(150))
@given(expr_trees)
def test_byte_sets_are_the_masks_of_the_reachable_byte_sets(t):
    es = ExprSet()
    e = build(es, t)
    expected = frozenset(es.node(x).mask for x in es.reachable(e) if es.node(x).kind == BYTES)
    assert byte_sets(es, e) == expected
    covered = 0
    for m in expected:
        covered |= m
    assert covered_bytes(es, e) == covered


@settings(max_examples=examples(150))
@given(expr_trees.filter(lambda t: "not" not in repr(t)), st.lists(expr_words, max_size=3))
def test_without_complement_an_uncovered_byte_is_dead(t, paths):
    es = ExprSet()
    e = build(es, t)
    dead = [b for b in PROBES if not covered_bytes(es, e) >> b & 1]
    for path in [b""] + paths:
        x = e
        for b in path:
            x = derivative(es, x, b)
        assert all(derivative(es, x, b) == es.NOTHING for b in dead), (t, path)


def test_under_a_complement_an_uncovered_byte_may_be_read():
    es = ExprSet()
    not_a = es.complement(es.literal(b"a"))
    assert covered_bytes(es, not_a) == 1 << ord("a")
    assert derivative(es, not_a, ord("z")) == es.EVERYTHING   # d(¬a, z) = ¬∅ = Σ*
    assert byte_sets(es, es.EVERYTHING) == frozenset() and byte_classes(es, es.EVERYTHING) == [ALL_BYTES]


def test_answers_are_kept_in_the_expression_set():
    es = ExprSet()
    e = es.concat(es.literal(b"ab"), es.star(es.byte_range(ord("a"), ord("b"))))
    classes = byte_classes(es, e)
    assert es.caches[byte_classes][e] is classes
    assert partition(es, byte_sets(es, e)) is classes  # shared by every expression with those byte sets
    assert byte_classes(es, es.concat(es.literal(b"ba"), e)) is classes
