"""Hypothesis strategies for regex tests: random patterns as small syntax trees.

A tree renders to pattern text in the subset where Rust's `regex` syntax (maskref's
dialect) and Python's `re` agree, so `re.fullmatch` can serve as an oracle
(tests/regex/test_re.py); the same trees feed the printer round trip
(tests/regex/test_printer.py). Trees are tuples:

    ("lit", c, style)        one character; style "raw" or "hex" (\\xHH / \\uHHHH / \\UHHHHHHHH)
    ("cls", negated, items)  a class; items are ("range", lo, hi) or ("perl", x)
    ("dot",)                 .
    ("perl", x)              \\d \\D \\w \\W \\s \\S   (x is the letter)
    ("cat", children)        concatenation, >= 2 children; ("cat", ()) is the empty pattern
    ("alt", children)        alternation, >= 2 children
    ("grp", kind, child)     kind: "cap" ( ), "noncap" (?: ), "named" (?P<gN> ),
                             "i" (?i: ), "-i" (?-i: ), "s" (?s: )
    ("rep", child, lo, hi, lazy)   child{lo,hi} (hi None: unbounded), *? etc. when lazy

Alphabets: "unicode" (ASCII plus characters of every UTF-8 length and range endpoints at
the encoding boundaries), "ascii", and "bytes" (ASCII plus the characters U+0080..U+00FF
standing for raw bytes: such a tree is only rendered in byte mode, where `\\xHH` is a byte).

`(?i:` is only put around ASCII-only subtrees: outside ASCII, Rust's simple case folding
and Python's `re` disagree (Python folds `i` with U+0130/U+0131, Rust does not).

`assert_read_error` is the check of the reader's error tables (test_reader.py,
test_flags.py, test_escapes.py, test_brackets.py); `quick` is the time bound of the tests
of pathological inputs, `deep_groups` and `deep_expression` two of those inputs. The end of this module has the other
kind of tree: *expression* trees (`expr_trees`),
raw operator trees over the bytes of EXPR_ALPHABET that are never simplified, with
`member`, the definition of their languages, read straight from the meaning of each
operator. `build` makes an ExprSet expression of one, so every rule of the smart
constructors, the derivative, emptiness and byte classes can be checked against it.
"""
from __future__ import annotations

import string
import time
from functools import lru_cache
from typing import Callable, Iterable, List, Optional, Set, Tuple, TypeVar

from hypothesis import strategies as st

from refimpl.errors import RegexError
from refimpl.regex.derivative import derivative
from refimpl.regex.reader import read_pattern
from tests.support.budget import examples  # noqa: E402,F401  (re-exported: rs.examples)

T = TypeVar("T")


META = set("\\.+*?()|[]{}^$")
CLASS_META = set("\\[]^-&~")

ASCII_POOL = "abcxyzABXZ019_-.*+?()[]{}|^$\\&~#/ \n\t\x00\x7f"
# Characters at the UTF-8 length boundaries (1/2/3/4 bytes), around the surrogate gap,
# and a few letters with case mappings; no surrogates (they have no UTF-8 encoding).
UNICODE_EXTRA = (
    "\x7f\x80\xa0\xe9\xc9\xdf\xff\u0100\u017f\u0301\u03bb\u0416\u07ff\u0800\u2028"
    "\u20ac\u212a\u4e2d\ud7ff\ue000\uffef\uffff\U00010000\U0001f600\U0010ffff"
)
BYTE_EXTRA = "".join(chr(b) for b in (0x80, 0x81, 0xA0, 0xBF, 0xC0, 0xC3, 0xE2, 0xF0, 0xFE, 0xFF))

PERL_ASCII = {
    "d": string.digits,
    "w": string.ascii_letters + string.digits + "_",
    "s": " \t\n\r\x0b\x0c",
}


def pool(alphabet: str) -> str:
    if alphabet == "unicode":
        return ASCII_POOL + UNICODE_EXTRA
    if alphabet == "bytes":
        return ASCII_POOL + BYTE_EXTRA
    return ASCII_POOL


def _not_surrogate(c: int) -> int:
    return 0xD7FF if 0xD800 <= c <= 0xDFFF else c


