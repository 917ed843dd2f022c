"""Grammar text -> tokens.

Token kinds: RULE, TERM (names), STRING, REGEX, NUMBER, HEX (0x1f), OP (+ * ?), SPECIAL (<...>),
GREF (@name), DIRECTIVE (%ignore, %json, ...), NEWLINE, EOF, and punctuation, whose
kind is its own text (":", "::", "=", ",", ".", "..", "->", "(", ")", "{", "}", "[",
"]", "~", "|", "&", "_", "!").

>>> [(t.kind, t.value) for t in scan('start: "a"i+ | /b/s')]
[('RULE', 'start'), (':', ':'), ('STRING', ('a', 'i')), ('OP', '+'), ('|', '|'), ('REGEX', ('b', 's')), ('EOF', None)]
"""
from __future__ import annotations

import re
from typing import Any, List, Tuple

from ...errors import GrammarError, scalar_text
from ...grammar.ir import lark_string
from ..jsontext import JsonTextError, read_json


class Token:
    """One token: its kind, its value, and where it sits in the grammar text."""

    __slots__ = ("kind", "value", "offset", "end")

    def __init__(self, kind: str, value: Any, offset: int, end: int) -> None:
        self.kind = kind
        self.value = value
        self.offset = offset
        self.end = end

    def describe(self) -> str:
        """The token as an error message names it."""
        if self.kind == "NEWLINE":
            return "the end of the line"
        if self.kind == "EOF":
            return "the end of the grammar"
        if self.kind == "RULE":
            return "rule name '%s'" % self.value
        if self.kind == "TERM":
            return "terminal name '%s'" % self.value
        if self.kind == "STRING":
            return "string %s" % lark_string(self.value[0])
        if self.kind == "REGEX":
            return "regex /%s/" % self.value[0]
        if self.kind in ("NUMBER", "HEX"):
            return "number %s" % self.value
        if self.kind in ("SPECIAL", "GREF", "OP"):
            return "'%s'" % self.value
        if self.kind == "DIRECTIVE":
            return "'%s'" % self.value[0]
        return "'%s'" % self.kind


def line_col(text: str, offset: int) -> Tuple[int, int]:
    """The 1-based line and column of `offset` in `text`."""
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


_NAME_RE = re.compile(r"[_a-zA-Z](?:[_a-zA-Z0-9]|-(?!>))*")
_RULE_NAME_RE = re.compile(r"_?[a-z][_a-z0-9-]*\Z")
_TERM_NAME_RE = re.compile(r"_?[A-Z][_A-Z0-9-]*\Z")
_HEX_RE = re.compile(r"0[xX][0-9a-fA-F]+")
_NUMBER_RE = re.compile(r"[+-]?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_SPECIAL_RE = re.compile(r"<[^<>\s]+>")
_GREF_RE = re.compile(r"@[a-zA-Z0-9_-]+")
_DIRECTIVE_RE = re.compile(r"%[a-z]+")
_REGEX_FLAGS = "imslux"
_DIRECTIVES = (
    "%ignore", "%import", "%override", "%declare", "%json", "%regex", "%llguidance",
    "%if", "%lark",
)
_JSON_DIRECTIVES = ("%json", "%regex", "%llguidance")
_PUNCTUATION = ("::", "..", "->", ":", "=", ",", ".", "(", ")", "{", "}", "[", "]", "~",
                "|", "&", "!")
_STRING_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n",
                   "r": "\r", "t": "\t"}


def scan(text: str) -> List[Token]:
    """Split grammar text into tokens (the last one is EOF).

    Spaces, tabs and comments (`//` or `#` to the end of the line) separate tokens. A
    newline, with any blank or comment lines after it, is one NEWLINE token: newlines end
    definitions. `%json`, `%regex` and `%llguidance` are followed by a JSON value, read
    here and kept in the DIRECTIVE token.
    """
    tokens: List[Token] = []
    i, n = 0, len(scalar_text(text))
    while i < n:
        c = text[i]
        if c in " \t":
            i += 1
        elif c == "#" or text.startswith("//", i):
            i = _skip_comment(text, i)
        else:
            token = _token(text, i)
            tokens.append(token)
            i = token.end
    tokens.append(Token("EOF", None, n, n))
    return tokens


