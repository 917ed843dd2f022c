"""Tests of refimpl.regex.syntax (the parser) and refimpl.regex.compiler.

* a table of malformed patterns: the message each must raise and the offset it points at;
* pathological inputs: 10,000-deep nesting, 10,000 alternatives, big counted repetitions;
* the shape of the AST (`dump`) and value semantics of its nodes;
* the language of compiled expressions, checked with a tiny derivative matcher against
  Python's `re.fullmatch` on the common subset of the two dialects, and against explicit
  expectations where Rust's dialect differs (byte mode, POSIX classes, set operations).
"""
from __future__ import annotations

import itertools
import re
import time

import pytest

from refimpl.regex.derivative import derivative
from refimpl.regex.printer import to_string
from refimpl.errors import LimitError, RegexError
from refimpl.limits import Limits
from refimpl.regex import unicode as uni
from refimpl.regex.compiler import compile_ast, compile_class, compile_pattern
from refimpl.regex.exprs import ExprSet
from refimpl.regex.ast import Alternation, ByteClass, Class, Concat, Empty, Literal, Repeat, dump
from refimpl.regex.reader import read_pattern


def full_match(es: ExprSet, e: int, data: bytes) -> bool:
    """Run the derivative byte by byte; the word matches iff the final derivative is nullable."""
    for b in data:
        e = derivative(es, e, b)
        if e == es.NOTHING:
            return False
    return es.nullable(e)


def matcher(pattern: str, extended: bool = False):
    es = ExprSet()
    e = compile_pattern(es, pattern, extended=extended)

    def match(text) -> bool:
        data = text.encode("utf-8") if isinstance(text, str) else text
        return full_match(es, e, data)
    return match


# ============================================================================ error table

