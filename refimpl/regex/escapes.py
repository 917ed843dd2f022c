"""Escape sequences, and the bottom layer of the pattern reader they belong to.

An escape is a backslash and what follows it, read the same way inside and outside a
bracketed class (Rust regex-syntax `parse_escape`):

    \\n \\t \\r \\f \\v \\a          control characters (no \\e, no \\0)
    \\. \\* \\- \\& ...               any escaped ASCII punctuation: that character
    \\xHH \\uHHHH \\UHHHHHHHH        a code point in hexadecimal (`\\xHH` is a raw byte in
    \\x{H..} \\u{H..}              byte mode `(?-u)`); braces take 1 to 8 digits
    \\d \\s \\w \\D \\S \\W          Perl classes (charsets.perl_class)
    \\pL \\p{Greek} \\P{gc=Lu}       Unicode properties, `\\P` or `!=` negated
    \\A \\z                        anchors (outside a class only)

Everything else is an error with a hint (`\\1` backreferences, `\\b` word boundaries, `\\Z`,
`\\Q`...).  `EscapeReader` holds what every layer of the reader needs — the pattern text,
errors at an offset of it, verbose mode's white space — and reads escapes into `Escape`
records; brackets.py (classes) and reader.py (the rest) build on it.

>>> esc = EscapeReader("a\\\\u{e9}").read_escape(1, in_class=False)
>>> esc.kind, hex(esc.cp), esc.end
('char', '0xe9', 7)
"""
from __future__ import annotations

from typing import Dict, NamedTuple, Optional, Tuple

from ..errors import RegexError
from . import unicode as uni
from .flags import Flags
from .unicode import Ranges

# Rust regex-syntax `is_meta_character`: these may always be escaped.
_META = frozenset("\\.+*?()|[]{}^$#&-~")
_HEX = frozenset("0123456789abcdefABCDEF")
# One-letter escapes for control characters (Rust: \a \f \t \n \r \v; no \e, no \0).
_SPECIAL_ESCAPES = {"a": 0x07, "f": 0x0C, "t": 0x09, "n": 0x0A, "r": 0x0D, "v": 0x0B}
# The White_Space property (Rust's char::is_whitespace), for verbose mode and {n,m}.
WHITE_SPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
_INVALID_ESCAPE_HINTS = {
    "Z": "; use \\z for the end of the text",
    "e": "; use \\x1B for the escape character",
    "h": "; use [ \\t] or \\s",
    "Q": "; escape each metacharacter with \\ instead",
}
_PROPERTY_CACHE: Dict[Tuple[str, Optional[str]], Ranges] = {}


def _is_escapable(c: str) -> bool:
    """Rust `is_escapeable_character`: metacharacters and ASCII other than [0-9A-Za-z<>]."""
    return c in _META or (c < "\x80" and not ("0" <= c <= "9" or "a" <= c.lower() <= "z")
                          and c not in "<>")


class Escape(NamedTuple):
    """An escape sequence as read: a character, a Perl or Unicode class, or an anchor."""
    kind: str                # "char", "perl", "property", "anchor"
    start: int               # offset of the backslash
    end: int                 # offset after the escape
    cp: int = 0              # "char": the code point
    byte_escape: bool = False  # "char": written \xHH (a raw byte in byte mode)
    letter: str = ""         # "perl": d s w D S W; "anchor": A z
    negated: bool = False    # "property": \P or !=
    name: str = ""           # "property": the name (or the whole text)
    value: Optional[str] = None  # "property": the value after = or :
    name_start: int = 0      # "property": offset of the name


