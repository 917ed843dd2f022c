"""`multipleOf` as a regex (refimpl/frontends/jsonschema/multiples.py): the divisibility
automaton accepts exactly the plain decimal texts of the multiples, with at most as many
fraction digits as the divisor has."""
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from refimpl.frontends.jsonschema.languages import matches
from refimpl.frontends.jsonschema.multiples import coefficient, gcd, multiple_regex
from refimpl.regex import ExprSet


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
