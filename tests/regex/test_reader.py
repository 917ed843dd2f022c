"""Reading patterns (refimpl/regex/reader.py): groups, alternation, quantifiers, anchors and
the extended syntax, as trees (`dump`) and as errors at an offset; limits; deep and long
patterns read without recursion. (Escapes, classes and flags have their own test files.)
"""
from __future__ import annotations

import pytest

from refimpl.errors import LimitError, RegexError
from refimpl.limits import Limits
from refimpl.regex.ast import Alternation, dump
from refimpl.regex.reader import read_pattern
from tests.support.regex_strategies import assert_read_error, deep_groups, quick

# (pattern, message substring, offset); all in the default (Rust) dialect.
ERRORS = [
    # groups
    ("(a", "unclosed group", 0),
    ("a(?:b|c", "expected ')'", 1),
    ("((a)", "unclosed group", 0),
    ("a)", "unopened group", 1),
    ("(a))", "unopened group", 3),
    ("(?", "unclosed group", 0),
    # group names
    ("(?P<>a)", "empty capture group name", 4),
    ("(?P<1a>a)", "invalid character '1' in a capture group name", 4),
    ("(?<na", "unclosed capture group name", 5),
    ("(?P<n>a)(?<n>b)", "duplicate capture group name 'n'", 11),
    # literals
    ("x\ud800", "surrogate code point U+D800", 1),
    # quantifiers
    ("*", "quantifier '*' without an operand", 0),
    ("a|+", "quantifier '+' without an operand", 2),
    ("(?i)*", "quantifier '*' without an operand", 4),
    ("(*)", "quantifier '*' without an operand", 1),
    ("{5}", "quantifier '{' without an operand", 0),
    ("a{", "unclosed counted repetition", 1),
    ("a{5", "unclosed counted repetition", 1),
    ("a{5,", "unclosed counted repetition", 1),
    ("a{x}", "repetition quantifier expects a valid decimal", 2),
    ("a{}", "repetition quantifier expects a valid decimal", 2),
    ("a{,5}", "the minimum is required", 2),
    ("a{5,x}", "repetition quantifier expects a valid decimal", 4),
    ("a{3,2}", "invalid repetition count range {3,2}", 1),
    # anchors
    ("a^b", "anchors are only supported at the ends", 1),
    ("a$b", "anchors are only supported at the ends", 1),
    ("(^a)*", "'^' is not at the start", 1),
    ("(a$)+", "'$' is not at the end", 2),
    ("x\\Ay", "'\\A' is not at the start", 1),
    ("a\\zb", "'\\z' is not at the end", 1),
    ("^^a", "'^' is not at the start", 1),
    # unsupported features
    ("(?=a)", "look-around is not supported", 0),
    ("x(?!a)", "look-around is not supported", 1),
    ("(?<=a)b", "look-around is not supported", 0),
    ("(?<!a)b", "look-around is not supported", 0),
    ("(?P<n>a)(?P=n)", "backreferences are not supported", 8),
    ("(?P>n)", "recursion is not supported", 0),
]

# Errors of the extended syntax (`&` and `~`).
EXTENDED_ERRORS = [
    ("a&", "'&' without a right operand", 1),
    ("&a", "'&' without a left operand", 0),
    ("a|&b", "'&' without a left operand", 2),
    ("(a&)", "'&' without a right operand", 2),
    ("~", "complement '~' without an operand", 0),
    ("ab~", "complement '~' without an operand", 2),
    ("(~)", "complement '~' without an operand", 1),
    ("~*", "quantifier '*' without an operand", 1),
]


@pytest.mark.parametrize("pattern,message,offset", ERRORS)
def test_error_table(pattern, message, offset):
    assert_read_error(pattern, message, offset)


@pytest.mark.parametrize("pattern,message,offset", EXTENDED_ERRORS)
def test_extended_error_table(pattern, message, offset):
    assert_read_error(pattern, message, offset, extended=True)


