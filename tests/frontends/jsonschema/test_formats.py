"""Patterns and formats (refimpl/frontends/jsonschema/formats.py): ECMA-262 patterns
searched anywhere in the string, with ECMA's meanings of `\\d`, `\\w`, `\\s` and `.`;
formats as exact regular languages."""
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl.errors import RegexError
from refimpl.frontends.jsonschema.formats import UNSUPPORTED_FORMATS, ecma_to_rust, format_expr, search_expr
from refimpl.frontends.jsonschema.languages import matches
from refimpl.regex import ExprSet, compile_pattern
from tests.support.budget import examples


@pytest.fixture(scope="module")
def es():
    return ExprSet()


def search(es, pattern):
    return search_expr(es, pattern, compile_pattern(es, "(?s:.)*"))


def test_patterns_are_searched_and_anchors_drop_a_side(es):
    e = search(es, "b+")
    assert [matches(es, e, t) for t in ("abba", "b", "a")] == [True, True, False]
    e = search(es, "^a|c$")
    assert [matches(es, e, t) for t in ("ab", "ba", "bc", "cb")] == [True, False, True, False]


def test_ecma_meanings(es):
    digits, space, dot = search(es, "^\\d$"), search(es, "^\\s$"), search(es, "^.$")
    assert matches(es, digits, "7") and not matches(es, digits, "\u0663")  # ASCII digits only
    assert matches(es, space, "\ufeff") and not matches(es, space, "\u0085")
    assert matches(es, dot, "é") and not any(matches(es, dot, c) for c in "\n\r\u2028\u2029")
    assert ecma_to_rust("[[&~]") == "[\\[\\&\\~]"
    with pytest.raises(RegexError):
        search(es, "(?<=a)b")


@pytest.mark.parametrize("name, good, bad", [
    ("date", ["2024-02-29", "2000-02-29"], ["2023-02-29", "1900-02-29", "2024-13-01"]),
    ("time", ["23:59:60Z", "00:59:60+01:00", "12:00:00.5-05:30"], ["12:00:60Z", "24:00:00Z", "12:00:00"]),
    ("date-time", ["2024-01-01T00:00:00Z"], ["2024-01-01 00:00:00Z"]),
    ("duration", ["P1D", "PT1H30M", "P1W"], ["P", "PT", "P1H"]),
    ("email", ["a.b@example.com", '"x y"@example.com', "a@[127.0.0.1]"], ["a..b@example.com", "@example.com"]),
    ("hostname", ["example.com", "a-b.c"], ["-a.com", "xn--abc", "a" * 64 + ".com"]),
    ("ipv4", ["0.0.0.0", "255.255.255.255"], ["256.0.0.1", "01.0.0.1"]),
    ("ipv6", ["::1", "1:2:3:4:5:6:7:8", "::ffff:1.2.3.4"], ["1:2:3:4:5:6:7:8:9", ":::1"]),
    ("uuid", ["12345678-1234-1234-1234-123456789abc"], ["12345678-1234-1234-1234-123456789ab"]),
    ("uri", ["http://x.org/a?b#c", "urn:isbn:0451450523"], ["/relative", "a b:c"]),
    ("json-pointer", ["", "/a~0b/c~1"], ["a", "/~2"]),
    ("relative-json-pointer", ["0", "1/a", "2#"], ["-1", "01"]),
])
def test_formats(es, name, good, bad):
    e = format_expr(es, name)
    assert all(matches(es, e, t) for t in good), name
    assert not any(matches(es, e, t) for t in bad), name


def test_unsupported_and_unknown_formats(es):
    assert all(format_expr(es, name) is None for name in UNSUPPORTED_FORMATS)
    assert format_expr(es, "no-such-format") is None
    assert matches(es, format_expr(es, "unknown"), "anything")


@settings(max_examples=examples(100))
@given(st.text(alphabet="ab\n", max_size=6))
def test_search_agrees_with_python_re(text):
    """On a, b and newline, ECMA-262 and Python agree, but for `$` (Python's `\\Z`)."""
    es = ExprSet()
    for pattern in ("ab", "^a", "b$", "a.b", "^(a|b)+$"):
        expected = re.search(pattern.replace("$", "\\Z"), text) is not None
        assert matches(es, search(es, pattern), text) == expected, (pattern, text)