# -- trees ----------------------------------------------------------------------------------


def trees(
    alphabet: str = "unicode",
    perl: bool = False,
    lazy: bool = True,
    max_leaves: int = 10,
    max_repeat: int = 3,
    groups: Tuple[str, ...] = ("cap", "noncap", "named", "i", "-i", "s"),
    literal_chars: Optional[str] = None,
):
    """A strategy of pattern trees (see the module docstring)."""
    chars = literal_chars if literal_chars is not None else pool(alphabet)
    char = st.sampled_from(chars)
    if alphabet == "bytes":
        styles = st.just("hex")
    else:
        styles = st.sampled_from(["raw", "raw", "hex"])

    def style_for(c: str, style: str) -> str:
        # bytes >= 0x80 in a byte-mode tree must be written \xHH
        return "hex" if (alphabet == "bytes" and ord(c) >= 0x80) else style

    lit = st.builds(lambda c, s: ("lit", c, style_for(c, s)), char, styles)

    @st.composite
    def a_range(draw):
        a, b = sorted([draw(char), draw(char)])
        if draw(st.booleans()):
            b = a  # single characters are common in real classes
        return ("range", a, b)

    items = a_range()
    if perl:
        items = st.one_of(items, st.builds(lambda x: ("perl", x), st.sampled_from("dDwWsS")))
    cls = st.builds(
        lambda neg, its: ("cls", neg, tuple(its)),
        st.booleans(),
        st.lists(items, min_size=1, max_size=4),
    )
    leaves = [lit, lit, cls, st.just(("dot",)), st.just(("cat", ()))]
    if perl:
        leaves.append(st.builds(lambda x: ("perl", x), st.sampled_from("dDwWsS")))
    leaf = st.one_of(*leaves)

    def extend(children):
        bounds = st.integers(0, max_repeat).flatmap(
            lambda lo: st.tuples(
                st.just(lo), st.one_of(st.none(), st.integers(lo, lo + max_repeat))
            )
        )
        rep = st.builds(
            lambda c, b, z: ("rep", c, b[0], b[1], z),
            children,
            bounds,
            st.booleans() if lazy else st.just(False),
        )
        grp = st.builds(
            lambda k, c: ("grp", _group_kind(k, c), c), st.sampled_from(groups), children
        )
        return st.one_of(
            st.builds(lambda cs: ("cat", tuple(cs)), st.lists(children, min_size=2, max_size=4)),
            st.builds(lambda cs: ("alt", tuple(cs)), st.lists(children, min_size=2, max_size=3)),
            rep,
            grp,
        )

    return st.recursive(leaf, extend, max_leaves=max_leaves)


def _group_kind(kind: str, child) -> str:
    if kind in ("i", "-i") and not is_ascii(child):
        return "noncap"
    return kind


def walk(tree) -> Iterable[tuple]:
    stack = [tree]
    while stack:
        t = stack.pop()
        yield t
        if t[0] in ("cat", "alt"):
            stack.extend(t[1])
        elif t[0] == "grp":
            stack.append(t[2])
        elif t[0] == "rep":
            stack.append(t[1])


def tree_chars(tree) -> Set[str]:
    """Characters the tree mentions, with the neighbours of class range endpoints."""
    out: Set[str] = set()
    for t in walk(tree):
        if t[0] == "lit":
            out.add(t[1])
        elif t[0] == "cls":
            for item in t[2]:
                if item[0] == "range":
                    for c in (ord(item[1]), ord(item[2])):
                        for d in (c - 1, c, c + 1):
                            if 0 <= d <= 0x10FFFF and not 0xD800 <= d <= 0xDFFF:
                                out.add(chr(d))
    return out


def is_ascii(tree) -> bool:
    return all(ord(c) < 0x80 for c in tree_chars(tree))


def uses(tree, kinds: Iterable[str]) -> bool:
    kinds = set(kinds)
    for t in walk(tree):
        if t[0] in kinds or (t[0] == "cls" and "perl" in kinds and any(i[0] == "perl" for i in t[2])):
            return True
        if t[0] == "grp" and t[1] in kinds:
            return True
    return False


