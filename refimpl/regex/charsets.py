"""Sets of characters as the reader builds them: the algebra of a class in either mode.

A character class denotes a set, and what the set holds depends on the mode: in Unicode
mode (the default) it is a set of code points — a canonical `Ranges` of scalar values,
see unicode.py — and in byte mode `(?-u)` a set of bytes — a 256-bit int, bit b set for
byte b, the representation every byte set of the engine has (exprs.py).  Each mode is a
class of static methods with the same operations, so the reader of bracketed classes is
written once and picks the algebra by the flags:

    single(lo, hi)          the set lo..hi
    union(sets)             the union of a list of sets
    combine(op, lhs, rhs)   `lhs && rhs` (intersection), `lhs -- rhs` (difference),
                            `lhs ~~ rhs` (symmetric difference)
    negate(s), fold(s)      complement; closure under simple case folding (Rust's `(?i)`:
                            full Unicode folding for code points, ASCII only for bytes)
    ascii(ranges)           an ASCII table (the POSIX classes `[:alpha:]`...) as a set

The sets of the Perl classes `\\d \\s \\w` and of `.` are here too, in both modes.

>>> CodePointSets.fold(CodePointSets.single(ord("k"), ord("k")))    # K, k, KELVIN SIGN
((75, 75), (107, 107), (8490, 8490))
>>> ByteMasks.fold(ByteMasks.single(ord("k"), ord("k"))) == 1 << ord("K") | 1 << ord("k")
True
"""
from __future__ import annotations

from typing import Any, Dict, List

from . import unicode as uni
from .exprs import ALL_BYTES, byte_mask
from .flags import Flags
from .unicode import Ranges


def mask_of(ranges: Ranges) -> int:
    """The byte set (a 256-bit mask) of byte ranges."""
    mask = 0
    for lo, hi in ranges:
        mask |= byte_mask(lo, hi)
    return mask


class CodePointSets:
    """Class algebra in Unicode mode: a set is a canonical `Ranges` of scalar values."""

    empty: Ranges = ()

    @staticmethod
    def single(lo: int, hi: int) -> Ranges:
        """The set lo..hi."""
        return uni.normalize(((lo, hi),))

    @staticmethod
    def union(sets: List[Ranges]) -> Ranges:
        """The union of a non-empty list of sets."""
        return sets[0] if len(sets) == 1 else uni.union(*sets)

    @staticmethod
    def combine(op: str, lhs: Ranges, rhs: Ranges) -> Ranges:
        """`lhs && rhs`, `lhs -- rhs` or `lhs ~~ rhs`."""
        if op == "&&":
            return uni.intersection(lhs, rhs)
        if op == "--":
            return uni.difference(lhs, rhs)
        return uni.symmetric_difference(lhs, rhs)

    negate = staticmethod(uni.negate)
    fold = staticmethod(uni.case_fold)

    @staticmethod
    def ascii(ranges: Ranges) -> Ranges:
        """An ASCII table as a set of this mode."""
        return ranges


class ByteMasks:
    """Class algebra in byte mode `(?-u)`: a set is a 256-bit int mask."""

    empty = 0

    @staticmethod
    def single(lo: int, hi: int) -> int:
        """The set lo..hi."""
        return byte_mask(lo, hi)

    @staticmethod
    def union(sets: List[int]) -> int:
        """The union of a list of sets."""
        mask = 0
        for s in sets:
            mask |= s
        return mask

    @staticmethod
    def combine(op: str, lhs: int, rhs: int) -> int:
        """`lhs && rhs`, `lhs -- rhs` or `lhs ~~ rhs`."""
        if op == "&&":
            return lhs & rhs
        if op == "--":
            return lhs & ~rhs
        return lhs ^ rhs

    @staticmethod
    def negate(mask: int) -> int:
        """Complement within the 256 bytes."""
        return ALL_BYTES ^ mask

    @staticmethod
    def fold(mask: int) -> int:
        """ASCII-only case folding, as Rust does in byte mode."""
        upper = (mask >> 0x41) & 0x3FFFFFF
        lower = (mask >> 0x61) & 0x3FFFFFF
        return mask | (upper << 0x61) | (lower << 0x41)

    ascii = staticmethod(mask_of)


# POSIX classes `[[:name:]]` (Rust regex-syntax `ascii_class`), always ASCII-only.
ASCII_CLASSES: Dict[str, Ranges] = {
    "alnum": ((0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)),
    "alpha": ((0x41, 0x5A), (0x61, 0x7A)),
    "ascii": ((0x00, 0x7F),),
    "blank": ((0x09, 0x09), (0x20, 0x20)),
    "cntrl": ((0x00, 0x1F), (0x7F, 0x7F)),
    "digit": ((0x30, 0x39),),
    "graph": ((0x21, 0x7E),),
    "lower": ((0x61, 0x7A),),
    "print": ((0x20, 0x7E),),
    "punct": ((0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)),
    "space": ((0x09, 0x0D), (0x20, 0x20)),
    "upper": ((0x41, 0x5A),),
    "word": ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)),
    "xdigit": ((0x30, 0x39), (0x41, 0x46), (0x61, 0x66)),
}

_PERL_UNICODE = {"d": uni.PERL_DIGIT, "s": uni.PERL_SPACE, "w": uni.PERL_WORD}
_PERL_ASCII = {"d": ASCII_CLASSES["digit"], "s": ASCII_CLASSES["space"],
               "w": ASCII_CLASSES["word"]}
_NEGATED_CACHE: Dict[str, Ranges] = {}


def perl_class(letter: str, unicode_mode: bool) -> Any:
    """`\\d \\s \\w` (lowercase letter) or their negations (uppercase), as a set of the mode."""
    base = letter.lower()
    if not unicode_mode:
        mask = mask_of(_PERL_ASCII[base])
        return mask if letter == base else ALL_BYTES ^ mask
    if letter == base:
        return _PERL_UNICODE[base]
    got = _NEGATED_CACHE.get(base)
    if got is None:
        got = _NEGATED_CACHE[base] = uni.negate(_PERL_UNICODE[base])
    return got


def dot(flags: Flags) -> Any:
    """The set of `.`: any scalar value (byte in byte mode) but `\\n` (and `\\r` with R),
    every one with s."""
    excluded: Ranges = ()
    if not flags.dot_all:
        excluded = ((0x0A, 0x0A), (0x0D, 0x0D)) if flags.crlf else ((0x0A, 0x0A),)
    if flags.unicode:
        return uni.negate(excluded)
    return ALL_BYTES ^ mask_of(excluded)
