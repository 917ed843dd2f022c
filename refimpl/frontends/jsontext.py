"""JSON text, read and written without recursion: one reader for every frontend.

JSON schemas arrive as text (`Grammar.from_json_schema`), inside Lark grammars (`%json
{...}`, `%llguidance {...}`) and in grammar options. Python's json module recurses on
nesting depth, so a 10,000-deep schema would raise RecursionError; this reader keeps an
explicit stack. Numbers with a fraction or an exponent become `Decimal`, so a bound like
`0.1` stays exact (a float would not); so do integers of more than 4,300 digits.

>>> read_json('xx {"a": [1, 2.50, true, null]} yy', 3)
({'a': [1, Decimal('2.50'), True, None]}, 31)
>>> dumps({"a": [1, Decimal("2.5"), None], "b": "x"})
'{"a":[1,2.5,null],"b":"x"}'
"""
from __future__ import annotations

import json
import platform
import re
from decimal import Decimal
from typing import Any, Dict, List, Optional, Tuple, Union

from .digits import JSON_NUMBER, decimal_of_text

__all__ = ["JsonTextError", "dumps", "read_json", "read_whole_json"]

_WS_RE = re.compile(r"[ \t\n\r]*")
_LITERALS = (("true", True), ("false", False), ("null", None))
#: longer integers are read as Decimal: CPython refuses int(text) past 4,300 digits, and
#: building the int takes quadratic time (a million digits: seconds), a Decimal linear time
#: (digits.decimal_of_text: PyPy's Decimal(text) goes through int())
_INT_DIGITS = 4300

#: an open container on the reader's stack, and the key pending in it (objects only)
_Open = Tuple[Union[Dict[str, Any], List[Any]], Optional[str]]


class JsonTextError(ValueError):
    """Malformed JSON text: `message` and the `offset` where reading stopped."""

    def __init__(self, message: str, offset: int) -> None:
        self.message = message
        self.offset = offset
        super().__init__("%s at offset %d" % (message, offset))


def _skip(text: str, pos: int) -> int:
    m = _WS_RE.match(text, pos)
    assert m is not None  # `[ \t\n\r]*` matches everywhere
    return m.end()


def read_json(text: str, pos: int = 0) -> Tuple[Any, int]:
    """The JSON value that starts at text[pos] (after whitespace), and the offset just
    past it. Raises JsonTextError."""
    stack: List[_Open] = []
    pos = _skip(text, pos)
    while True:
        value, pos, opened = _read_scalar_or_open(text, pos, stack)
        if opened:
            continue
        while True:  # store the value; close the containers it finishes
            if not stack:
                return value, pos
            pos = _skip(text, pos)
            container, key = stack[-1]
            if isinstance(container, dict):
                assert key is not None
                container[key] = value
            else:
                container.append(value)
            close = "}" if isinstance(container, dict) else "]"
            if text.startswith(",", pos):
                pos = _skip(text, pos + 1)
                if isinstance(container, dict):
                    pos = _read_key(text, pos, stack)
                break
            if text.startswith(close, pos):
                stack.pop()
                value = container
                pos += 1
                continue
            raise JsonTextError("unexpected end of text" if pos >= len(text)
                                else "expected ',' or '%s'" % close, pos)


def read_whole_json(text: str) -> Any:
    """The JSON value that is the whole of `text` (whitespace around it allowed).
    Raises JsonTextError.

    >>> read_whole_json(' [1] x')
    Traceback (most recent call last):
      ...
    refimpl.frontends.jsontext.JsonTextError: extra data after the JSON value at offset 5
    """
    value, end = read_json(text)
    end = _skip(text, end)
    if end < len(text):
        raise JsonTextError("extra data after the JSON value", end)
    return value


