"""Unicode layer of the regex engine: code point classes and their UTF-8 byte automata.

The dialect is the Rust `regex` crate's (regex-syntax 0.8, as used by llguidance), so
every answer here is the one regex-syntax gives, for Unicode 16.0.0.  The tables come
from `unicode_data.py`, generated once by tools/gen_unicode.py from the Unicode
Character Database; `unicodedata` is never used, so CPython and PyPy (whose
`unicodedata` versions differ) agree.

A class is a `Ranges`: a tuple of inclusive `(lo, hi)` code point pairs, sorted,
non-overlapping and non-adjacent.  Rust matches Unicode *scalar values* only, so a
canonical `Ranges` never contains a surrogate (U+D800..U+DFFF): `normalize` cuts them
out, and the gap they leave between U+D7FF and U+E000 always stays a gap.

>>> r = property_ranges("Greek")
>>> contains(r, ord("Ω")), contains(r, ord("a"))
(True, False)
>>> utf8_sequences(0x80, 0x7FF)
[((194, 223), (128, 191))]
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from . import unicode_data as _ud

Ranges = Tuple[Tuple[int, int], ...]
"""Inclusive (lo, hi) pairs: sorted, non-overlapping, non-adjacent, no surrogates."""

ByteSequence = Tuple[Tuple[int, int], ...]
"""One UTF-8 byte-range sequence: a (byte_lo, byte_hi) pair for each byte of the encoding."""

UNICODE_VERSION = _ud.UNICODE_VERSION
MAX_CODE_POINT = 0x10FFFF
SURROGATE_LO = 0xD800
SURROGATE_HI = 0xDFFF

__all__ = [
    "ANY", "ASCII", "MAX_CODE_POINT", "PERL_DIGIT", "PERL_SPACE", "PERL_WORD", "Ranges",
    "ByteSequence", "UNICODE_VERSION", "case_fold", "contains", "difference", "intersection",
    "negate", "normalize", "property_names", "property_ranges", "symbolic_name_normalize",
    "symmetric_difference", "union", "utf8_sequences", "utf8_sequences_of",
]


def _pairs(flat: Sequence[int]) -> Ranges:
    """Flat (lo0, hi0, lo1, hi1, ...) table -> Ranges (the tables are canonical already)."""
    it = iter(flat)
    return tuple(zip(it, it))


# ----------------------------------------------------------------------------- set algebra

def normalize(pairs: Iterable[Tuple[int, int]]) -> Ranges:
    """Canonical form of any iterable of inclusive (lo, hi) pairs.

    Sorts, merges overlapping and adjacent pairs, and removes the surrogates.  A pair
    given as (hi, lo) is read as (lo, hi), as Rust's ClassUnicodeRange::new does.
    Code points outside 0..0x10FFFF raise ValueError.

    >>> normalize([(5, 9), (0, 3), (4, 4), (20, 12)])
    ((0, 9), (12, 20))
    >>> normalize([(0xD700, 0xE100)])
    ((55040, 55295), (57344, 57600))
    >>> normalize([(0xD800, 0xDFFF)])
    ()
    """
    items: List[Tuple[int, int]] = []
    for lo, hi in pairs:
        if lo > hi:
            lo, hi = hi, lo
        if lo < 0 or hi > MAX_CODE_POINT:
            raise ValueError("code point range out of 0..0x10FFFF: (%r, %r)" % (lo, hi))
        items.append((lo, hi))
    items.sort()
    merged: List[List[int]] = []
    for lo, hi in items:
        if merged and lo <= merged[-1][1] + 1:
            if hi > merged[-1][1]:
                merged[-1][1] = hi
        else:
            merged.append([lo, hi])
    out: List[Tuple[int, int]] = []
    for lo, hi in merged:
        if hi < SURROGATE_LO or lo > SURROGATE_HI:
            out.append((lo, hi))
            continue
        if lo < SURROGATE_LO:
            out.append((lo, SURROGATE_LO - 1))
        if hi > SURROGATE_HI:
            out.append((SURROGATE_HI + 1, hi))
    return tuple(out)


ANY: Ranges = ((0, SURROGATE_LO - 1), (SURROGATE_HI + 1, MAX_CODE_POINT))
"""Every Unicode scalar value (\\p{Any}, and what `(?s).` matches)."""

ASCII: Ranges = ((0, 0x7F),)
"""\\p{ASCII}."""


def negate(ranges: Iterable[Tuple[int, int]]) -> Ranges:
    """Complement within the Unicode scalar values (0..0x10FFFF minus the surrogates).

    >>> negate(((0, 0x60), (0x7B, 0x10FFFF)))
    ((97, 122),)
    >>> negate(()) == ANY, negate(ANY)
    (True, ())
    """
    out: List[Tuple[int, int]] = []
    nxt = 0
    for lo, hi in normalize(ranges):
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= MAX_CODE_POINT:
        out.append((nxt, MAX_CODE_POINT))
    return normalize(out)


def union(*classes: Iterable[Tuple[int, int]]) -> Ranges:
    """Union of any number of classes.

    >>> union(((1, 3),), ((4, 6),), ((10, 10),))
    ((1, 6), (10, 10))
    """
    return normalize(p for c in classes for p in c)


def intersection(a: Iterable[Tuple[int, int]], b: Iterable[Tuple[int, int]]) -> Ranges:
    """Code points in both classes (Rust `[x&&y]`).

    >>> intersection(((0, 10), (20, 30)), ((5, 25),))
    ((5, 10), (20, 25))
    """
    ra, rb = normalize(a), normalize(b)
    out: List[Tuple[int, int]] = []
    i = j = 0
    while i < len(ra) and j < len(rb):
        lo = max(ra[i][0], rb[j][0])
        hi = min(ra[i][1], rb[j][1])
        if lo <= hi:
            out.append((lo, hi))
        if ra[i][1] < rb[j][1]:
            i += 1
        else:
            j += 1
    return tuple(out)


def difference(a: Iterable[Tuple[int, int]], b: Iterable[Tuple[int, int]]) -> Ranges:
    """Code points in `a` but not in `b` (Rust `[x--y]`).

    >>> difference(((0, 10),), ((3, 4), (8, 20)))
    ((0, 2), (5, 7))
    """
    return intersection(a, negate(b))


def symmetric_difference(a: Iterable[Tuple[int, int]], b: Iterable[Tuple[int, int]]) -> Ranges:
    """Code points in exactly one of the classes (Rust `[x~~y]`).

    >>> symmetric_difference(((0, 10),), ((5, 15),))
    ((0, 4), (11, 15))
    """
    ra, rb = normalize(a), normalize(b)
    return union(difference(ra, rb), difference(rb, ra))


def contains(ranges: Ranges, cp: int) -> bool:
    """Is code point `cp` in the canonical class `ranges`?  (Binary search.)

    >>> contains(((48, 57), (97, 122)), ord("c")), contains(((48, 57),), ord("c"))
    (True, False)
    """
    i = bisect_right(ranges, (cp, MAX_CODE_POINT + 1)) - 1
    return i >= 0 and ranges[i][0] <= cp <= ranges[i][1]


# ----------------------------------------------------------------------------- properties

PERL_DIGIT: Ranges = _pairs(_ud.GENERAL_CATEGORY["Decimal_Number"])
"""Unicode \\d: General_Category = Decimal_Number (Nd)."""

PERL_SPACE: Ranges = _pairs(_ud.BINARY["White_Space"])
"""Unicode \\s: the White_Space property."""

PERL_WORD: Ranges = _pairs(_ud.PERL_WORD)
"""Unicode \\w: Alphabetic | Mark | Decimal_Number | Connector_Punctuation | Join_Control."""

_CACHE: Dict[Tuple[str, str], Ranges] = {}


def symbolic_name_normalize(name: str) -> str:
    """UAX44-LM3 loose matching of property names and values, exactly as regex-syntax does it.

    Drops a leading "is" (any case), then every space, underscore and hyphen and every
    non-ASCII character, and lowercases ASCII letters.  Quirk kept from Rust: "isc" (the
    ISO_Comment alias) stays "isc" instead of becoming "c".

    >>> symbolic_name_normalize("Is_Upper-case Letter"), symbolic_name_normalize("isc")
    ('uppercaseletter', 'isc')
    """
    starts_with_is = len(name) >= 2 and name[0] in "iI" and name[1] in "sS"
    if starts_with_is:
        name = name[2:]
    out = []
    for ch in name:
        if ch == " " or ch == "_" or ch == "-":
            continue
        if "A" <= ch <= "Z":
            out.append(chr(ord(ch) + 32))
        elif ch <= "\x7f":
            out.append(ch)
    s = "".join(out)
    if starts_with_is and s == "c":
        s = "isc"
    return s


def _table(kind: str, canon: str) -> Ranges:
    key = (kind, canon)
    got = _CACHE.get(key)
    if got is None:
        if kind == "gc":
            got = _gencat(canon)
        elif kind == "sc":
            got = _pairs(_ud.SCRIPT[canon])
        else:
            got = _pairs(_ud.BINARY[canon])
        _CACHE[key] = got
    return got


def _gencat(canon: str) -> Ranges:
    if canon == "Any":
        return ANY
    if canon == "ASCII":
        return ASCII
    if canon == "Assigned":
        return negate(_table("gc", "Unassigned"))
    return _pairs(_ud.GENERAL_CATEGORY[canon])


def _canonical_gencat(norm: str) -> Optional[str]:
    if norm == "any":
        return "Any"
    if norm == "assigned":
        return "Assigned"
    if norm == "ascii":
        return "ASCII"
    return _ud.GENERAL_CATEGORY_VALUES.get(norm)


def property_ranges(name: str, value: Optional[str] = None) -> Ranges:
    """The class named by a Rust-regex `\\p{name}` or `\\p{name=value}` (`name:value`).

    Resolution is regex-syntax's: names and values match loosely (see
    `symbolic_name_normalize`).  Without a value, `name` is tried as a binary property
    (Alphabetic, White_Space, Uppercase, ... every one regex-syntax 0.8 has), then as a
    General_Category value (Lu, Uppercase_Letter, L, Letter, LC, ..., and Any, ASCII,
    Assigned), then as a Script value (Greek, Grek, ...).  "cf", "sc" and "lc" are the
    general categories, not the properties they also abbreviate.  With a value, `name`
    must be General_Category (gc) or Script (sc); other properties (Script_Extensions,
    Age, the break properties) are not supported.  For convenience, a `name` holding
    ':' or '=' with no `value` is split there, as Rust's regex-syntax does.  Negation
    (`\\P{..}`, `!=`) is the caller's business: see `negate`.

    Unknown or unsupported names raise KeyError(name); an unknown value raises
    KeyError(value).  As in Rust, gc=Surrogate and the scripts without code points
    (Unknown, Katakana_Or_Hiragana) are errors too.

    >>> property_ranges("Lu") == property_ranges("gc", "Uppercase_Letter")
    True
    >>> property_ranges("sc=Greek") == property_ranges("isGrek")
    True
    >>> property_ranges("Join_Control")
    ((8204, 8205),)
    >>> property_ranges("Klingon")
    Traceback (most recent call last):
    KeyError: 'Klingon'
    """
    if value is None:
        for i, ch in enumerate(name):
            if ch == ":" or ch == "=":
                return property_ranges(name[:i], name[i + 1:])
        norm = symbolic_name_normalize(name)
        if norm != "cf" and norm != "sc" and norm != "lc":
            canon = _ud.PROPERTY_NAMES.get(norm)
            if canon is not None:
                if canon in _ud.BINARY:
                    return _table("bin", canon)
                raise KeyError(name)
        canon = _canonical_gencat(norm)
        if canon is not None:
            if canon == "Surrogate":
                raise KeyError(name)
            return _table("gc", canon)
        canon = _ud.SCRIPT_VALUES.get(norm)
        if canon is not None and canon in _ud.SCRIPT:
            return _table("sc", canon)
        raise KeyError(name)
    prop = _ud.PROPERTY_NAMES.get(symbolic_name_normalize(name))
    norm_value = symbolic_name_normalize(value)
    if prop == "General_Category":
        canon = _canonical_gencat(norm_value)
        if canon is None or canon == "Surrogate":
            raise KeyError(value)
        return _table("gc", canon)
    if prop == "Script":
        canon = _ud.SCRIPT_VALUES.get(norm_value)
        if canon is None or canon not in _ud.SCRIPT:
            raise KeyError(value)
        return _table("sc", canon)
    raise KeyError(name)


def property_names() -> Dict[str, Tuple[str, ...]]:
    """The canonical names `property_ranges` accepts, by kind (aliases not listed).

    >>> names = property_names()
    >>> "Greek" in names["script"], "Letter" in names["general_category"], "Alphabetic" in names["binary"]
    (True, True, True)
    """
    return {
        "binary": tuple(sorted(_ud.BINARY)),
        "general_category": tuple(sorted(set(_ud.GENERAL_CATEGORY) | {"Any", "ASCII", "Assigned"})),
        "script": tuple(sorted(_ud.SCRIPT)),
    }


# ----------------------------------------------------------------------------- case folding

_FOLD_KEYS: List[int] = []
_FOLD_CLASS: List[Tuple[int, ...]] = []


def _fold_index() -> None:
    if _FOLD_KEYS:
        return
    entries = sorted((c, cls) for cls in _ud.CASE_FOLDING_CLASSES for c in cls)
    _FOLD_CLASS.extend(cls for _, cls in entries)
    _FOLD_KEYS.extend(c for c, _ in entries)


def case_fold(ranges: Iterable[Tuple[int, int]]) -> Ranges:
    """The class closed under simple case folding, as Rust does for `(?i)`.

    Every code point is joined by all code points with the same simple case folding
    (CaseFolding.txt statuses C and S).  Cost: a binary search per range plus the
    foldable code points inside it.

    >>> case_fold([(ord("a"), ord("c"))])
    ((65, 67), (97, 99))
    >>> case_fold([(ord("k"), ord("k"))])
    ((75, 75), (107, 107), (8490, 8490))
    >>> contains(case_fold([(ord("s"), ord("s"))]), 0x17F)
    True
    """
    _fold_index()
    base = normalize(ranges)
    extra: List[Tuple[int, int]] = []
    keys = _FOLD_KEYS
    for lo, hi in base:
        i = bisect_left(keys, lo)
        j = bisect_right(keys, hi, i)
        for k in range(i, j):
            for c in _FOLD_CLASS[k]:
                extra.append((c, c))
    if not extra:
        return base
    return normalize(list(base) + extra)


# ----------------------------------------------------------------------------- UTF-8

_MAX_BY_LEN = (0x7F, 0x7FF, 0xFFFF)  # largest scalar value of each encoding length 1..3


def _encode(cp: int) -> Tuple[int, ...]:
    if cp <= 0x7F:
        return (cp,)
    if cp <= 0x7FF:
        return (0xC0 | (cp >> 6), 0x80 | (cp & 0x3F))
    if cp <= 0xFFFF:
        return (0xE0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3F), 0x80 | (cp & 0x3F))
    return (0xF0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3F), 0x80 | ((cp >> 6) & 0x3F),
            0x80 | (cp & 0x3F))


def utf8_sequences(lo: int, hi: int) -> List[ByteSequence]:
    """Byte-range sequences matching exactly the UTF-8 encodings of the scalars in [lo, hi].

    Each sequence is a tuple of (byte_lo, byte_hi) pairs, one per byte; the sequences
    are disjoint and come in increasing code point order, and their union matches the
    encodings of exactly the scalar values in [lo, hi] (surrogates are skipped).  This
    is the algorithm of Rust's regex-syntax `Utf8Sequences`: split at the surrogates and
    at the encoding-length boundaries, then until every continuation byte but a fixed
    prefix spans its whole range.  It runs on an explicit stack, without recursion.

    >>> utf8_sequences(ord("a"), ord("z"))
    [((97, 122),)]
    >>> [" ".join("%02X-%02X" % b for b in s) for s in utf8_sequences(0x800, 0xFFFF)]
    ['E0-E0 A0-BF 80-BF', 'E1-EC 80-BF 80-BF', 'ED-ED 80-9F 80-BF', 'EE-EF 80-BF 80-BF']
    """
    out: List[ByteSequence] = []
    if lo > hi:
        return out
    if lo < 0 or hi > MAX_CODE_POINT:
        raise ValueError("code point range out of 0..0x10FFFF: (%r, %r)" % (lo, hi))
    stack = [(lo, hi)]
    while stack:
        start, end = stack.pop()
        while True:
            if start < 0xE000 and end > 0xD7FF:  # cut out the surrogates
                stack.append((0xE000, end))
                end = 0xD7FF
                continue
            if start > end:
                break
            cut = _utf8_cut(start, end)
            if cut < end:  # [start, cut] now, [cut + 1, end] later
                stack.append((cut + 1, end))
                end = cut
                continue
            a, b = _encode(start), _encode(end)
            out.append(tuple(zip(a, b)))
            break
    return out


def _utf8_cut(start: int, end: int) -> int:
    """Where a surrogate-free [start, end] must be cut for `utf8_sequences`: the last code
    point of the first part, or `end` when the encodings already form one sequence of byte
    ranges."""
    for mx in _MAX_BY_LEN:  # split at encoding-length boundaries
        if start <= mx < end:
            return mx
    if end <= 0x7F:
        return end
    for i in (1, 2, 3):  # split until the trailing bytes span full ranges
        m = (1 << (6 * i)) - 1
        if (start & ~m) != (end & ~m):
            if start & m != 0:
                return start | m
            if end & m != m:
                return (end & ~m) - 1
    return end


def utf8_sequences_of(ranges: Iterable[Tuple[int, int]]) -> List[ByteSequence]:
    """`utf8_sequences` of every range of a class, concatenated (in order).

    >>> utf8_sequences_of(((0x41, 0x41), (0xE9, 0xE9)))
    [((65, 65),), ((195, 195), (169, 169))]
    """
    out: List[ByteSequence] = []
    for lo, hi in normalize(ranges):
        out.extend(utf8_sequences(lo, hi))
    return out


#: Every multi-byte UTF-8 character, as byte-range sequences (no surrogates, no overlong
#: forms). The trie walk reads strings by these characters where every one of them loops
#: on the lexer state (Lexer.loop, tokens/subtrees.py).
MULTIBYTE_SEQUENCES = utf8_sequences(0x80, MAX_CODE_POINT)
