"""Strategies for what the first generators missed (issue 20), and targets that steer a
fuzzing path into them.

Mutation testing of refimpl (tools/mutation.py) and 22 hand-injected bugs showed where
the fuzzer did not look; each strategy here aims at one of those places:

- **multi-EOS, special-token-heavy vocabularies** (`multi_eos_vocabularies`): two or
  three EOS ids placed anywhere among the ids (as Llama 3's `<|eot_id|>` and
  `<|end_of_text|>`), several special tokens, some whose text is also an ordinary token's;
- **escape-heavy JSON** (`escape_vocabularies`, `escape_json_schemas`, `ESCAPE_REGEXES`):
  tokens that are pieces of `\\uXXXX`, `\\\\` and `\\"`, so an escape is typed piece by
  piece across tokens, and schemas whose strings, keys, enums and lengths meet escapes;
- **slice-boundary tokens** (part of `escape_vocabularies`): string-safe runs of 9 to 11
  and 29 to 31 bytes (the slicer's `{1,10}` and `{1,30}` slices), and the same runs with
  a backslash or a quote at the boundary, so a token falls just inside or just outside a
  slice, or in the final slice because of one byte;
- **ambiguous lexeme ends** (`ambiguous_lark_grammars`): terminals that end on the same
  bytes (`"ab"`, `/a+b/`, `/[ab]*b/` ...) side by side and in sequence;
- **Unicode-heavy classes** (`unicode_regexes`, `unicode_vocabularies`): classes and
  case folding that only differ on multi-byte characters (`ſ`, the Kelvin sign, `ß`,
  `Σσς`, `İ`), ranges across the UTF-8 length boundaries, tokens that
  split them; and the regex syntax's corners (`syntax_regexes`: POSIX classes, class set
  operations, the flags R, x and U, byte mode).

A *target* (`targets`) is a text a path tries to spell: at each step the fuzzer prefers a
token that continues the target, drawn among all such tokens (so one escape is split in
every way the vocabulary allows), and takes a random allowed token when none does
(fuzz.py, `_draw_token`). Random paths alone almost never type `\\u00e9` in four tokens.
"""
from __future__ import annotations

from typing import List, Optional, Sequence

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from refimpl import Vocabulary

from .vectors import GrammarSpec

# ----------------------------------------------------------------------------- vocabularies

#: text pieces of a special-token-heavy vocabulary: pieces of special texts, and text that
#: equals a special token's (`<s>`, `a`)
SPECIAL_TEXT_PIECES = [b"a", b"b", b"<", b">", b"<s", b"s>", b"</", b"<s>", b"|", b"<|", b"|>", b"eot", b"x", b" ",
                       b"0", b"1", b"ab", "é".encode()]
SPECIAL_TEXTS = [b"<s>", b"</s>", b"<|eot|>", b"<|end|>", b"<pad>", b"a", b"<think>", b"</think>", b""]


# The strategies a composite draws from are made once, not at each draw: hypothesis checks
# every new strategy object before it draws from it (most of these draws' time), and an
# equal one draws the same values.
_SPECIAL_TEXT_LISTS = st.lists(st.lists(st.sampled_from(SPECIAL_TEXT_PIECES), min_size=1, max_size=2).map(b"".join),
                               min_size=1, max_size=16)


@st.composite
def multi_eos_vocabularies(draw: st.DrawFn) -> Vocabulary:
    """Text tokens, then special tokens (some with the text of an ordinary token, one may
    be empty) mixed in among them; two or three EOS ids among the specials, in any order
    (the first is the primary one)."""
    text = draw(_SPECIAL_TEXT_LISTS)
    specials = draw(st.lists(st.sampled_from(SPECIAL_TEXTS + text), min_size=2, max_size=5))
    tokens: List[Optional[bytes]] = list(text)
    positions: List[int] = []
    for s in specials:  # insert each special at a drawn position
        i = draw(st.integers(0, len(tokens)))
        tokens.insert(i, None)
        positions = [p + (p >= i) for p in positions] + [i]
        tokens[i] = s
    eos = draw(st.lists(st.sampled_from(positions), min_size=min(2, len(set(positions))), max_size=3, unique=True))
    return Vocabulary([t or b"" for t in tokens], eos_token_ids=eos, special_token_ids=positions, name="multi-eos")


