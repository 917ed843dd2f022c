"""Tokens of C++ and Rust source, for the llama.cpp and kbnf readers.

`tokenize` cuts source text into tokens with one regular expression per language (one
named group per kind of token), drops spaces and comments, and gives each string literal
its decoded value, or the `Undecodable` exception saying why it has none (`unescape`
reads a literal's body; each language reads its own escapes). `split_args` then cuts a
bracketed list into its comma-separated items, which is all the structure the readers
need: they look for calls and `let` statements, not for a syntax tree.
"""
from __future__ import annotations

import re
from typing import Any, Callable, List, Tuple


class Undecodable(Exception):
    """A literal whose value is not certain (unknown escape, not UTF-8, ...)."""


class Token:
    """A token: its kind (`str`, `ident`, `num`, `punct`, ...), its text, the line it
    starts on and, for a string literal, its value."""

    __slots__ = ("kind", "text", "line", "value")

    def __init__(self, kind: str, text: str, line: int, value: Any = None) -> None:
        self.kind, self.text, self.line, self.value = kind, text, line, value

    def __repr__(self) -> str:
        return f"{self.kind}:{self.text!r}@{self.line}"


def tokenize(src: str, pattern: "re.Pattern[str]", kinds: Tuple[str, ...],
             raw: Callable[["re.Match[str]", int, int], Tuple[int, Any]], string: Callable[[str], Any]) -> List[Token]:
    """The tokens of `src` by `pattern` (one named group per kind), without spaces and
    comments; `raw(match, end, line)` reads a raw string literal's body (its end and
    value), `string(literal)` a plain one's value."""
    out: List[Token] = []
    pos, line = 0, 1
    while pos < len(src):
        m = pattern.match(src, pos)
        assert m is not None
        kind = next(k for k in kinds if m.group(k))
        end = m.end()
        if kind == "raw":
            end, value = raw(m, end, line)
            out.append(Token("str", src[pos:end], line, value))
        elif kind == "str":
            out.append(Token("str", m.group(), line, string(m.group())))
        elif kind not in ("ws", "comment"):
            out.append(Token(kind, m.group(), line))
        line += src.count("\n", pos, end)
        pos = end
    return out


def split_args(tokens: List[Token], open_index: int) -> Tuple[List[List[Token]], int]:
    """The comma-separated arguments of the bracket opening at open_index, and the index
    just after its closing bracket."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    depth, args, current = 0, [], []  # type: int, List[List[Token]], List[Token]
    i = open_index
    while True:
        t = tokens[i]
        if t.kind == "punct" and t.text in pairs:
            depth += 1
            if depth == 1:
                i += 1
                continue
        elif t.kind == "punct" and t.text in pairs.values():
            depth -= 1
            if depth == 0:
                if current:
                    args.append(current)
                return args, i + 1
        if depth == 1 and t.kind == "punct" and t.text == ",":
            args.append(current)
            current = []
        else:
            current.append(t)
        i += 1


def unescape(body: str, escape: Callable[[str, int], Tuple[bytes, int]]) -> bytes:
    """The bytes of a string literal's body: each character as UTF-8, and each escape as
    `escape(body, i)` reads it, with `i` at its backslash: its bytes and the index after it
    (or Undecodable)."""
    out = bytearray()
    i = 0
    while i < len(body):
        if body[i] == "\\":
            value, i = escape(body, i)
            out += value
        else:
            out += body[i].encode("utf-8")
            i += 1
    return bytes(out)


def utf8(cp: int) -> bytes:
    """The UTF-8 bytes of code point `cp` (an escape's value), which must be a scalar value."""
    if cp > 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
        raise Undecodable(f"code point {cp:#x} is not a scalar value")
    return chr(cp).encode("utf-8")


def utf8_text(value: bytes) -> str:
    """A literal's bytes as text; they must be UTF-8."""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Undecodable("not UTF-8") from e
