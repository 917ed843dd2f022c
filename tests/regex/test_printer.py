"""The printer round trip: to_string(es, e) compiles back (extended syntax) to the same id.

For random patterns (tests/support/regex_strategies.py) in Unicode mode, byte mode and the
extended syntax (`&`, `~`), and for the derivatives reached from them by random bytes
(which stop in the middle of UTF-8 sequences, and build ∅, Σ*, intersections and
complements the reader never produced itself):

    compile_pattern(es, to_string(es, e), extended=True) == e      (the same ExprSet)
"""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl.regex import ExprSet, byte_classes, compile_pattern, to_string
from refimpl.regex.derivative import derivative
from tests.support import regex_strategies as rs  # noqa: E402


def assert_round_trip(es, e, context):
    text = to_string(es, e)
    back = compile_pattern(es, text, extended=True)
    assert back == e, "%s: expression %d prints as %r, which compiles back to %d (%r)" % (
        context, e, text, back, to_string(es, back),
    )


def check_with_derivatives(pattern, extended, seed, steps=6, walks=3):
    es = ExprSet()
    e = compile_pattern(es, pattern, extended=extended)
    assert_round_trip(es, e, "pattern %r" % pattern)
    rng = random.Random(seed)
    for _ in range(walks):
        x = e
        path = bytearray()
        for _ in range(steps):
            classes = byte_classes(es, x)
            live = [c for c in classes if derivative(es, x, (c & -c).bit_length() - 1) != es.NOTHING]
            mask = rng.choice(live if live and rng.random() < 0.85 else classes)
            members = [b for b in range(256) if (mask >> b) & 1]
            b = rng.choice(members)
            path.append(b)
            x = derivative(es, x, b)
            assert_round_trip(es, x, "pattern %r after bytes %r" % (pattern, bytes(path)))
            if x == es.NOTHING:
                break


@st.composite
def patterns(draw):
    mode = draw(st.sampled_from(["unicode", "unicode", "bytes", "ascii", "extended"]))
    if mode == "bytes":
        tree = draw(rs.trees("bytes", perl=True))
        return "(?-u)" + rs.render(tree, byte_mode=True), False
    if mode == "ascii":
        return rs.render(draw(rs.trees("ascii"))), False  # (Unicode \w: slow to print)
    if mode == "unicode":
        return rs.render(draw(rs.trees("unicode"))), False
    parts = draw(st.lists(rs.trees("unicode", max_leaves=5), min_size=1, max_size=3))
    counter = [0]
    texts = ["(?:%s)" % rs.render(t, extended=True, counter=counter) for t in parts]
    text = texts[0]
    for other in texts[1:]:
        op = draw(st.sampled_from(["&", "|", "", "&~"]))
        text = text + op + other
    if draw(st.booleans()):
        text = "~" + "(?:%s)" % text
    return text, True


@settings(max_examples=rs.examples(600), deadline=None)
@given(patterns(), st.integers(0, 2**32 - 1))
def test_round_trip(pattern_extended, seed):
    pattern, extended = pattern_extended
    check_with_derivatives(pattern, extended, seed)


FIXED = [
    "", "a", "abc", "a|b", "[a-z]+", ".", "(?s).", "(?-u).", "(?-u)[^a]", "[^a]", "\\d+",
    "(?i)k", "(?i)[a-z]", "é", "[é-ſ]", "😀+", "[\\x{10000}-\\x{10FFFF}]", "a{2,5}", "(?:ab){3,}",
    "\\p{L}", "\\p{Greek}+", "\\w", "\\s", "[\\s\\S]", "[^\\x00-\\x{10FFFF}]",
    "(?-u)[\\x00-\\xFF]*", "(?-u)[^\\x00-\\xFF]", "(?-u)[\\x00-\\xFF]", "(?-u)[\\d\\D]a",
    "[a-c](?:xy)*", "é|😀", "(?s).*", "(?i)k+", "(?-u)[\\x80-\\xFF]", "(a|b|)c{2,5}", "\\d+\\.\\d*",
]
EXTENDED = ["a&b", "~a", "~(a*)", "~(ab)", "[a-z]+&~(?:abc)", "(?:a|b)*&~(?:.*aa.*)", "~(?:)", "a&~a"]


@pytest.mark.parametrize("pattern", FIXED)
def test_round_trip_fixed(pattern):
    check_with_derivatives(pattern, False, 0, steps=8)


@pytest.mark.parametrize("pattern", EXTENDED)
def test_round_trip_fixed_extended(pattern):
    check_with_derivatives(pattern, True, 0, steps=8)


def test_deep_expressions_print_without_recursion():
    es = ExprSet()
    e = rs.deep_expression(es)
    text = to_string(es, e)
    assert len(text) > 10_000 and text.startswith("c|b?(?:c|a?(?:c|b?")
    assert to_string(es, e, limit=50).endswith("…")