ESCAPE_PIECES = [b"\\", b"\\\\", b"\\u", b"u", b"\\u00", b"00", b"0", b"e9", b"E9", b"1f", b"1F", b"\\n", b"n", b"\\/",
                 b"/", b'"', b'\\"', b'"\\', b"a", b"b", b"x", b"{", b"}", b":", b",", b" ", b'"a', b'":', b'": "',
                 b"\\ud83d", b"\\ude00", b"d83d", b"de00", "é".encode(), b"\xc3", b"\t", b"\x01"]
SAFE = b"abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: the slicer's boundaries (conformance/../refimpl/tokens/slicer.py: JSON_SLICES {1,10}, {1,30})
SLICE_LENGTHS = (9, 10, 11, 29, 30, 31)


_WHERE = {n: st.sampled_from([None, None, 0, n - 1, 9, 10, 29, 30]) for n in SLICE_LENGTHS}
_BREAKS = st.sampled_from(b'\\"\n ')


@st.composite
def slice_boundary_tokens(draw: st.DrawFn) -> bytes:
    """A string-safe run of 9-11 or 29-31 bytes, maybe with a backslash, quote or control
    byte at its start, its end, or just inside the slice's bound."""
    n = draw(st.sampled_from(SLICE_LENGTHS))
    start = draw(st.integers(0, len(SAFE) - 1))
    run = bytearray((SAFE * 2)[start:start + n])
    where = draw(_WHERE[n])
    if where is not None and where < n:
        run[where] = draw(_BREAKS)
    return bytes(run)


_ESCAPE_PIECE_LISTS = st.lists(st.lists(st.sampled_from(ESCAPE_PIECES), min_size=1, max_size=3).map(b"".join),
                               min_size=2, max_size=24)
_SLICE_RUNS = st.lists(slice_boundary_tokens(), max_size=10)


@st.composite
def escape_vocabularies(draw: st.DrawFn) -> Vocabulary:
    """Pieces of JSON escapes (one to three joined), slice-boundary runs, optionally
    every printable ASCII byte (so a path can always go on), then EOS."""
    pieces = draw(_ESCAPE_PIECE_LISTS)
    runs = draw(_SLICE_RUNS)
    ascii_ = [bytes([b]) for b in range(0x20, 0x7F)] if draw(st.booleans()) else []
    tokens = ascii_ + pieces + runs + [b"<eos>"]
    return Vocabulary.from_bytes(tokens, eos_token_id=len(tokens) - 1, name="escapes")


UNICODE_CHARS = ["ſ", "s", "S", "K", "k", "K", "ß", "ẞ", "Σ", "σ", "ς", "İ", "ı", "i", "é", "É", "٣", "\u00a0", "\u2003",
                 "😀", "中", "\u07ff", "\u0800", "\uffff", "\U00010000", "\u0080", "\u007f", "Ω", "Ω"]


_CHARACTERS = st.lists(st.sampled_from(UNICODE_CHARS), min_size=1, max_size=2)
_CUTS = st.sampled_from(["whole", "whole", "head", "tail"])


@st.composite
def unicode_vocabularies(draw: st.DrawFn) -> Vocabulary:
    """Multi-byte characters (case-fold partners, UTF-8 length boundaries), alone, in pairs,
    and split: a token may hold a character's first bytes, its last ones, or both halves of
    two characters; then EOS."""
    out = []
    for _ in range(draw(st.integers(2, 24))):
        text = "".join(draw(_CHARACTERS)).encode("utf-8")
        cut = draw(_CUTS)
        if cut != "whole" and len(text) > 1:
            k = draw(st.integers(1, len(text) - 1))
            text = text[:k] if cut == "head" else text[k:]
        out.append(text)
    tokens = out + [b"<eos>"]
    return Vocabulary.from_bytes(tokens, eos_token_id=len(tokens) - 1, name="unicode")


# ----------------------------------------------------------------------------- grammars

#: regexes over JSON strings (escapes, bounded lengths at the slice boundaries)
ESCAPE_REGEXES = [r'"([^"\\]|\\.)*"', r'"([^"\\\x00-\x1F]|\\(["\\/bfnrt]|u[0-9a-fA-F]{4}))*"',
                  r'"[^"\\\x00-\x1F]{0,10}"', r'"[^"\\]{2,11}"', r'"[^"\\\x00-\x1F]{9,31}"', r'"(\\\\|\\"|[a-z])*"',
                  r'"[^"]{0,30}"x?', r'[ \t\n]{1,11}"\\u[0-9a-f]{4}"']

