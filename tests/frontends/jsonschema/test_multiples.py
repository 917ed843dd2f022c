"""`multipleOf` as a regex (refimpl/frontends/jsonschema/multiples.py): the divisibility
automaton accepts exactly the plain decimal texts of the multiples, with at most as many
fraction digits as the divisor has."""
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl import Grammar, Limits, Matcher, SchemaError, Vocabulary, naive_mask
from refimpl.frontends.jsonschema.languages import matches
from refimpl.frontends.jsonschema.multiples import TooLarge, coefficient, divisibility_automaton, gcd, multiple_regex
from refimpl.recognition.recognizer import Recognizer
from refimpl.regex import ExprSet
from tests.support.budget import examples


def test_coefficient_and_gcd():
    assert [coefficient(Decimal(x)) for x in ("0.25", "3", "1.50", "2E+2")] == [(25, 2), (3, 0), (15, 1), (200, 0)]
    assert gcd(12, 18) == 6 and gcd(7, 0) == 7


@given(st.integers(-300, 300), st.sampled_from([(3, 0), (25, 2), (5, 1), (7, 1)]), st.booleans())
def test_texts_of_multiples(n, divisor, integer):
    """The text of n/100 is accepted iff n/100 is a multiple of c·10^-k (and, for
    `integer`, an integer), written with at most k fraction digits."""
    c, k = divisor
    es = ExprSet()
    e = multiple_regex(es, c, k, integer)
    x = Decimal(n) / 100
    text = format(x.normalize(), "f")
    if text == "-0":
        text = "0"
    fraction = len(text.split(".")[1]) if "." in text else 0
    m = Decimal(c).scaleb(-k)
    expected = x % m == 0 and fraction <= k and (not integer or x == int(x))
    assert matches(es, e, text) == expected, (text, c, k, integer)
    assert not matches(es, e, text + "e0")


# -- the minimal automaton (issue 34) -------------------------------------------------------


def _is_multiple_text(text: str, c: int, k: int, fractions: bool) -> bool:
    """The definition: `(0|[1-9][0-9]*)(\\.[0-9]{1,k})?` (no fraction unless `fractions`)
    and value·10^k ≡ 0 mod c, by Fraction arithmetic."""
    whole, dot, frac = text.partition(".")
    if not whole.isdigit() or (len(whole) > 1 and whole[0] == "0"):
        return False
    if dot and (not fractions or not frac.isdigit() or len(frac) > k):
        return False
    return (Fraction(text) * 10 ** k) % c == 0


number_texts = st.builds(
    lambda whole, frac: whole + frac,
    st.one_of(st.integers(0, 10 ** 12).map(str), st.text("0123456789", min_size=1, max_size=14)),
    st.one_of(st.just(""), st.text("0123456789", max_size=5).map(lambda f: "." + f)))


@settings(max_examples=examples(400))
@given(st.integers(1, 5000), st.integers(0, 3), st.booleans(), st.lists(number_texts, min_size=1, max_size=20))
def test_the_automaton_accepts_exactly_the_multiples(c, k, fractions, texts):
    """The merged, minimised automaton against the definition, on random texts (and on
    the multiples themselves: small, long, with fractions)."""
    fractions = fractions and k > 0
    a = divisibility_automaton(c, k, fractions)
    texts = texts + [str(c * i) for i in (1, 7, 10 ** 6 + 3)]
    if fractions:
        texts += [format((Fraction(c * i, 10 ** k)).__float__(), ".%df" % k) for i in (1, 3)]
    for text in texts:
        assert a.accepts(text) == _is_multiple_text(text, c, k, fractions), (text, c, k, fractions)


def test_sizes_of_minimal_automata():
    """161 states for 1024 (159 classes of remainders, the start, the integer part "0"):
    the figures of docs/jsonschema.md, "Bounds"."""
    sizes = {(c, k): divisibility_automaton(c, k, k > 0).size
             for c, k in [(1024, 0), (1025, 0), (7, 0), (10 ** 6, 0), (1, 3), (1, 2), (25, 2), (7, 2)]}
    assert sizes == {(1024, 0): 161, (1025, 0): 46, (7, 0): 9, (10 ** 6, 0): 9, (1, 3): 7, (1, 2): 6, (25, 2): 7,
                     (7, 2): 24}
    a = divisibility_automaton(1024, 0, False)
    assert all(len(moves) <= 11 for moves in a.delta) and sum(a.accepting) >= 1


def test_too_large_is_decided_with_bounded_work():
    """c' (prime to 10) alone needs c' states: refused before building anything; a large
    power of two stops after 8·limit + 16 merged states; otherwise the exact size."""
    with pytest.raises(TooLarge) as info:
        divisibility_automaton(123456789, 9, True, limit=400)
    assert (info.value.at_least, info.value.exact) == (123456789, False)
    with pytest.raises(TooLarge) as info:
        divisibility_automaton(2 ** 40, 0, False, limit=400)
    assert info.value.at_least == 8 * 400 + 16 and not info.value.exact
    with pytest.raises(TooLarge) as info:
        divisibility_automaton(1024, 0, False, limit=100)
    assert (info.value.at_least, info.value.exact) == (161, True)
    with pytest.raises(TooLarge) as info:  # 397 is prime: 399 states, all through state elimination
        multiple_regex(ExprSet(), 397, 0, True, limit=400, eliminated=134)
    assert info.value.eliminated and info.value.at_least == 399


