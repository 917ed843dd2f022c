"""Differential tests of refimpl.regex against Python's `re.fullmatch`.

Random patterns come from tests/support/regex_strategies.py, in the syntax subset where Rust's
`regex` (maskref's dialect) and Python's `re` mean the same thing; strings are mostly
random walks through the pattern (so matches are common) and small edits of them.

* str patterns over a Unicode alphabet (characters of every UTF-8 length, ranges across
  the encoding boundaries), with `(?i:` / `(?s:` groups and lazy quantifiers (not on
  PyPy, whose `re` mishandles them: see LAZY);
* ASCII patterns with `\\d \\w \\s` and their negations, checked on ASCII strings only
  (Python's Unicode `\\d \\w \\s` differ from Rust's; on ASCII they agree with re.ASCII);
* byte mode: `(?-u)` patterns with raw bytes `\\xHH` against Python bytes patterns, on
  arbitrary bytes;
* the bytes API of a Unicode pattern: invalid UTF-8 never matches; valid UTF-8 matches as
  the decoded string does.

Plus fixed cases: the constructs the full-match dialect must reject, and anchors at the
ends. About 2,100 random patterns (half on PyPy), each tried on ~10 strings.
"""
from __future__ import annotations

import platform
import re
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refimpl.errors import RegexError
from refimpl.regex import Regex
from tests.support import regex_strategies as rs  # noqa: E402

# Python folds ASCII `i`/`I` with U+0130 and U+0131 under IGNORECASE; Rust's simple case
# folding does not. (`k`/U+212A and `s`/U+017F fold in both.)
PY_ONLY_FOLDS = {"\u0130", "\u0131"}


# PyPy 3.9's `re` gets nested lazy quantifiers wrong (`(?:a{0,2}?)?` full-matches "aaaa")
# and can exhaust memory on them (`(?:.|)+?y{1}?\)y{1}?\)y{1}?` on "y)y)y"): no lazy
# quantifiers when the oracle is PyPy's `re`.
LAZY = platform.python_implementation() != "PyPy"


def py_compile(pattern, flags=0):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # FutureWarning about possible set operations
        return re.compile(pattern, flags)


def check(ours: Regex, oracle, data, pattern):
    got = ours.matches(data)
    want = oracle(data)
    assert got == want, "pattern %r on %r: refimpl says %s, re.fullmatch says %s" % (
        pattern, data, got, want,
    )


def uses_ignore_case(tree, prefix):
    return "i" in prefix or rs.uses(tree, ["i"])


@st.composite
def prefixed(draw, tree_strategy):
    tree = draw(tree_strategy)
    prefix = draw(st.sampled_from(["", "", "", "(?s)", "(?i)"]))
    if prefix == "(?i)" and not rs.is_ascii(tree):
        prefix = ""
    return prefix, tree


@settings(max_examples=rs.examples(700), deadline=None)
@given(prefixed(rs.trees("unicode", lazy=LAZY)), st.data())
def test_unicode_str_patterns(prefix_tree, data):
    prefix, tree = prefix_tree
    pattern = prefix + rs.render(tree)
    ours = Regex(pattern)
    py = py_compile(pattern)
    strings = data.draw(rs.near_strings(tree, "unicode", dotall="s" in prefix), label="strings")
    if uses_ignore_case(tree, prefix):
        strings = [s for s in strings if not PY_ONLY_FOLDS & set(s)]
    for s in strings:
        check(ours, lambda x: py.fullmatch(x) is not None, s, pattern)


@settings(max_examples=rs.examples(500), deadline=None)
@given(prefixed(rs.trees("ascii", perl=True, lazy=LAZY)), st.data())
def test_ascii_patterns_with_perl_classes(prefix_tree, data):
    prefix, tree = prefix_tree
    pattern = prefix + rs.render(tree)
    ours = Regex(pattern)
    py = py_compile(pattern, re.ASCII)
    strings = data.draw(rs.near_strings(tree, "ascii", dotall="s" in prefix), label="strings")
    for s in strings:
        assert s.isascii()
        check(ours, lambda x: py.fullmatch(x) is not None, s, pattern)


