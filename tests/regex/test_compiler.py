"""Compiling patterns (refimpl/regex/compiler.py): the language of compiled expressions,
checked with derivatives against Python's `re.fullmatch` on the common subset of the two
dialects, and against explicit expectations where Rust's dialect differs (byte mode, POSIX
classes, set operations, Unicode classes); classes as compact UTF-8 tries, cached; deep
and long patterns compiled without recursion.
"""
from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from refimpl.errors import LimitError, RegexError
from refimpl.limits import Limits
from refimpl.regex.ast import Class, Concat, Literal, Repeat
from refimpl.regex.compiler import compile_ast, compile_class, compile_pattern
from refimpl.regex.exprs import ExprSet
from tests.support.regex_strategies import deep_groups, quick
from tests.support.regex_strategies import matches as full_match


def matcher(pattern: str, extended: bool = False):
    es = ExprSet()
    e = compile_pattern(es, pattern, extended=extended)

    def match(text) -> bool:
        data = text.encode("utf-8") if isinstance(text, str) else text
        return full_match(es, e, data)
    return match


def test_compile_pattern_raises_the_reader_s_errors_and_limits():
    with pytest.raises(RegexError):
        compile_pattern(ExprSet(), "a{3,2}")
    with pytest.raises(LimitError):
        compile_pattern(ExprSet(Limits(repeat_bound=10)), "a{0,11}")


# ========================================================================= pathological

N = 10_000


@pytest.mark.parametrize("opener", ["(", "(?:", "(?i:", "(?P<g>"])
def test_deep_groups(opener):
    m = quick(lambda: matcher(deep_groups(opener)))
    assert m("a") and not m("b")


def test_deep_concatenation_and_alternation():
    # (a(b(c(...)))) and (x|y(x|y(...))): deep trees, compiled and walked without recursion
    chain = "".join("(" + "abc"[i % 3] for i in range(N)) + ")" * N
    word = "".join("abc"[i % 3] for i in range(N))
    es = ExprSet()
    assert quick(lambda: compile_pattern(es, chain)) == es.literal(word.encode())
    mixed = "(x|y" * N + ")" * N
    m = quick(lambda: matcher(mixed))
    assert m("x") and m("yyyx") and m("y" * N) and not m("yy")


def test_deep_repetitions_and_complements():
    stars = "(" * N + "a" + ")*" * N
    assert matcher(stars)("aaaa")
    nots = "~" * N + "a"  # an even number of complements
    m = quick(lambda: matcher(nots, extended=True))
    assert m("a") and not m("b")


def test_alternation_of_many_literals():
    m = quick(lambda: matcher("|".join("w%dx" % i for i in range(N))))
    assert m("w0x") and m("w9999x") and not m("w10000x") and not m("w")


def test_nested_counted_repetition():
    es = ExprSet()
    e = quick(lambda: compile_pattern(es, "(a{1000}){1000}"), seconds=2.0)
    assert es.size(e) < 20
    assert not full_match(es, e, b"a" * 1500)


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
    assert es.caches[compile_class][((0x61, 0x7A),)] == es.byte_range(0x61, 0x7A)  # where the printer finds it


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


# ============================================================ random patterns vs Python re

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