def test_repeat_bound_limit():
    with pytest.raises(LimitError) as info:
        read_pattern("a{100001}")
    assert info.value.limit == "repeat_bound"
    with pytest.raises(LimitError):
        read_pattern("a{2,100001}")
    with pytest.raises(LimitError):
        read_pattern("a{99999999999999999999999999999999}")
    read_pattern("a{100000}")
    with pytest.raises(LimitError):
        read_pattern("a{11}", limits=Limits(repeat_bound=10))


@pytest.mark.parametrize("pattern,expected", [
    ("", "empty"),
    ("()", "empty"),
    ("a||b", "(alt 'a' empty 'b')"),
    ("ab|c*", "(alt (concat 'a' 'b') (repeat 0 inf 'c'))"),
    ("(?P<x>a)(?<y>b)", "(concat 'a' 'b')"),
    ("a+?b??c{2}d{2,}?e{2,5}", "(concat (repeat 1 inf 'a') (repeat 0 1 'b') (repeat 2 2 'c') "
                               "(repeat 2 inf 'd') (repeat 2 5 'e'))"),
    ("a*+", "(repeat 1 inf (repeat 0 inf 'a'))"),  # Rust: a nested repetition, not possessive
    ("a{ 2 , 3 }", "(repeat 2 3 'a')"),  # Rust skips spaces around the numbers
    ("(?-u)\\x41", "'A'"),
    ("(?-u).", "bytes[\\x00-\\x09\\x0B-\\xFF]"),
    (".", "[^\\u{A}]"),
    ("^a$", "(concat ^ 'a' $)"),
    ("^a|^b$|c$", "(alt (concat ^ 'a') (concat ^ 'b' $) (concat 'c' $))"),
])
def test_tree_shape(pattern, expected):
    assert dump(read_pattern(pattern)) == expected


@pytest.mark.parametrize("pattern,expected", [
    ("a&b|c", "(alt (and 'a' 'b') 'c')"),
    ("ab&cd", "(and (concat 'a' 'b') (concat 'c' 'd'))"),
    ("~a*b", "(concat (not (repeat 0 inf 'a')) 'b')"),
    ("~(a|b)", "(not (alt 'a' 'b'))"),
    ("a~b", "(concat 'a' (not 'b'))"),
    ("~(?i)a", "(not i'a')"),
    ("a&\\&", "(and 'a' '&')"),
    ("~~a", "(not (not 'a'))"),
])
def test_extended_tree_shape(pattern, expected):
    assert dump(read_pattern(pattern, extended=True)) == expected


def test_ampersand_and_tilde_are_literals_by_default():
    assert dump(read_pattern("a&~b")) == "(concat 'a' '&' '~' 'b')"


# ========================================================================= pathological

N = 10_000


@pytest.mark.parametrize("opener", ["(", "(?:", "(?i:", "(?P<g>"])
def test_deep_groups(opener):
    assert dump(quick(lambda: read_pattern(deep_groups(opener)))) in ("'a'", "i'a'")


def test_deep_unclosed_and_unopened():
    with pytest.raises(RegexError) as info:
        read_pattern("(" * N + "a" + ")" * (N - 1))
    assert info.value.offset == 0
    with pytest.raises(RegexError) as info:
        read_pattern("(" * N + "a" + ")" * (N + 1))
    assert info.value.offset == 2 * N + 1


def test_deep_concatenation():
    chain = "".join("(" + "abc"[i % 3] for i in range(N)) + ")" * N
    node = quick(lambda: read_pattern(chain))
    assert hash(node) == hash(read_pattern(chain)) and node == read_pattern(chain)
    assert repr(node).startswith("Concat(") and dump(node).startswith("(concat 'a' (concat 'b'")


def test_alternation_of_many_literals():
    node = quick(lambda: read_pattern("|".join("w%dx" % i for i in range(N))))
    assert isinstance(node, Alternation) and len(node.items) == N