class EscapeReader:
    """The pattern text, its errors and white space, and the escapes in it."""

    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.n = len(pattern)

    def error(self, message: str, offset: int) -> RegexError:
        """A RegexError at `offset` of this pattern (to be raised by the caller)."""
        return RegexError(message, self.p, offset)

    # -- white space in verbose mode -----------------------------------------------------

    def skip_space(self, pos: int) -> int:
        """Verbose mode: skip whitespace and `#` comments (to the end of the line)."""
        p, n = self.p, self.n
        while pos < n:
            c = p[pos]
            if c in WHITE_SPACE:
                pos += 1
            elif c == "#":
                end = p.find("\n", pos)
                pos = n if end < 0 else end + 1
            else:
                break
        return pos

    def peek_space(self, pos: int, verbose: bool) -> Optional[str]:
        """The character after p[pos], skipping whitespace in verbose mode; None at the end."""
        nxt = self.skip_space(pos + 1) if verbose else pos + 1
        return self.p[nxt] if nxt < self.n else None

    # -- escapes -------------------------------------------------------------------------

    def read_escape(self, pos: int, in_class: bool) -> Escape:
        """Read the escape at p[pos] == '\\' (Rust `parse_escape`)."""
        p, n = self.p, self.n
        start = pos
        pos += 1
        if pos >= n:
            raise self.error("incomplete escape sequence: the pattern ends with '\\'", start)
        c = p[pos]
        if c == "0":
            raise self.error("invalid escape \\0: octal escapes are not supported "
                             "(write \\x00 for NUL)", start)
        if "1" <= c <= "9":
            raise self.error("backreferences are not supported (\\%s)" % c, start)
        if c in "xuU":
            return self.read_hex(start, pos)
        if c in "pP":
            return self.read_property(start, pos)
        if c in "dswDSW":
            return Escape("perl", start, pos + 1, letter=c)
        pos += 1
        if _is_escapable(c):
            return Escape("char", start, pos, cp=ord(c))
        if c in _SPECIAL_ESCAPES:
            return Escape("char", start, pos, cp=_SPECIAL_ESCAPES[c])
        if c in "Az":
            if in_class:
                raise self.error("invalid escape sequence \\%s in a character class: anchors "
                                 "cannot appear there" % c, start)
            return Escape("anchor", start, pos, letter=c)
        if c in "bB<>":
            hint = " (inside a class \\b is not a backspace; use \\x08)" if c == "b" and \
                in_class else ""
            raise self.error("word boundaries (\\%s) are not supported%s" % (c, hint), start)
        if c in "kg":
            raise self.error("backreferences are not supported (\\%s)" % c, start)
        raise self.error("invalid escape \\%s (unrecognized escape sequence)%s" % (
            c, _INVALID_ESCAPE_HINTS.get(c, "")), start)

    def read_hex(self, start: int, pos: int) -> Escape:
        """`\\xHH`, `\\uHHHH`, `\\UHHHHHHHH` or the braced forms `\\x{H..}` (p[pos] is x/u/U)."""
        p, n = self.p, self.n
        letter = p[pos]
        pos += 1
        if pos >= n:
            raise self.error("incomplete escape sequence \\%s: expected hexadecimal digits"
                             % letter, pos)
        if p[pos] == "{":
            brace = pos
            pos += 1
            while pos < n and p[pos] != "}":
                if p[pos] not in _HEX:
                    raise self.error("invalid hexadecimal digit %r" % p[pos], pos)
                pos += 1
            if pos >= n:
                raise self.error("unclosed hexadecimal escape \\%s{...}: expected '}'"
                                 % letter, brace)
            digits = p[brace + 1:pos]
            if not digits:
                raise self.error("hexadecimal literal empty: \\%s{} needs at least one digit"
                                 % letter, brace)
            end = pos + 1
            byte_escape = False
        else:
            width = {"x": 2, "u": 4, "U": 8}[letter]
            digit_start = pos
            for _ in range(width):
                if pos >= n:
                    raise self.error("incomplete escape sequence \\%s: expected %d hexadecimal "
                                     "digits" % (letter, width), pos)
                if p[pos] not in _HEX:
                    raise self.error("invalid hexadecimal digit %r (\\%s takes exactly %d)"
                                     % (p[pos], letter, width), pos)
                pos += 1
            digits = p[digit_start:pos]
            brace = digit_start - 1
            end = pos
            byte_escape = letter == "x"
        stripped = digits.lstrip("0") or "0"
        value = int(stripped, 16) if len(stripped) <= 8 else 0x7FFFFFFFF
        if value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
            what = "a surrogate" if value <= 0xFFFF else "above U+10FFFF"
            raise self.error("hexadecimal literal is not a Unicode scalar value: %s is %s"
                             % (digits, what), brace + 1)
        return Escape("char", start, end, cp=value, byte_escape=byte_escape)

    def read_property(self, start: int, pos: int) -> Escape:
        """`\\pL`, `\\p{Name}`, `\\p{name=value}`, `\\p{name:value}`, `\\p{name!=value}`."""
        p, n = self.p, self.n
        negated = p[pos] == "P"
        pos += 1
        if pos >= n:
            raise self.error("incomplete escape sequence \\%s: expected a class name" % p[pos - 1],
                             pos)
        if p[pos] != "{":
            if p[pos] == "\\":
                raise self.error("invalid Unicode character class: expected a name after \\p",
                                 pos)
            return Escape("property", start, pos + 1, negated=negated, name=p[pos],
                           name_start=pos)
        brace = pos
        end = p.find("}", pos)
        if end < 0:
            raise self.error("unclosed Unicode class name: expected '}'", brace)
        text = p[brace + 1:end]
        if not text.strip():
            raise self.error("empty Unicode class name in \\p{}", brace)
        value: Optional[str] = None
        name = text
        # Rust regex-syntax `parse_unicode_class`: "!=" first, then ':', then '='.
        for sep in ("!=", ":", "="):
            i = text.find(sep)
            if i >= 0:
                name, value = text[:i], text[i + len(sep):]
                if sep == "!=":
                    negated = not negated
                break
        return Escape("property", start, end + 1, negated=negated, name=name, value=value,
                       name_start=brace + 1)

    def property_set(self, esc: Escape, flags: Flags) -> Ranges:
        """The set of `\\p{..}`/`\\P{..}`: folded under (?i), then negated (Rust order)."""
        if not flags.unicode:
            raise self.error("Unicode classes (\\p, \\P) are not allowed in byte mode (?-u)",
                             esc.start)
        key = (esc.name, esc.value)
        ranges = _PROPERTY_CACHE.get(key)
        if ranges is None:
            try:
                ranges = uni.property_ranges(esc.name, esc.value)
            except KeyError as e:
                what = e.args[0] if e.args else esc.name
                if esc.value is not None and what == esc.value:
                    msg = "unknown Unicode property value %r for %r" % (esc.value, esc.name)
                else:
                    msg = "unknown Unicode property %r" % (what,)
                raise self.error(msg, esc.name_start) from None
            _PROPERTY_CACHE[key] = ranges
        if flags.case_insensitive:
            ranges = uni.case_fold(ranges)
        return uni.negate(ranges) if esc.negated else ranges