# -- rendering ------------------------------------------------------------------------------


def _escape_char(c: str, meta: Set[str], style: str, byte_mode: bool = False) -> str:
    if c in meta:
        return "\\" + c
    if c == "\n":
        return "\\n"
    if c == "\t":
        return "\\t"
    o = ord(c)
    if style == "hex" or o < 0x20 or o == 0x7F or (byte_mode and o >= 0x80):
        if o < 0x100:
            return "\\x%02X" % o
        if o < 0x10000:
            return "\\u%04X" % o
        return "\\U%08X" % o
    return c


def _quantifier(lo: int, hi: Optional[int]) -> str:
    """The shortest quantifier text for {lo,hi}: `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`."""
    if (lo, hi) == (0, None):
        return "*"
    if (lo, hi) == (1, None):
        return "+"
    if (lo, hi) == (0, 1):
        return "?"
    if hi is None:
        return "{%d,}" % lo
    if lo == hi:
        return "{%d}" % lo
    return "{%d,%d}" % (lo, hi)


def _group_opener(g: str, counter: List[int]) -> str:
    """The text opening a ("grp", g, child) node; named groups are numbered by `counter`."""
    if g == "cap":
        return "("
    if g == "noncap":
        return "(?:"
    if g == "named":
        counter[0] += 1
        return "(?P<g%d>" % counter[0]
    return "(?%s:" % g


def _class_text(t, esc: Callable[[str, Set[str], str], str]) -> str:
    """The text of a ("cls", negated, items) node."""
    parts = []
    for item in t[2]:
        if item[0] == "perl":
            parts.append("\\" + item[1])
        elif item[1] == item[2]:
            parts.append(esc(item[1], CLASS_META, "raw"))
        else:
            parts.append(esc(item[1], CLASS_META, "raw") + "-" + esc(item[2], CLASS_META, "raw"))
    return "[" + ("^" if t[1] else "") + "".join(parts) + "]"


def render(tree, byte_mode: bool = False, extended: bool = False, counter=None) -> str:
    """Pattern text for the tree (the same text for Rust and for Python `re`).

    With byte_mode, every character >= U+0080 is written \\xHH: in a Rust `(?-u)` pattern
    and in a Python bytes pattern that is the byte HH (the tree must then be "bytes" or
    "ascii"). The caller adds Rust's `(?-u)` itself. With extended, `&` and `~` (operators
    of maskref's extended syntax) are escaped outside classes too. `counter` (a one-element
    list) numbers named groups, for patterns pasted together from several trees.
    """
    if counter is None:
        counter = [0]
    meta = META | {"&", "~"} if extended else META

    def esc(c: str, meta: Set[str], style: str) -> str:
        return _escape_char(c, meta, style, byte_mode)

    def atom(t) -> str:
        text = go(t)
        if t[0] in ("lit", "cls", "dot", "perl", "grp"):
            return text
        return "(?:" + text + ")"

    def go(t) -> str:
        kind = t[0]
        if kind == "lit":
            return esc(t[1], meta, t[2])
        if kind == "cls":
            return _class_text(t, esc)
        if kind == "dot":
            return "."
        if kind == "perl":
            return "\\" + t[1]
        if kind == "cat":
            return "".join("(?:" + go(c) + ")" if c[0] == "alt" else go(c) for c in t[1])
        if kind == "alt":
            return "|".join(go(c) for c in t[1])
        if kind == "grp":
            return _group_opener(t[1], counter) + go(t[2]) + ")"
        if kind == "rep":
            _, child, lo, hi, lazy = t
            return atom(child) + _quantifier(lo, hi) + ("?" if lazy else "")
        raise AssertionError(kind)

    return go(tree)


# -- strings near the language --------------------------------------------------------------