def _read_scalar_or_open(text: str, pos: int, stack: List[_Open]) -> Tuple[Any, int, bool]:
    """Read a scalar or an empty container (-> value, end, False), or open a container
    on the stack (-> None, offset of its first member, True)."""
    if pos >= len(text):
        raise JsonTextError("unexpected end of text", pos)
    c = text[pos]
    if c in "{[":
        close = "}" if c == "{" else "]"
        start = _skip(text, pos + 1)
        if text.startswith(close, start):
            return ({} if c == "{" else []), start + 1, False
        stack.append(({} if c == "{" else [], None))
        return None, (_read_key(text, start, stack) if c == "{" else start), True
    if c == '"':
        return _read_string(text, pos) + (False,)
    m = JSON_NUMBER.match(text, pos)
    if m and m.end() > pos:
        tok = m.group()
        exact = "." in tok or "e" in tok or "E" in tok or len(tok) > _INT_DIGITS
        number = decimal_of_text(tok) if exact else int(tok)
        return number, m.end(), False
    for word, literal in _LITERALS:
        if text.startswith(word, pos):
            return literal, pos + len(word), False
    raise JsonTextError("unexpected character %r" % c, pos)


def _read_string(text: str, pos: int) -> Tuple[str, int]:
    """The string whose opening quote is at text[pos], and the offset after it."""
    try:
        return json.decoder.scanstring(text, pos + 1)  # type: ignore[attr-defined]
    except ValueError as e:
        raise JsonTextError(str(e), pos) from None


def _read_key(text: str, pos: int, stack: List[_Open]) -> int:
    """Read `"key" :` of an object member; the key goes on the top of the stack."""
    if not text.startswith('"', pos):
        raise JsonTextError("unexpected end of text" if pos >= len(text) else "key must be a string", pos)
    key, pos = _read_string(text, pos)
    pos = _skip(text, pos)
    if not text.startswith(":", pos):
        raise JsonTextError("expected ':'", pos)
    stack[-1] = (stack[-1][0], key)
    return _skip(text, pos + 1)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, Decimal)) and not isinstance(v, bool)


#: CPython's json module writes in C; PyPy's is Python code like the writer below, and on
#: values nested past its recursion limit a PyPy worker was seen to crash (a 10,000-deep
#: schema, tests/frontends/jsonschema) instead of raising RecursionError
_JSON_MODULE_FIRST = platform.python_implementation() == "CPython"


def dumps(value: Any, limit: Optional[int] = None) -> str:
    """Compact JSON text of a value, without recursion (cut with "..." past `limit`).

    Whole texts are asked of the json module first (in C: a 2.7 MB schema in 0.03 s, not
    0.4 s); what it refuses — nesting past its recursion limit, a Decimal, a non-finite
    float — is written here, the same way.

    >>> x = {"é": [1, -2.5e-07, True, None, "\\\\"], "b": {}}
    >>> dumps(x) == dumps(x, limit=1000)   # the json module's text, and this writer's
    True
    """
    if limit is None and _JSON_MODULE_FIRST:
        try:
            return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        except (RecursionError, TypeError, ValueError):
            pass
    out: List[str] = []
    size = 0
    stack: List[Tuple[str, Any]] = [("v", value)]
    while stack:
        kind, x = stack.pop()
        if kind == "s":
            out.append(x)
        elif isinstance(x, dict):
            stack.append(("s", "}"))
            items = list(x.items())
            for i in range(len(items) - 1, -1, -1):
                stack.append(("v", items[i][1]))
                stack.append(("s", ("," if i else "") + json.dumps(items[i][0], ensure_ascii=False) + ":"))
            out.append("{")
        elif isinstance(x, list):
            stack.append(("s", "]"))
            for i in range(len(x) - 1, -1, -1):
                stack.append(("v", x[i]))
                if i:
                    stack.append(("s", ","))
            out.append("[")
        elif _is_number(x):
            out.append(str(x) if isinstance(x, (int, Decimal)) else repr(x))
        else:
            out.append(json.dumps(x, ensure_ascii=False))
        size += len(out[-1])
        if limit is not None and size > limit:
            return "".join(out)[:limit] + "..."
    return "".join(out)


_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def json_string(s: str) -> str:
    """A JSON string as refimpl's JSON grammars write it: only the escapes JSON requires,
    and DEL as `\\u007f` (a JSON string lexeme leaves DEL out, as llguidance's does).

    >>> print(json_string('a"\\x7f\\n'))
    "a\\"\\u007f\\n"
    """
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("a lone surrogate has no UTF-8 form: %r" % s) from None
    out = []
    for ch in s:
        if ch in _SHORT:
            out.append(_SHORT[ch])
        elif ch < " " or ch == "\x7f":
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'
