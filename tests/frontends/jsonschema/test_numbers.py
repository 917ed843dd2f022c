"""Numeric bounds as regexes (refimpl/frontends/jsonschema/numbers.py): exact, and linear in
the number of digits — SchemaStore's venvironment schemas bound numbers by a double's
maximum (1.79769e308, 309 digits), which took O(digits^3) expression nodes (10 s+).

* Work count: the expression nodes a 309-digit interval adds grow linearly with the
  digits (the flat union of prefixes was quadratic per length, cubic per interval).
* Exactness: integers around random bounds (up to 40 digits) are accepted iff inside.
"""
from hypothesis import given
from hypothesis import strategies as st

from refimpl.frontends.jsonschema.numbers import Numbers
from refimpl.limits import DEFAULT_LIMITS
from refimpl.regex import ExprSet
from refimpl.regex.derivative import derivative


def matches(es, e, text):
    for b in text.encode():
        e = derivative(es, e, b)
        if e == es.NOTHING:
            return False
    return es.nullable(e)


def nodes_for(lo, hi):
    es = ExprSet()
    numbers = Numbers(es)
    before = len(es.nodes)
    numbers.uint_range(lo, hi, DEFAULT_LIMITS)
    return len(es.nodes) - before


def test_huge_bounds_are_linear_in_digits():
    small = nodes_for(3, 17 * 10 ** 99)
    big = nodes_for(3, 17 * 10 ** 299)
    # ~10 nodes per digit of the bound; O(d^3) was millions for 300 digits
    assert big < 12 * 300, big
    assert big < 3.5 * small, (small, big)


def test_a_double_maximum_as_a_schema_bound():
    from refimpl import Grammar
    from refimpl.recognition.recognizer import Recognizer

    g = Grammar.from_json_schema({"type": "integer", "minimum": -1.79769e308, "maximum": 1.79769e308})
    top = "179769" + "0" * 303
    for text, ok in ((top, True), ("-" + top, True), (str(int(top) + 1), False), ("1" + "0" * 309, False), ("0", True)):
        r = Recognizer(g.compiled)
        assert (r.consume_bytes(text.encode()) and r.is_accepting()) == ok, text[:12]


bounds = st.one_of(st.integers(0, 10 ** 6), st.integers(0, 10 ** 40))


@given(bounds, st.one_of(st.none(), bounds), st.lists(st.integers(-2, 2), min_size=1, max_size=6),
       st.lists(st.integers(0, 10 ** 41), max_size=4))
def test_integer_ranges_are_exact(lo, hi, offsets, others):
    es = ExprSet()
    e = Numbers(es).uint_range(lo, hi, DEFAULT_LIMITS)
    for v in [lo + d for d in offsets] + ([hi + d for d in offsets] if hi is not None else []) + others:
        if v < 0:
            continue
        inside = v >= lo and (hi is None or v <= hi)
        assert matches(es, e, str(v)) == inside, (lo, hi, v)
        assert not matches(es, e, "0" + str(v))  # canonical texts only