def _skip_comment(text: str, i: int) -> int:
    """The offset of the newline (or the end) that ends the comment at text[i]."""
    end = text.find("\n", i)
    return len(text) if end < 0 else end


def _token(text: str, i: int) -> Token:
    """The token starting at text[i] (not a space, tab or comment)."""
    c = text[i]
    if c == "\n" or text.startswith("\r\n", i):
        return Token("NEWLINE", None, i, _skip_blank_lines(text, i))
    if c == '"':
        value, flags, end = _scan_string(text, i)
        return Token("STRING", (value, flags), i, end)
    if c == "/":
        pattern, flags, end = _scan_regex(text, i)
        return Token("REGEX", (pattern, flags), i, end)
    if c == "%":
        return _directive(text, i)
    if c == "<":
        return _matched("SPECIAL", _SPECIAL_RE, text, i, "unexpected '<': expected a special token like <|end|>")
    if c == "@":
        return _matched("GREF", _GREF_RE, text, i, "unexpected '@': expected a grammar reference like @name")
    if c == "0" and text[i + 1:i + 2] in ("x", "X"):
        return _matched("HEX", _HEX_RE, text, i, "expected hex digits after '0x'")
    if "0" <= c <= "9" or (c in "+-" and i + 1 < len(text) and "0" <= text[i + 1] <= "9"):
        return _matched("NUMBER", _NUMBER_RE, text, i, "")
    if c in "+*?":
        return Token("OP", c, i, i + 1)
    if c == "_" or ("a" <= c <= "z") or ("A" <= c <= "Z"):
        return _name(text, i)
    for p in _PUNCTUATION:
        if text.startswith(p, i):
            return Token(p, p, i, i + len(p))
    raise GrammarError("unexpected character %r" % c, text, i)


def _skip_blank_lines(text: str, i: int) -> int:
    """The end of the newlines, blank lines and comment lines from text[i]: one token."""
    n = len(text)
    while i < n:
        if text[i] in " \t\n":
            i += 1
        elif text.startswith("\r\n", i):
            i += 2
        elif text[i] == "#" or text.startswith("//", i):
            i = _skip_comment(text, i)
        else:
            break
    return i


def _matched(kind: str, pattern: "re.Pattern[str]", text: str, i: int, message: str) -> Token:
    """A token of `kind` matching `pattern` at text[i]; else GrammarError(message)."""
    m = pattern.match(text, i)
    if not m:
        raise GrammarError(message, text, i)
    return Token(kind, m.group(), i, m.end())


def _directive(text: str, i: int) -> Token:
    """`%word`, with the JSON value that follows %json, %regex and %llguidance.

    The token's value is (word, JSON value or None, offset of the JSON value or of the
    end of the word).
    """
    m = _DIRECTIVE_RE.match(text, i)
    word = m.group() if m else "%"
    if word not in _DIRECTIVES:
        raise GrammarError(
            "unknown directive '%s' (expected one of %s)" % (word, ", ".join(_DIRECTIVES)),
            text, i,
        )
    end = i + len(word)
    if word not in _JSON_DIRECTIVES:
        return Token("DIRECTIVE", (word, None, end), i, end)
    j = end
    while j < len(text) and text[j] in " \t\r\n":
        j += 1
    value, end = _read_json(text, j, word)
    return Token("DIRECTIVE", (word, value, j), i, end)


def _name(text: str, i: int) -> Token:
    """A rule name (lowercase), a terminal name (uppercase), or `_`."""
    m = _NAME_RE.match(text, i)
    assert m is not None
    name = m.group()
    if name == "_":
        kind = "_"
    elif _RULE_NAME_RE.match(name):
        kind = "RULE"
    elif _TERM_NAME_RE.match(name):
        kind = "TERM"
    else:
        raise GrammarError(
            "invalid name '%s': rule names are lowercase (name), terminal names "
            "uppercase (NAME)" % name, text, i,
        )
    return Token(kind, name, i, m.end())