@st.composite
def near_strings(draw, tree, alphabet: str = "unicode", count: int = 8, dotall: bool = False):
    """Strings that mostly match the tree (a random walk through it), and small edits of them."""
    chars = sorted(tree_chars(tree) | set(pool(alphabet)))
    if alphabet == "unicode":
        extra = draw(st.lists(st.characters(blacklist_categories=("Cs",)), max_size=2))
        chars += extra
    limit = {"ascii": 0x80, "bytes": 0x100}.get(alphabet, 0x110000)
    chars = sorted(c for c in set(chars) if ord(c) < limit)
    char = st.sampled_from(chars)

    def sample(t, icase: bool, dotall: bool, out: List[str]) -> None:
        kind = t[0]
        if kind == "lit":
            out.append(_literal_char(draw, t[1], icase))
        elif kind == "cls":
            out.append(_class_char(draw, t, char, alphabet))
        elif kind == "dot":
            c = draw(char)
            if c == "\n" and not dotall:
                c = "x"
            out.append(c)
        elif kind == "perl":
            out.append(_perl_char(draw, t[1], char))
        elif kind == "cat":
            for c in t[1]:
                sample(c, icase, dotall, out)
        elif kind == "alt":
            sample(draw(st.sampled_from(t[1])), icase, dotall, out)
        elif kind == "grp":
            sample(t[2], *_group_flags(t[1], icase, dotall), out)
        elif kind == "rep":
            _, child, lo, hi, _lazy = t
            top = lo + 2 if hi is None else min(hi, lo + 2)
            for _ in range(draw(st.integers(lo, top))):
                sample(child, icase, dotall, out)

    results = []
    for _ in range(count):
        out: List[str] = []
        sample(tree, False, dotall, out)
        results.append(_small_edit(draw, "".join(out), char))
    results.append("".join(draw(st.lists(char, max_size=6))))
    return results


def _literal_char(draw, c: str, icase: bool) -> str:
    """A literal character, its case sometimes swapped under (?i)."""
    if icase and c.isascii() and c.isalpha() and draw(st.booleans()):
        return c.swapcase()
    return c


def _group_flags(g: str, icase: bool, dotall: bool) -> Tuple[bool, bool]:
    """(case-insensitive, dot-all) inside a ("grp", g, child) node."""
    return (True if g == "i" else False if g == "-i" else icase), (True if g == "s" else dotall)


def _class_char(draw, t, char, alphabet: str) -> str:
    """A character for a ("cls", negated, items) node; under negation anything (it may or
    may not match)."""
    if t[1]:
        return draw(char)
    item = draw(st.sampled_from(t[2]))
    if item[0] == "perl":
        return _perl_char(draw, item[1], char)
    lo, hi = ord(item[1]), ord(item[2])
    c = chr(_not_surrogate(draw(st.integers(lo, hi))))
    if alphabet == "bytes" and ord(c) > 0xFF:
        c = item[1]
    return c


def _small_edit(draw, s: str, char) -> str:
    """`s`, or (often) `s` with one character deleted, inserted or replaced, or doubled."""
    edit = draw(st.sampled_from(["none", "none", "delete", "insert", "replace", "double"]))
    if edit == "none" or not s:
        return s
    i = draw(st.integers(0, len(s) - 1))
    if edit == "delete":
        return s[:i] + s[i + 1 :]
    if edit == "insert":
        return s[:i] + draw(char) + s[i:]
    if edit == "replace":
        return s[:i] + draw(char) + s[i + 1 :]
    return s + s


def _perl_char(draw, x: str, char) -> str:
    if x.islower():
        return draw(st.sampled_from(PERL_ASCII[x]))
    return draw(char)


def assert_read_error(pattern: str, message: str, offset: int, extended: bool = False) -> None:
    """Reading `pattern` raises a RegexError whose message holds `message`, pointing at
    `offset` (and drawing the caret line)."""
    try:
        read_pattern(pattern, extended=extended)
    except RegexError as err:
        assert message in err.message, err.message
        assert err.offset == offset, (err.offset, err.message)
        assert err.pattern == pattern
        assert "^" in str(err)  # the caret line
    else:
        raise AssertionError("%r was read without an error" % pattern)


def quick(fn: Callable[[], T], seconds: float = 10.0) -> T:
    """fn(), checked to take less than `seconds` (pathological inputs must stay linear)."""
    start = time.perf_counter()
    result = fn()
    assert time.perf_counter() - start < seconds
    return result


