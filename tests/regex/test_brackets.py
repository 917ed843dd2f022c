"""Bracketed classes (refimpl/regex/brackets.py): Rust's rules in a table, random byte-mode
classes against a model over Python sets, deep nesting, and the errors."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl.regex.ast import ByteClass, Class, dump
from refimpl.regex.reader import read_pattern
from tests.support.budget import examples
from tests.support.regex_strategies import assert_read_error, quick

# (pattern, message substring, offset)
ERRORS = [
    ("[a", "unclosed character class", 0),
    ("x[]", "empty character class cannot be written", 1),
    ("[^]", "unclosed character class", 0),
    ("[a[b]", "unclosed character class", 0),
    ("[a[b[c]", "unclosed character class", 2),  # the innermost open bracket
    ("[z-a]", "invalid character class range z-a", 1),
    ("[\\x{100}-a]", "the start must be <= the end", 1),
    ("[\\d-z]", "invalid range boundary", 1),
    ("[a-\\w]", "invalid range boundary", 3),
    ("(?-u)[é]", "Unicode is not allowed here", 6),
    ("[\ud800]", "surrogate code point U+D800", 1),
]


@pytest.mark.parametrize("pattern,message,offset", ERRORS)
def test_error_table(pattern, message, offset):
    assert_read_error(pattern, message, offset)


@pytest.mark.parametrize("pattern,expected", [
    ("[]a]", "[]a]"),
    ("[-a-]", "[-a]"),
    ("[a-b-c]", "[-a-c]"),
    ("[^-]", "[^-]"),
    ("[a&b]", "[&a-b]"),
    ("[[:alpha:][:digit:]]", "[0-9A-Za-z]"),
    ("[[:^alpha:]&&[:ascii:]]", "[\\u{0}-@[-`{-\\u{7F}]"),
    ("[:alpha:]", "[:ahlp]"),  # outside brackets it's an ordinary class, as in Rust
    ("[a-z&&[^aeiou]]", "[b-df-hj-np-tv-z]"),
    ("[a-z--[aeiou]]", "[b-df-hj-np-tv-z]"),
    ("[a-c~~b-d]", "[ad]"),
    ("[a-c&&b-d--c]", "[b]"),
    ("(?i)[k]", "[Kk\\u{212A}]"),
    ("(?i)[^k]", "[^Kk\\u{212A}]"),
    ("(?i)[a-c&&B]", "[Bb]"),
    ("(?x)[ a - c ]\\ ", "(concat [a-c] '\\u{20}')"),
    ("(?-u)[^\\x00-\\x7F]", "bytes[\\x80-\\xFF]"),
])
def test_classes_read_as(pattern, expected):
    assert dump(read_pattern(pattern)) == expected


def test_set_operators_inside_brackets_in_the_extended_syntax_too():
    assert dump(read_pattern("[a&&b]", extended=True)) == "[]"


# -- random classes in byte mode, against Python sets ----------------------------------------

CHARS = {"a": 0x61, "b": 0x62, "c": 0x63, "x": 0x78, "Z": 0x5A, "0": 0x30, "9": 0x39,
         "\\t": 0x09, "\\x80": 0x80, "\\xC3": 0xC3, "\\xFF": 0xFF}
POSIX = {"digit": set(range(0x30, 0x3A)), "upper": set(range(0x41, 0x5B)), "blank": {0x09, 0x20}}
OPERATORS = {"&&": set.__and__, "--": set.__sub__, "~~": set.__xor__}


def _fold(s: set) -> set:
    return s | {b ^ 0x20 for b in s if 0x41 <= (b & ~0x20) <= 0x5A}


@st.composite
def _item(draw, depth, icase):
    """(text, set) of one class item: a character, a range, a POSIX class or a bracket."""
    kind = draw(st.sampled_from(["char", "range", "posix"] + (["bracket"] if depth else [])))
    if kind == "char":
        text = draw(st.sampled_from(sorted(CHARS)))
        return text, {CHARS[text]}
    if kind == "range":
        lo, hi = sorted(draw(st.lists(st.sampled_from(sorted(CHARS)), min_size=2, max_size=2)), key=CHARS.get)
        return "%s-%s" % (lo, hi), set(range(CHARS[lo], CHARS[hi] + 1))
    if kind == "posix":  # folded, then negated
        name, negated = draw(st.sampled_from(sorted(POSIX))), draw(st.booleans())
        members = _fold(POSIX[name]) if icase else POSIX[name]
        return "[:%s%s:]" % ("^" if negated else "", name), set(range(256)) - members if negated else members
    return draw(_bracket(depth - 1, icase))


@st.composite
def _bracket(draw, depth, icase):
    """(text, set) of a bracket: unions of items joined by operators (left to right, their
    operands folded under (?i)), folded, then maybe negated."""
    negated = draw(st.booleans())
    unions = draw(st.lists(st.lists(_item(depth, icase), min_size=1, max_size=3), min_size=1, max_size=3))
    ops = draw(st.lists(st.sampled_from(sorted(OPERATORS)), min_size=len(unions) - 1, max_size=len(unions) - 1))
    sets = [set().union(*(s for _, s in items)) for items in unions]
    result = sets[0]
    for op, rhs in zip(ops, sets[1:]):
        result = OPERATORS[op](_fold(result), _fold(rhs)) if icase else OPERATORS[op](result, rhs)
    if icase:
        result = _fold(result)
    text = "".join(op + "".join(t for t, _ in items) for op, items in zip([""] + ops, unions))
    return "[%s%s]" % ("^" if negated else "", text), set(range(256)) - result if negated else result


@settings(max_examples=examples(200))
@given(st.booleans().flatmap(lambda icase: st.tuples(st.just(icase), _bracket(1, icase))))
def test_byte_mode_classes_against_python_sets(case):
    icase, (text, expected) = case
    node = read_pattern(("(?i-u)" if icase else "(?-u)") + text)
    assert isinstance(node, ByteClass), (text, dump(node))
    assert {b for b in range(256) if node.mask >> b & 1} == expected, (text, dump(node))


def test_deep_classes():
    n = 10_000
    assert quick(lambda: read_pattern("[" * n + "a" + "]" * n)) == Class(((97, 97),))
    assert quick(lambda: read_pattern("[^" * n + "a" + "]" * n)) == Class(((97, 97),))  # an even number of negations