# (pattern, message substring, offset); all in the default (Rust) dialect.
ERRORS = [
    # groups
    ("(a", "unclosed group", 0),
    ("a(?:b|c", "expected ')'", 1),
    ("((a)", "unclosed group", 0),
    ("a)", "unopened group", 1),
    ("(a))", "unopened group", 3),
    ("(?", "unclosed group", 0),
    # flags
    ("(?i", "expected a flag", 3),
    ("(?)", "empty flag group", 2),
    ("(?z)", "unrecognized flag 'z'", 2),
    ("(?#comment)", "comments (?#...) are not supported", 2),
    ("(?ii)", "duplicate flag 'i'", 3),
    ("(?i-i)", "duplicate flag 'i'", 4),
    ("(?--i)", "flag negation operator '-' repeated", 3),
    ("(?i-)", "dangling flag negation operator", 3),
    # group names
    ("(?P<>a)", "empty capture group name", 4),
    ("(?P<1a>a)", "invalid character '1' in a capture group name", 4),
    ("(?<na", "unclosed capture group name", 5),
    ("(?P<n>a)(?<n>b)", "duplicate capture group name 'n'", 11),
    # escapes
    ("\\q", "invalid escape \\q", 0),
    ("ab\\e", "invalid escape \\e", 2),
    ("\\Z", "use \\z", 0),
    ("a\\", "incomplete escape sequence", 1),
    ("\\0", "octal escapes are not supported", 0),
    ("\\x", "incomplete escape sequence \\x", 2),
    ("\\xG0", "invalid hexadecimal digit 'G'", 2),
    ("\\x{}", "hexadecimal literal empty", 2),
    ("\\x{41", "unclosed hexadecimal escape", 2),
    ("\\x{110000}", "not a Unicode scalar value", 3),
    ("\\u{D800}", "is a surrogate", 3),
    ("\\uDFFF", "is a surrogate", 2),
    ("\\u12", "expected 4 hexadecimal digits", 4),
    ("x\ud800", "surrogate code point U+D800", 1),
    # Unicode classes
    ("\\p{Foo}", "unknown Unicode property 'Foo'", 3),
    ("a\\P{Klingon}", "unknown Unicode property 'Klingon'", 4),
    ("\\p{Script=Foo}", "unknown Unicode property value 'Foo'", 3),
    ("\\pQ", "unknown Unicode property 'Q'", 2),
    ("\\p{Greek", "unclosed Unicode class name", 2),
    ("\\p{}", "empty Unicode class name", 2),
    ("(?-u)\\p{L}", "not allowed in byte mode", 5),
    # character classes
    ("[a", "unclosed character class", 0),
    ("x[]", "empty character class cannot be written", 1),
    ("[^]", "unclosed character class", 0),
    ("[a[b]", "unclosed character class", 0),
    ("[z-a]", "invalid character class range z-a", 1),
    ("[\\x{100}-a]", "the start must be <= the end", 1),
    ("[\\d-z]", "invalid range boundary", 1),
    ("[a-\\w]", "invalid range boundary", 3),
    ("[\\b]", "word boundaries (\\b) are not supported", 1),
    ("[\\A]", "anchors cannot appear there", 1),
    ("(?-u)[é]", "Unicode is not allowed here", 6),
    # quantifiers
    ("*", "quantifier '*' without an operand", 0),
    ("a|+", "quantifier '+' without an operand", 2),
    ("(?)?", "empty flag group", 2),
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
    ("(a)\\1", "backreferences are not supported", 3),
    ("(?<n>a)\\k<n>", "backreferences are not supported", 7),
    ("(?P<n>a)(?P=n)", "backreferences are not supported", 8),
    ("\\bword\\b", "word boundaries (\\b) are not supported", 0),
    ("a\\B", "word boundaries (\\B) are not supported", 1),
    ("\\<a", "word boundaries (\\<) are not supported", 0),
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
    with pytest.raises(RegexError) as info:
        read_pattern(pattern)
    err = info.value
    assert message in err.message, err.message
    assert err.offset == offset, (err.offset, err.message)
    assert err.pattern == pattern
    assert "^" in str(err)  # the caret line


@pytest.mark.parametrize("pattern,message,offset", EXTENDED_ERRORS)
def test_extended_error_table(pattern, message, offset):
    with pytest.raises(RegexError) as info:
        read_pattern(pattern, extended=True)
    assert message in info.value.message, info.value.message
    assert info.value.offset == offset


def test_error_table_is_big_enough():
    assert len(ERRORS) + len(EXTENDED_ERRORS) >= 30


def test_compile_pattern_raises_the_same_errors():
    with pytest.raises(RegexError):
        compile_pattern(ExprSet(), "a{3,2}")


def test_unclosed_nested_class_points_at_the_innermost_bracket():
    with pytest.raises(RegexError) as info:
        read_pattern("[a[b[c]")
    assert info.value.offset == 2


# =============================================================================== limits

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
    with pytest.raises(LimitError):
        compile_pattern(ExprSet(Limits(repeat_bound=10)), "a{0,11}")


# ========================================================================= pathological

N = 10_000


def _quick(fn, seconds=10.0):
    start = time.perf_counter()
    result = fn()
    assert time.perf_counter() - start < seconds
    return result


@pytest.mark.parametrize("opener", ["(", "(?:", "(?i:", "(?P<g>"])
def test_deep_groups(opener):
    if opener == "(?P<g>":  # names must be unique
        pattern = "".join("(?P<g%d>" % i for i in range(N)) + "a" + ")" * N
    else:
        pattern = opener * N + "a" + ")" * N
    node = _quick(lambda: read_pattern(pattern))
    assert dump(node) in ("'a'", "i'a'")
    assert matcher(pattern)("a") and not matcher(pattern)("b")


def test_deep_unclosed_and_unopened():
    with pytest.raises(RegexError) as info:
        read_pattern("(" * N + "a" + ")" * (N - 1))
    assert info.value.offset == 0
    with pytest.raises(RegexError) as info:
        read_pattern("(" * N + "a" + ")" * (N + 1))
    assert info.value.offset == 2 * N + 1


def test_deep_classes():
    pattern = "[" * N + "a" + "]" * N
    node = _quick(lambda: read_pattern(pattern))
    assert node == Class(((97, 97),))
    negated = "[^" * N + "a" + "]" * N  # an even number of negations
    assert _quick(lambda: read_pattern(negated)) == Class(((97, 97),))


def test_deep_concatenation_and_alternation():
    # (a(b(c(...)))) and (x|y(x|y(...))): deep trees, compiled and walked without recursion
    chain = "".join("(" + "abc"[i % 3] for i in range(N)) + ")" * N
    node = _quick(lambda: read_pattern(chain))
    assert hash(node) == hash(read_pattern(chain)) and node == read_pattern(chain)
    assert repr(node).startswith("Concat(") and dump(node).startswith("(concat 'a' (concat 'b'")
    word = "".join("abc"[i % 3] for i in range(N))
    es = ExprSet()
    assert _quick(lambda: compile_pattern(es, chain)) == es.literal(word.encode())
    mixed = "(x|y" * N + ")" * N
    m = _quick(lambda: matcher(mixed))
    assert m("x") and m("yyyx") and m("y" * N) and not m("yy")


def test_deep_repetitions_and_complements():
    stars = "(" * N + "a" + ")*" * N
    assert matcher(stars)("aaaa")
    nots = "~" * N + "a"  # an even number of complements
    m = _quick(lambda: matcher(nots, extended=True))
    assert m("a") and not m("b")
    assert dump(read_pattern("~~a", extended=True)) == "(not (not 'a'))"


def test_alternation_of_many_literals():
    words = ["w%dx" % i for i in range(N)]
    pattern = "|".join(words)
    node = _quick(lambda: read_pattern(pattern))
    assert isinstance(node, Alternation) and len(node.items) == N
    m = _quick(lambda: matcher(pattern))
    assert m("w0x") and m("w9999x") and not m("w10000x") and not m("w")


def test_nested_counted_repetition():
    es = ExprSet()
    e = _quick(lambda: compile_pattern(es, "(a{1000}){1000}"), seconds=2.0)
    assert es.size(e) < 20
    assert not full_match(es, e, b"a" * 1500)


# ============================================================================ AST shape

@pytest.mark.parametrize("pattern,expected", [
    ("", "empty"),
    ("()", "empty"),
    ("a||b", "(alt 'a' empty 'b')"),
    ("ab|c*", "(alt (concat 'a' 'b') (repeat 0 inf 'c'))"),
    ("a+?b??c{2}d{2,}?e{2,5}", "(concat (repeat 1 inf 'a') (repeat 0 1 'b') (repeat 2 2 'c') "
                               "(repeat 2 inf 'd') (repeat 2 5 'e'))"),
    ("a*+", "(repeat 1 inf (repeat 0 inf 'a'))"),  # Rust: a nested repetition, not possessive
    ("a{ 2 , 3 }", "(repeat 2 3 'a')"),  # Rust skips spaces around the numbers
    ("(?i)a(?-i)b", "(concat i'a' 'b')"),
    ("(?i:a)b", "(concat i'a' 'b')"),
    ("a(?i)b|c", "(alt (concat 'a' i'b') i'c')"),  # flags last to the end of the group
    ("(?x) a b # comment\n c", "(concat 'a' 'b' 'c')"),
    ("(?x)[ a - c ]\\ ", "(concat [a-c] ' ')".replace("' '", "'\\u{20}'")),
    ("\\x41\\u0042\\U00000043\\x{44}\\u{45}", "(concat 'A' 'B' 'C' 'D' 'E')"),
    ("\\a\\f\\t\\n\\r\\v", "(concat '\\u{7}' '\\u{C}' '\\u{9}' '\\u{A}' '\\u{D}' '\\u{B}')"),
    ("\\%\\/\\&\\~\\-\\#\\ ", "(concat '%' '/' '&' '~' '-' '#' '\\u{20}')"),
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
    ("(?-u:\\xFF)a", "(concat \\xFF 'a')"),
    ("(?-u)\\x41", "'A'"),
    ("(?i-u)k", "bytes[\\x4B\\x6B]"),
    ("(?-u)(?i)é", "'\\u{E9}'"),
    ("(?-u)[^\\x00-\\x7F]", "bytes[\\x80-\\xFF]"),
    ("(?-u)\\d\\W", "(concat bytes[\\x30-\\x39] bytes[\\x00-\\x2F\\x3A-\\x40\\x5B-\\x5E\\x60"
                    "\\x7B-\\xFF])"),
    ("(?-u).", "bytes[\\x00-\\x09\\x0B-\\xFF]"),
    ("(?-u:(?s).)", "bytes[\\x00-\\xFF]"),
    ("(?R).", "[^\\u{A}\\u{D}]"),
    ("(?s).", "any"),
    (".", "[^\\u{A}]"),
    ("^a$", "(concat ^ 'a' $)"),
    ("\\Aa\\z", "(concat \\A 'a' \\z)"),
    ("^a|^b$|c$", "(alt (concat ^ 'a') (concat ^ 'b' $) (concat 'c' $))"),
    ("(?m)^(a)$", "(concat ^ 'a' $)"),
    ("(?U)a*", "(repeat 0 inf 'a')"),
    ("\\p{Greek}", "[%s]" % "".join(
        ("\\u{%X}" % lo if lo == hi else "\\u{%X}-\\u{%X}" % (lo, hi))
        for lo, hi in uni.property_ranges("Greek"))),
])
def test_ast_shape(pattern, expected):
    assert dump(read_pattern(pattern)) == expected


@pytest.mark.parametrize("pattern,expected", [
    ("a&b|c", "(alt (and 'a' 'b') 'c')"),
    ("ab&cd", "(and (concat 'a' 'b') (concat 'c' 'd'))"),
    ("~a*b", "(concat (not (repeat 0 inf 'a')) 'b')"),
    ("~(a|b)", "(not (alt 'a' 'b'))"),
    ("a~b", "(concat 'a' (not 'b'))"),
    ("~(?i)a", "(not i'a')"),
    ("a&\\&", "(and 'a' '&')"),
    ("[a&&b]", "[]"),
])
def test_extended_ast_shape(pattern, expected):
    assert dump(read_pattern(pattern, extended=True)) == expected


def test_ampersand_and_tilde_are_literals_by_default():
    assert dump(read_pattern("a&~b")) == "(concat 'a' '&' '~' 'b')"


def test_nodes_are_values():
    a = read_pattern("a|b*")
    b = Alternation((Literal(97), Repeat(Literal(98), 0, None)))
    assert a == b and hash(a) == hash(b)
    assert a != read_pattern("a|b+") and a != read_pattern("(?i)a|b*")
    assert {read_pattern("x"), read_pattern("x")} == {Literal(120)}
    assert read_pattern("ab") == Concat((Literal(97), Literal(98)))
    assert read_pattern("") == Empty()
    assert read_pattern("(?-u)[a]") == ByteClass(1 << 97)
    with pytest.raises(AttributeError):
        a.items = ()
    assert "Literal(97, False, offset=0)" in repr(a)
    assert read_pattern("ab").items[1].offset == 1


# =================================================================== language of patterns

ALPHABET = ["", "a", "b", "A", "B", "k", "K", "\u212a", "é", "É", "€", "😀", "\n", "\r", "0",
            "٣", "_", " ", "\t", "-", ".", "x", "ſ", "s", "S"]

# Patterns in the common subset of Rust and Python syntax with the same meaning.
SAME_AS_PYTHON = [
    "a", "ab", "a|b", "a*", "a+b?", "(ab)*", "(a|b){2,3}", "a{2}", "a{0,}", "(?:a|)b",
    ".", "(?s).", ".*", "..", "[ab]", "[^ab]", "[a-z]+", "[^a-z]", "[-a]", "[a-]",
    "\\d", "\\D", "\\d+", "[\\d_]", "\\s", "\\S+", "[^\\s]",
    "(?i)a", "(?i)k", "(?i)s", "(?i)[a-c]", "(?i)é", "(?i:ab)c", "a(?i:b)",
    "é+", "[é€]", "[^é]", "€|😀", "[\\u00e9-\\u20ac]", "\\u00e9", "😀*",
    "\\.", "\\-", "[\\]]", "[\\^a]", "a\\|b", "\\n", "[\\n\\r]",
    "(?x) a  b # comment", "x*?", "(a|b)+?", "^a$", "^(a|b)*$", "\\Aab\\Z".replace("\\Z", ""),
]


@pytest.mark.parametrize("pattern", SAME_AS_PYTHON)
def test_agrees_with_python_re(pattern):
    es = ExprSet()
    e = compile_pattern(es, pattern)
    py = re.compile(pattern.replace("\\A", "").replace("\\z", ""))
    for n in range(4):
        for parts in itertools.product(ALPHABET, repeat=n):
            text = "".join(parts)
            if n > 1 and len(text) > 3:
                continue
            expected = py.fullmatch(text) is not None
            assert full_match(es, e, text.encode("utf-8")) == expected, (pattern, text)


@pytest.mark.parametrize("pattern,yes,no", [
    ("\\w+", ["héllo", "a_1", "日本", "\u0301"], ["a b", "-", ""]),  # a Mark is \w in Rust
    ("\\p{Greek}+", ["αβγ", "Ω"], ["a", "αa"]),
    ("\\P{Greek}", ["a", "€"], ["α"]),
    ("\\p{L}\\pN", ["a1", "é٣"], ["11", "a"]),
    ("\\p{gc=Lu}", ["A", "É"], ["a"]),
    ("\\p{Script!=Latin}", ["α", "1"], ["a"]),
    ("(?i)\\p{Lu}", ["a", "A"], ["1"]),
    ("[[:alpha:]]+", ["abcXYZ"], ["é", "1"]),
    ("[[:word:]]", ["_"], ["é"]),
    ("(?i)[[:upper:]]", ["a", "\u212a", "ſ"], ["1"]),
    ("[\\p{Greek}&&\\p{Lu}]", ["Ω"], ["ω", "A"]),
    ("[^\\x00-\\x{10FFFF}]", [], ["", "a", "\n"]),
    ("\\x{10FFFF}", ["\U0010ffff"], ["a"]),
    ("[\\x{D7FF}-\\x{E000}]", ["\ud7ff", "\ue000"], ["a"]),
    ("(?-u)\\xFF\\x80", [b"\xff\x80"], ["ÿ", b"\xff"]),
    ("(?-u).", [b"\xff", "a", b"\x00"], ["\n", "é"]),
    ("(?-u)(?s).", [b"\n"], ["é"]),
    ("(?-u)[^a]", [b"\x80", "b"], ["a"]),
    ("(?-u)é", ["é"], [b"\xe9"]),
    ("(?-u)\\w", ["a", "_"], ["é"]),
    ("(?i-u)k", ["k", "K"], ["\u212a"]),
    (".", ["é", "😀", "\r"], ["\n", b"\x80", b"\xed\xa0\x80", ""]),
    ("(?R).", ["a"], ["\r", "\n"]),
    ("(?i)\u212a", ["k", "K", "\u212a"], ["x"]),
])
def test_dialect_specific_languages(pattern, yes, no):
    m = matcher(pattern)
    for text in yes:
        assert m(text), (pattern, text)
    for text in no:
        assert not m(text), (pattern, text)


@pytest.mark.parametrize("pattern,yes,no", [
    ("[a-z]+&~(if|in)", ["is", "iff", "x"], ["if", "in", ""]),
    ("(a|b)*&(.*b.*)", ["b", "ab", "aab"], ["aa", ""]),
    ("~(a*)", ["b", "ab", ""[:0] + "ba"], ["", "a", "aaa"]),
    ("~a*", ["b"], ["aa"]),
    ("\\&\\~", ["&~"], ["a"]),
])
def test_extended_languages(pattern, yes, no):
    m = matcher(pattern, extended=True)
    for text in yes:
        assert m(text), (pattern, text)
    for text in no:
        assert not m(text), (pattern, text)


# ============================================================================= compiler

def test_class_compilation_is_cached_and_compact():
    es = ExprSet()
    e1 = compile_pattern(es, "\\w")
    before = len(es)
    e2 = compile_pattern(es, "[\\w]")  # the same set of code points: the same expression
    assert e1 == e2 and len(es) == before
    # 770 ranges, 995 UTF-8 sequences: 2822 nodes as a plain union of sequences; the trie
    # shares leading bytes and merges sibling byte ranges with the same rest.
    assert es.size(e1) < 1000
    assert compile_class(es, ()) == es.NOTHING
    assert compile_class(es, ((0x61, 0x7A),)) == es.byte_range(0x61, 0x7A)


def test_compiled_dot_is_every_scalar_value_but_newline():
    es = ExprSet()
    dot = compile_pattern(es, "(?s).")
    for cp in (0, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFF, 0x10000, 0x10FFFF):
        assert full_match(es, dot, chr(cp).encode("utf-8"))
    for data in (b"\x80", b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"ab"):
        assert not full_match(es, dot, data)


def test_case_insensitive_literal_is_a_class():
    es = ExprSet()
    assert compile_pattern(es, "(?i)k") == compile_pattern(es, "[kK\\x{212A}]")
    assert compile_pattern(es, "(?i)1") == es.literal(b"1")


def test_compile_ast_of_hand_built_nodes():
    es = ExprSet()
    node = Concat((Literal(0xE9), Repeat(Class(((0x30, 0x39),)), 1, None)))
    assert compile_ast(es, node) == es.concat(es.literal("é".encode()),
                                              es.plus(es.byte_range(0x30, 0x39)))


@pytest.mark.parametrize("pattern", [
    "[a-c](?:xy)*", "é|😀", "\\w", ".", "(?s).*", "a&b", "~(ab)", "(?i)k+", "[^a]",
    "(?-u)[\\x80-\\xFF]", "(a|b|)c{2,5}", "\\d+\\.\\d*",
])
def test_printer_output_parses_back_to_the_same_expression(pattern):
    es = ExprSet()
    e = compile_pattern(es, pattern, extended=True)
    text = to_string(es, e)
    assert compile_pattern(es, text, extended=True) == e, text


# ============================================================ random patterns vs Python re

from hypothesis import given, strategies as st  # noqa: E402

_ATOMS = ["a", "b", "A", "é", ".", "[ab]", "[^a]", "[a-zé]", "\\d", "\\.", "(?:)"]


@st.composite
def _patterns(draw, depth=3):
    """Small patterns in the common subset of Rust and Python syntax."""
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        return draw(st.sampled_from(_ATOMS))
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return "".join(draw(st.lists(_patterns(depth - 1), min_size=2, max_size=3)))
    if kind == 1:
        return "(?:%s)" % "|".join(draw(st.lists(_patterns(depth - 1), min_size=2, max_size=3)))
    if kind == 2:
        sub = draw(_patterns(depth - 1))
        return "(?:%s)%s" % (sub, draw(st.sampled_from(["*", "+", "?", "{2}", "{0,2}", "{1,}"])))
    return "(?i:%s)" % draw(_patterns(depth - 1))


@given(_patterns(), st.lists(st.text(alphabet="abAé.1\n", max_size=4), min_size=5, max_size=5))
def test_random_patterns_agree_with_python_re(pattern, texts):
    es = ExprSet()
    e = compile_pattern(es, pattern)
    py = re.compile(pattern)
    for text in texts:
        assert full_match(es, e, text.encode("utf-8")) == (py.fullmatch(text) is not None), \
            (pattern, text)