ESCAPE_STRINGS = ['a"b', "\\", "é", "\u0001", "\\u00e9", "x y", "\U0001F600", "/", "\n", "a\\\"b"]
escape_strings = st.sampled_from(ESCAPE_STRINGS)


def _string_schemas() -> SearchStrategy[dict]:
    return st.one_of(
        st.tuples(st.integers(0, 2), st.sampled_from([0, 1, 2, 9, 10, 11, 30])).map(
            lambda t: {"type": "string", "minLength": min(t), "maxLength": t[1]}),
        st.sampled_from(["^[a-z\\\\\"]*$", "^(\\\\u[0-9]{4})+$", "^[é\"/]{1,3}$", "^.{0,2}$", "^[^\\\\]*$"]).map(
            lambda p: {"type": "string", "pattern": p}),
        st.lists(escape_strings, min_size=1, max_size=3, unique=True).map(lambda e: {"enum": e}),
        escape_strings.map(lambda c: {"const": c}),
        st.just({"type": "string"}),
    )


@st.composite
def escape_json_schemas(draw: st.DrawFn) -> dict:
    """Strings whose instances meet escapes — those JSON text requires (a quote, a
    backslash, a control character) or other engines may write (`\\/`, `\\uXXXX`):
    bounded lengths (an escape is one character), patterns over backslashes and quotes,
    enums and consts with quotes, backslashes and controls; an object whose keys need
    escapes, or an array of such strings. The near misses meet none, on purpose: a string
    bounded to be empty (maxLength 0), `x y` alone, inside an array or a closed object
    keyed `x y` (tests/conformance/test_blindspots.py checks both)."""
    inner = draw(_string_schemas())
    shape = draw(st.sampled_from(["string", "object", "array"]))
    if shape == "string":
        return inner
    if shape == "array":
        return {"type": "array", "items": inner, "maxItems": draw(st.integers(1, 3))}
    keys = draw(st.lists(escape_strings, min_size=1, max_size=2, unique=True))
    return {"type": "object", "properties": {k: inner for k in keys}, "required": keys[:1],
            "additionalProperties": draw(st.booleans())}


AMBIGUOUS_BODIES = ['"ab"', "/a+b/", "/[ab]*b/", "/(ab)+/", "/a*/", '"b"', "/ab?/", "/[a-c]+/", '"abb"', "/a[ab]*/",
                    '"a"', "/b+/"]
#: pairs of bodies with a word in common (the first two terminals are one of these)
OVERLAPPING_PAIRS = [('"ab"', "/a+b/"), ('"ab"', "/[ab]*b/"), ("/a+b/", "/(ab)+/"), ("/ab?/", "/a*/"),
                     ('"abb"', "/[ab]*b/"), ("/[a-c]+/", "/a[ab]*/"), ('"b"', "/b+/"), ('"a"', "/ab?/")]


@st.composite
def ambiguous_lark_grammars(draw: st.DrawFn) -> str:
    """Two to four terminals, the first two with a word in common (so they end on the
    same bytes), used as alternatives and in sequence (`start: (A | B) C*`), maybe one of
    them lazy, maybe with %ignore " "."""
    n = draw(st.integers(2, 4))
    names = ["A", "B", "C", "D"][:n]
    pair = list(draw(st.sampled_from(OVERLAPPING_PAIRS)))
    rest = [b for b in AMBIGUOUS_BODIES if b not in pair]
    bodies = pair + draw(st.lists(st.sampled_from(rest), min_size=n - 2, max_size=n - 2, unique=True))
    lazy = draw(st.sampled_from([None] + names))
    alts = " | ".join(names[:draw(st.integers(2, n))])
    tail = " ".join(draw(st.lists(st.sampled_from(names), max_size=2)))
    suffix = draw(st.sampled_from(["", "*", "?", "+"]))
    lines = ["start: (%s)%s %s" % (alts, suffix, tail)]
    for name, body in zip(names, bodies):
        if name == lazy:
            lines.append("%s[lazy]: %s" % (name.lower(), body))
            lines[0] = lines[0].replace(name, name.lower())
        else:
            lines.append("%s: %s" % (name, body))
    if draw(st.booleans()):
        lines.append('%ignore " "')
    return "\n".join(lines) + "\n"