@settings(max_examples=examples(60))
@given(st.sampled_from([4, 12, 40, 1024, 1025, 10 ** 6, 96, 7]), st.integers(-10 ** 7, 10 ** 7))
def test_integer_divisors_split_into_suffix_and_remainder(c, n):
    """k = 0: the suffix regex of 2^a·5^b and the state-eliminated remainder mod c',
    intersected, accept exactly the canonical texts of the multiples."""
    es = ExprSet()
    e = multiple_regex(es, c, 0, True)
    for x in (n, n * c, c, 0):
        assert matches(es, e, str(x)) == (x % c == 0), (x, c)
    assert not matches(es, e, "0%d" % c) and not matches(es, e, "%d.0" % c)


DIGITS = Vocabulary.from_bytes([b"0", b"1", b"2", b"4", b"5", b"7", b"10", b"24", b"02", b"-", b".", b"50", b"25",
                                b"<eos>"], eos_token_id=13)


@settings(max_examples=examples(40))
@given(st.sampled_from([{"type": "integer", "multipleOf": 1024}, {"type": "integer", "multipleOf": 12},
                        {"type": "number", "multipleOf": 0.25}, {"type": "number", "multipleOf": 0.07},
                        {"type": "integer", "multipleOf": 5, "minimum": 10, "maximum": 20}]),
       st.lists(st.integers(0, 12), max_size=5))
def test_masks_equal_the_naive_mask(schema, path):
    """Matcher.mask() is naive_mask's along a path of digit tokens (as far as the
    grammar takes it)."""
    g = Grammar.from_json_schema(schema)
    m = Matcher(g, DIGITS)
    done = []
    for t in path + [None]:
        assert m.mask() == naive_mask(g, DIGITS, done), (schema, done)
        if t is None or not m.consume(t):
            break
        done.append(t)


# xgrammar's own tests (tests/python/test_json_schema_converter.py, test_integer_multiple_of
# and test_integer_multiple_of_sweep): the schemas, the values they accept and reject
XGRAMMAR_CASES = [
    ({"type": "integer", "multipleOf": 2}, [2, 0, -4], [3, -3]),
    ({"type": "integer", "multipleOf": 1}, [0, 1, -1, 123456, -123456], []),
    ({"type": "integer", "multipleOf": 7}, [0, 7, 14, 49, -14, -21], [8, -20]),
    ({"type": "integer", "multipleOf": 1024}, [0, 1024, 2048], [1000]),
    ({"type": "integer", "minimum": 5, "maximum": 10, "multipleOf": 3}, [6, 9], [5, 7]),
    ({"type": "integer", "minimum": 10, "exclusiveMinimum": 3, "maximum": 20, "multipleOf": 5}, [10, 15, 20], [5, 6]),
    ({"type": "integer", "minimum": -12, "maximum": 12, "multipleOf": 3}, [], []),
    ({"type": "integer", "minimum": 10, "maximum": 20, "multipleOf": 5}, [], []),
]


@pytest.mark.parametrize("schema, accepted, rejected", XGRAMMAR_CASES)
def test_xgrammars_integer_multiple_of_cases(schema, accepted, rejected):
    g = Grammar.from_json_schema(schema)

    def accepts(x):
        r = Recognizer(g.compiled)
        return r.consume_bytes(str(x).encode()) and r.is_accepting()

    assert all(accepts(x) for x in accepted) and not any(accepts(x) for x in rejected)
    lo, hi, m = schema.get("minimum", -30), schema.get("maximum", 30), schema["multipleOf"]
    lo = max(lo, schema.get("exclusiveMinimum", lo - 1) + 1)
    for x in range(-30, 31):  # the sweep
        assert accepts(x) == (lo <= x <= hi and x % m == 0), (schema, x)


def test_refusal_names_the_size_and_the_limit():
    with pytest.raises(SchemaError, match=r"needs an automaton of at least 123456789 states \(minimal\), more than "
                                          r"Limits.multiple_of_states = 400"):
        Grammar.from_json_schema({"type": "number", "multipleOf": 0.123456789})
    with pytest.raises(SchemaError, match=r"needs an automaton of 161 states \(minimal\), more than "
                                          r"Limits.multiple_of_states = 100"):
        Grammar.from_json_schema({"type": "integer", "multipleOf": 1024}, limits=Limits(multiple_of_states=100))
    with pytest.raises(SchemaError, match=r"remainder automaton of 399 states \(minimal\) turned into a regex by "
                                          r"state elimination, more than Limits.eliminated_states = 134"):
        Grammar.from_json_schema({"type": "integer", "multipleOf": 397})
    # the part state elimination unrolls has its own limit: 13 (15 states) within the default, not within 10
    assert Grammar.from_json_schema({"type": "integer", "multipleOf": 13}).compiled is not None
    with pytest.raises(SchemaError, match=r"remainder automaton of 15 states .* Limits.eliminated_states = 10"):
        Grammar.from_json_schema({"type": "integer", "multipleOf": 13}, limits=Limits(eliminated_states=10))
    # a range with few multiples is listed instead
    g = Grammar.from_json_schema({"type": "integer", "multipleOf": 397, "minimum": 0, "maximum": 1200})
    assert g.compiled is not None