def deep_groups(opener: str, n: int = 10_000) -> str:
    """`a` inside n nested groups opened by `opener` (named groups get unique names)."""
    if opener == "(?P<g>":
        return "".join("(?P<g%d>" % i for i in range(n)) + "a" + ")" * n
    return opener * n + "a" + ")" * n


def deep_expression(es, n: int = 10_000) -> int:
    """a?(b?(a?(b?(...z)|c)|c)|c) n levels deep: for the walks that must not recurse."""
    e = es.literal(b"z")
    for i in range(n):
        x = es.optional(es.literal(b"ab"[i % 2 : i % 2 + 1]))
        e = es.union(es.concat(x, e), es.literal(b"c"))
    return e


# -- expression trees: the definition of the languages, for exprs and what builds on it ----

EXPR_ALPHABET = b"abc"

_expr_leaves = st.one_of(
    st.just(("nothing",)),
    st.just(("eps",)),
    st.sets(st.sampled_from(list(EXPR_ALPHABET)), min_size=0, max_size=3).map(
        lambda s: ("bytes", frozenset(s))
    ),
)


def _expr_operators(children):
    return st.one_of(
        st.tuples(st.just("concat"), children, children),
        st.tuples(st.just("union"), children, children),
        st.tuples(st.just("inter"), children, children),
        st.tuples(st.just("not"), children),
        st.tuples(st.just("repeat"), children, st.integers(0, 3), st.one_of(st.none(), st.integers(0, 3))).map(
            lambda t: t if t[3] is None or t[3] >= t[2] else (t[0], t[1], t[3], t[2])
        ),
    )


#: raw expression trees: ("nothing",), ("eps",), ("bytes", frozenset), ("concat", l, r),
#: ("union", l, r), ("inter", l, r), ("not", t), ("repeat", t, lo, hi)
expr_trees = st.recursive(_expr_leaves, _expr_operators, max_leaves=8)
#: words over EXPR_ALPHABET, up to 6 bytes
expr_words = st.lists(st.sampled_from(list(EXPR_ALPHABET)), max_size=6).map(bytes)


@lru_cache(maxsize=None)
def member(t, w: bytes) -> bool:
    """w ∈ L(t), straight from the definitions."""
    op = t[0]
    if op == "nothing":
        return False
    if op == "eps":
        return w == b""
    if op == "bytes":
        return len(w) == 1 and w[0] in t[1]
    if op == "concat":
        return any(member(t[1], w[:i]) and member(t[2], w[i:]) for i in range(len(w) + 1))
    if op == "union":
        return member(t[1], w) or member(t[2], w)
    if op == "inter":
        return member(t[1], w) and member(t[2], w)
    if op == "not":
        return not member(t[1], w)
    _, body, lo, hi = t
    return _repeat_member(body, lo, hi, w)


@lru_cache(maxsize=None)
def _repeat_member(body, lo, hi, w: bytes) -> bool:
    if w == b"":
        return lo == 0 or member(body, b"")
    if hi == 0:
        return False
    rest_hi = None if hi is None else hi - 1
    return any(
        member(body, w[:i]) and _repeat_member(body, max(lo - 1, 0), rest_hi, w[i:])
        for i in range(1, len(w) + 1)
    )


def build(es, t) -> int:
    """The expression of the tree t in the ExprSet es (built by the smart constructors)."""
    op = t[0]
    if op == "nothing":
        return es.NOTHING
    if op == "eps":
        return es.EPSILON
    if op == "bytes":
        return es.byte_set(sum(1 << b for b in t[1]))
    if op == "concat":
        return es.concat(build(es, t[1]), build(es, t[2]))
    if op == "union":
        return es.union(build(es, t[1]), build(es, t[2]))
    if op == "inter":
        return es.intersection(build(es, t[1]), build(es, t[2]))
    if op == "not":
        return es.complement(build(es, t[1]))
    return es.repeat(build(es, t[1]), t[2], t[3])


def matches(es, e: int, w: bytes) -> bool:
    """Does w match e? By derivatives, byte by byte (Brzozowski): ν of the last one."""
    for b in w:
        e = derivative(es, e, b)
    return es.nullable(e)