@settings(max_examples=rs.examples(500), deadline=None)
@given(
    st.sampled_from(["bytes", "ascii"]).flatmap(
        lambda a: st.tuples(st.just(a), prefixed(rs.trees(a, perl=True, lazy=LAZY)))
    ),
    st.data(),
)
def test_byte_mode_against_bytes_patterns(alphabet_prefix_tree, data):
    alphabet, (prefix, tree) = alphabet_prefix_tree
    text = prefix + rs.render(tree, byte_mode=True)
    pattern = "(?-u)" + text
    ours = Regex(pattern)
    py = py_compile(text.encode("ascii"))
    strings = data.draw(rs.near_strings(tree, alphabet, dotall="s" in prefix), label="strings")
    inputs = [s.encode("latin-1") for s in strings]
    inputs += data.draw(st.lists(st.binary(max_size=8), max_size=3), label="random bytes")
    for b in inputs:
        check(ours, lambda x: py.fullmatch(x) is not None, b, pattern)


# Byte sequences that are not UTF-8: lone continuation bytes, truncated sequences,
# overlong encodings, encoded surrogates, values above U+10FFFF, bytes never in UTF-8.
BAD_UTF8 = [b"\x80", b"\xbf", b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98", b"\xc0\x80", b"\xc1\xbf",
            b"\xe0\x80\x80", b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xf4\x90\x80\x80",
            b"\xf5\x80\x80\x80", b"\xf8", b"\xfe", b"\xff"]


@st.composite
def corrupted(draw, strings):
    """UTF-8 encodings of the strings, some with a bad sequence inserted or a byte cut off."""
    out = []
    for s in strings:
        b = s.encode("utf-8")
        how = draw(st.sampled_from(["keep", "insert", "cut", "replace"]))
        i = draw(st.integers(0, len(b)))
        if how == "insert":
            b = b[:i] + draw(st.sampled_from(BAD_UTF8)) + b[i:]
        elif how == "cut" and b:
            b = b[: max(i, 1) - 1] + b[max(i, 1):]
        elif how == "replace" and i < len(b):
            b = b[:i] + bytes([draw(st.integers(0x80, 0xFF))]) + b[i + 1:]
        out.append(b)
    return out


@settings(max_examples=rs.examples(400), deadline=None)
@given(rs.trees("unicode", lazy=LAZY), st.data())
def test_unicode_patterns_on_bytes(tree, data):
    pattern = rs.render(tree)
    ours = Regex(pattern)
    py = py_compile(pattern)
    strings = data.draw(rs.near_strings(tree, "unicode"), label="strings")
    inputs = data.draw(corrupted(strings), label="inputs")
    inputs += data.draw(st.lists(st.binary(max_size=6), max_size=2), label="random bytes")
    folds = rs.uses(tree, ["i"])

    def oracle(b):
        try:
            s = b.decode("utf-8")
        except UnicodeDecodeError:
            return False  # invalid UTF-8 never matches a Unicode-mode pattern
        return py.fullmatch(s) is not None

    for b in inputs:
        if folds and any(c.encode("utf-8") in b for c in PY_ONLY_FOLDS):
            continue
        check(ours, oracle, b, pattern)


# -- fixed cases ------------------------------------------------------------------------------

REJECTED = [
    r"\bfoo", r"foo\b", r"a\Bb", r"\<a", r"a\>", r"\b{start}a",  # word boundaries
    r"a(?=b)", r"a(?!b)", r"(?<=a)b", r"(?<!a)b",  # look-around
    r"(a)\1", r"(?P<x>a)(?P=x)",  # backreferences
    r"a^b", r"a$b", r"a\Ab", r"a\zb", r"^^a", r"a$$", r"(^a)*", r"a(?:^|b)", r"(?:a$)+",  # inner anchors
    r"(", r")", r"[", r"[a", r"a{2,1}", r"*", r"(?:?)", r"\q", r"[z-a]",  # malformed
]


@pytest.mark.parametrize("pattern", REJECTED)
def test_rejected(pattern):
    with pytest.raises(RegexError):
        Regex(pattern)


ANCHORED = [
    (r"^abc$", "abc", True), (r"^abc$", "abcabc", False), (r"\Aa+\z", "aaa", True),
    (r"^", "", True), (r"$", "", True), (r"^$", "", True), (r"^$", "a", False),
    (r"(?i)^ab$", "AB", True), (r"^a|b$", "a", True), (r"^a|b$", "b", True),
    # first / last in every match, through groups and alternation (as derivre accepts them)
    (r"(?:^a)", "a", True), (r"(^a)", "a", True), (r"a|^b", "b", True), (r"(?:a$)", "a", True),
    (r"(?:^a|^b)c", "bc", True), (r"(?:^a|^b)c", "c", False),
]


@pytest.mark.parametrize("pattern,text,expected", ANCHORED)
def test_anchors_at_the_ends(pattern, text, expected):
    assert Regex(pattern).matches(text) == expected, (pattern, text)