UNICODE_ATOMS = ["(?i)ß", "(?i)k", "(?i)s", "(?i)σ", "(?i)i", "(?i)é", "\\p{Lu}", "\\p{Ll}", "[^\\p{L}]", "\\p{Greek}",
                 "[à-ÿ]", "[Ͱ-Ͽ]", "[\\u{7f}-\\u{81}]", "[\\u{7ff}-\\u{800}]", "[\\u{ffff}-\\u{10000}]",
                 "[^\\u{80}-\\u{10ffff}]", "\\w", "\\d", "\\s", "(?i)[a-zé]", "(?i)[σ-ω]", "[^a-zé]", "(?i)ǅ", "(?i)Ω",
                 "[ſK]", "."]


#: the regex syntax's corners (POSIX classes, set operations, flags (?R) (?x) (?U), escapes)
SYNTAX_ATOMS = ["[[:xdigit:]]", "[[:ascii:]]", "[[:^alpha:]]", "[[:punct:][:space:]]", "(?R:.)", "(?x: a { 2 } )",
                "(?x:[a-c] + )", "[a-z&&[^aeiou]]", "[\\w--\\d]", "[a-f~~c-h]", "\\x7F", "\\x{80}", "\\pL", "\\PL",
                "(?i:[[:upper:]])", "[\\[\\]]", "[[:cntrl:]]", "[[:word:]]", "[[:blank:]]", "(?U:a+)", "(?-s:.)",
                "[^[:^digit:]]"]


def _unicode_extend(inner: SearchStrategy[str]) -> SearchStrategy[str]:
    return st.one_of(
        st.tuples(inner, inner).map(lambda t: t[0] + t[1]),
        st.tuples(inner, inner).map(lambda t: "(%s|%s)" % t),
        st.tuples(inner, st.sampled_from(["*", "+", "?", "{2}"])).map(lambda t: "(%s)%s" % t),
    )


#: regexes whose classes differ only on multi-byte characters and under case folding
unicode_regexes = st.recursive(st.sampled_from(UNICODE_ATOMS), _unicode_extend, max_leaves=4)
#: regexes over the syntax's corners
syntax_regexes = st.recursive(st.sampled_from(SYNTAX_ATOMS + ["a", "b", "é", "\\t", "\\x7f", "(?s-u:.)", "(?-u:\\xff)"]),
                              _unicode_extend,
                              max_leaves=4)


def blindspot_specs(kinds: Sequence[str]) -> List[SearchStrategy[GrammarSpec]]:
    """The grammar strategies above, for the kinds asked for."""
    out: List[SearchStrategy[GrammarSpec]] = []
    if "regex" in kinds:
        out.append(st.one_of(st.sampled_from(ESCAPE_REGEXES), unicode_regexes, syntax_regexes)
                   .map(lambda r: GrammarSpec("regex", r)))
    if "lark" in kinds:
        out.append(ambiguous_lark_grammars().map(lambda g: GrammarSpec("lark", g)))
    if "json_schema" in kinds:
        out.append(st.tuples(escape_json_schemas(), st.sampled_from([{}, {}, {"whitespace_flexible": False}])).map(
            lambda t: GrammarSpec("json_schema", schema=t[0], options=t[1])))
    return out


# ----------------------------------------------------------------------------- targets

#: texts a path tries to spell: JSON escapes, quotes and keys, multi-byte characters,
#: ambiguous lexeme ends, special tokens' texts
TARGET_PIECES = ['"', '\\u00e9', '\\\\', '\\"', '\\n', '\\/', '\\ud83d\\ude00', 'é', 'a"', '{"', '": ', ', "', '"}',
                 "ſ", "K", "ß", "Σς", "İ", "٣", "\u00a0", "😀", "abab", "aab b", "<|eot|>", "<s>", "</think>",
                 "abcdefghij", "abcdefghijk", " ", "0"]
targets = st.one_of(st.just(b""), st.lists(st.sampled_from(TARGET_PIECES), min_size=1, max_size=6)
                    .map(lambda xs: "".join(xs).encode("utf-8")))


def continues(token: bytes, target: bytes) -> bool:
    """Does `token` spell the next bytes of `target` (a non-empty prefix of it)?

    >>> continues(b"\\\\u", b"\\\\u00e9"), continues(b"u", b"\\\\u00e9"), continues(b"", b"a")
    (True, False, False)
    """
    return bool(token) and target.startswith(token)
