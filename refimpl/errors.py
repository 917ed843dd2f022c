"""Typed errors.

Every error maskref raises on bad input is one of these: a malformed pattern, grammar or
schema says *where* (offset, or line and column, with a caret line) and *what was expected*;
a pathological input that would take unbounded work raises `LimitError` naming the limit.
"""
from __future__ import annotations

import re
import reprlib
from typing import Any, Optional


class MaskrefError(Exception):
    """Base class of every error maskref raises on purpose."""


_SURROGATE = re.compile("[\ud800-\udfff]")


def caret_line(text: str, offset: int) -> str:
    """The line of `text` holding `offset`, and a caret under that offset (a lone
    surrogate shown as U+FFFD, so that the message can be printed).

    >>> print(caret_line("ab(c", 2))
    ab(c
      ^
    """
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    if end < 0:
        end = len(text)
    return _SURROGATE.sub("\ufffd", text[start:end]) + "\n" + " " * (offset - start) + "^"


def shown(value: Any, limit: int = 60) -> str:
    """A user's value in a message: its repr, cut short, nested at most a few levels
    (a deep list would exhaust the recursion limit), and a stand-in where repr fails
    (an int of more than 4,300 digits).

    >>> shown([[[[[[[[1]]]]]]]]), shown(10 ** 5000), shown("x" * 100, 10)
    ('[[[[[[[...]]]]]]]', '<int>', "'xxxxxx...")
    """
    try:
        text = reprlib.repr(value)
    except Exception:  # noqa: BLE001 -- the value's own repr failed (ValueError, RecursionError, ...)
        text = "<%s>" % type(value).__name__
    return text if len(text) <= limit else text[:limit - 3] + "..."


class RegexError(MaskrefError, ValueError):
    """A malformed or unsupported regular expression.

    `offset` is the index into `pattern` (a str) where the problem was found.
    """

    def __init__(self, message: str, pattern: str, offset: int) -> None:
        self.message = message
        self.pattern = pattern
        self.offset = max(0, min(offset, len(pattern)))
        super().__init__(
            "%s at offset %d\n%s" % (message, self.offset, caret_line(pattern, self.offset))
        )


class GrammarError(MaskrefError, ValueError):
    """A malformed or unsupported grammar; `line` and `column` are 1-based."""

    def __init__(
        self,
        message: str,
        text: str = "",
        offset: Optional[int] = None,
    ) -> None:
        self.message = message
        self.text = text
        self.offset = offset
        if offset is None:
            self.line = self.column = None
            super().__init__(message)
        else:
            self.line = text.count("\n", 0, offset) + 1
            self.column = offset - (text.rfind("\n", 0, offset) + 1) + 1
            super().__init__(
                "%s at line %d, column %d\n%s"
                % (message, self.line, self.column, caret_line(text, offset))
            )


def scalar_text(text: str) -> str:
    """`text`, if it holds only Unicode scalar values; else a GrammarError at its first
    lone surrogate. Grammars are matched on UTF-8, which has no surrogates; a Python str
    holds one when bytes that are not UTF-8 were read with "surrogateescape".

    >>> scalar_text('start: "a\\udc80"')
    Traceback (most recent call last):
      ...
    refimpl.errors.GrammarError: lone surrogate U+DC80 (not a Unicode scalar value: is the text UTF-8?) at line 1, column 10
    start: "a\ufffd"
             ^
    """
    m = _SURROGATE.search(text)
    if m:
        raise GrammarError("lone surrogate U+%04X (not a Unicode scalar value: is the text UTF-8?)"
                           % ord(m.group()), text, m.start())
    return text


class SchemaError(MaskrefError, ValueError):
    """A JSON schema that is malformed, unsatisfiable or uses an unsupported keyword.

    `pointer` is the JSON pointer of the offending (sub)schema or keyword.
    """

    def __init__(self, message: str, pointer: str = "") -> None:
        self.message = message
        self.pointer = pointer
        super().__init__("%s at %s" % (message, pointer or "/"))


class LimitError(MaskrefError, RuntimeError):
    """Bounded work ran out: `limit` names the limit, `value` is its setting.

    The message says how to raise it (``Limits(<limit>=...)``).
    """

    def __init__(self, limit: str, value: int, what: str = "") -> None:
        self.limit = limit
        self.value = value
        super().__init__(
            "limit %s=%d exceeded%s; raise it with Limits(%s=...) if the input is legitimate"
            % (limit, value, (" (" + what + ")") if what else "", limit)
        )


class VocabularyError(MaskrefError, ValueError):
    """A vocabulary that cannot be read: a file missing or malformed (named in the
    message), a tokenizer object of a kind maskref does not read, no tokens."""