def _scan_string(text: str, i: int) -> Tuple[str, str, int]:
    """A string literal at text[i] == '"': (its value, its flags, the offset after it).

    The escapes are JSON's (`\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX`, surrogate pairs
    combined) plus `\\xHH`; raw control characters are not allowed inside (as in JSON).
    The flag `i` may follow the closing quote.
    """
    n = len(text)
    out: List[str] = []
    j = i + 1
    while True:
        if j >= n or text[j] == "\n":
            raise GrammarError("unclosed string: expected '\"' before the end of the line", text, i)
        c = text[j]
        if c == '"':
            j += 1
            break
        if c == "\\":
            char, j = _escape(text, j)
            out.append(char)
        elif ord(c) < 0x20 or c == "\x7f":
            raise GrammarError(
                "control character %r in string: write it as an escape" % c, text, j
            )
        else:
            out.append(c)
            j += 1
    flags = ""
    if j < n and text[j] == "i":
        flags, j = "i", j + 1
    return "".join(out), flags, j


def _escape(text: str, j: int) -> Tuple[str, int]:
    """The character of the escape at text[j] == '\\' in a string, and the offset after it."""
    e = text[j + 1] if j + 1 < len(text) else ""
    if e in _STRING_ESCAPES:
        return _STRING_ESCAPES[e], j + 2
    if e == "x":
        digits = text[j + 2:j + 4]
        if len(digits) != 2 or not all(d in "0123456789abcdefABCDEF" for d in digits):
            raise GrammarError("invalid escape in string: expected two hex digits after \\x", text, j)
        return chr(int(digits, 16)), j + 4
    if e == "u":
        code, j2 = _unicode_escape(text, j)
        if 0xD800 <= code <= 0xDBFF and text.startswith("\\u", j2):
            low, j3 = _unicode_escape(text, j2)
            if 0xDC00 <= low <= 0xDFFF:
                code, j2 = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00), j3
        if 0xD800 <= code <= 0xDFFF:
            raise GrammarError("invalid escape in string: lone surrogate \\u%04x" % code, text, j)
        return chr(code), j2
    raise GrammarError(
        "invalid escape in string: \\%s (expected one of \\\" \\\\ \\/ \\b \\f \\n \\r "
        "\\t \\uXXXX \\xHH)" % e, text, j,
    )


def _unicode_escape(text: str, j: int) -> Tuple[int, int]:
    """The code unit of `\\uXXXX` at text[j], and the offset after it."""
    digits = text[j + 2:j + 6]
    if len(digits) != 4 or not all(d in "0123456789abcdefABCDEF" for d in digits):
        raise GrammarError("invalid escape in string: expected four hex digits after \\u", text, j)
    return int(digits, 16), j + 6


def _scan_regex(text: str, i: int) -> Tuple[str, str, int]:
    """A regex literal `/.../flags` at text[i]: (the pattern text, flags, offset after).

    The pattern is the raw text between the slashes, handed to the regex compiler as is;
    `\\/` stands for a slash. Unlike llguidance we stop at a raw newline (so a missing
    closing slash is reported where it is), which no sensible grammar relies on.
    """
    n = len(text)
    j = i + 1
    while True:
        if j >= n or text[j] == "\n":
            raise GrammarError("unclosed regex: expected '/' before the end of the line", text, i)
        if text[j] == "\\" and j + 1 < n and text[j + 1] != "\n":
            j += 2
        elif text[j] == "/":
            break
        else:
            j += 1
    pattern = text[i + 1:j]
    j += 1
    k = j
    while k < n and text[k] in _REGEX_FLAGS:
        k += 1
    return pattern, text[j:k], k


def _read_json(text: str, i: int, what: str) -> Tuple[Any, int]:
    """The JSON value starting at text[i], and the offset after it (jsontext.read_json)."""
    try:
        value, end = read_json(text, i)
    except JsonTextError as e:
        raise GrammarError("invalid JSON after %s: %s" % (what, e.message), text, e.offset) from None
    return value, end
