"""JSON text as a tree of tokens with their offsets, read without recursion.

parse.py needs what jsontext.read_json throws away: where each value starts, object keys
in their order and with repeats, and the exact text of each scalar token (the schema's
lexeme decides which number and string texts are allowed: `1.0` is no integer, `\\/` is
no escape the grammar writes). So this reader keeps the tokens and leaves their meaning to
parse.py. The layout is the grammar's (docs/jsonschema.md, with its default options):
JSON whitespace ``[ \\t\\n\\r]+`` between two tokens, none before the first token or after
the last.

>>> t = read_tree('{"a": [1, "x"]}')
>>> t.kind, [(m.key, m.value.kind) for m in t.members]
('object', [('"a"', 'array')])
>>> [(v.raw, v.start) for v in t.members[0].value.members]
[('1', 7), ('"x"', 10)]
"""
from __future__ import annotations

import re
from typing import Any, List, NamedTuple, Optional, Tuple

from .errors import ParseError

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"[-+0-9.eE]+")
_WORD = re.compile(r"[A-Za-z_0-9]+")
_STRING_STOP = re.compile(r'["\\]')


class Member(NamedTuple):
    key: str  # the key's text, quotes and escapes as written
    key_start: int
    value: "Node"


class Node:
    """A JSON value in the text: `kind` (object, array, string, number, literal), where
    it starts and ends (character offsets), its token text (`raw`, scalars) or members
    (arrays: Nodes; objects: Members), and where it sits (`parent`, `key`: the key text
    or the index), for the JSON path of an error."""

    __slots__ = ("kind", "start", "end", "raw", "members", "parent", "key", "key_start")

    def __init__(self, kind: str, start: int, parent: Optional["Node"], key: Any, key_start: int = -1) -> None:
        self.kind = kind
        self.key_start = key_start
        self.start = start
        self.end = start
        self.raw = ""
        self.members: List[Any] = []
        self.parent = parent
        self.key = key

    def path(self) -> str:
        """`$.a[2].b`: the JSON path of this value (keys as written, unquoted when plain)."""
        parts = []
        node: Optional[Node] = self
        while node is not None and node.parent is not None:
            key = node.key
            if isinstance(key, int):
                parts.append("[%d]" % key)
            elif re.fullmatch(r'"[A-Za-z_][A-Za-z_0-9]*"', key):
                parts.append("." + key[1:-1])
            else:
                parts.append("[%s]" % key)
            node = node.parent
        return "$" + "".join(reversed(parts))


def read_tree(text: str) -> Node:
    """The token tree of a whole JSON text; ParseError where it is not JSON laid out as
    the grammar lays it out."""
    stack: List[Node] = []
    pos = 0
    key: Any = None
    key_start = -1
    while True:
        if stack and stack[-1].kind == "object":
            key, key_start, pos = _key(text, pos, stack[-1])
        elif stack:
            key = len(stack[-1].members)
        node, pos = _value(text, pos, stack[-1] if stack else None, key, key_start)
        if node.kind in ("object", "array") and node.end < 0:
            stack.append(node)  # opened, not empty: its first member comes next
            continue
        while True:  # the value is complete: add it, close what it finishes
            if not stack:
                if pos < len(text):
                    raise _error("expected the end of the text", text, pos, node)
                return node
            parent = stack[-1]
            parent.members.append(Member(node.key, node.key_start, node) if parent.kind == "object" else node)
            pos = _ws(text, pos)
            close = "}" if parent.kind == "object" else "]"
            if text.startswith(",", pos):
                pos = _ws(text, pos + 1)
                break
            if text.startswith(close, pos):
                stack.pop()
                parent.end = pos + 1
                node, pos = parent, pos + 1
                continue
            raise _error("expected ',' or '%s'" % close, text, pos, parent)


def _ws(text: str, pos: int) -> int:
    m = _WS.match(text, pos)
    assert m is not None
    return m.end()


def _error(message: str, text: str, pos: int, node: Optional[Node]) -> ParseError:
    if pos >= len(text):
        message = "unexpected end of text: " + message
    return ParseError(message, text, pos, node.path() if node is not None else "$")


def _key(text: str, pos: int, obj: Node) -> Tuple[str, int, int]:
    """`"key" :` (whitespace allowed around the colon): the key's text, its offset, and
    the offset of the value after it."""
    if not text.startswith('"', pos):
        raise _error("expected a key (a string)", text, pos, obj)
    end = _string_end(text, pos, obj)
    colon = _ws(text, end)
    if not text.startswith(":", colon):
        raise _error("expected ':'", text, colon, obj)
    return text[pos:end], pos, _ws(text, colon + 1)


def _string_end(text: str, pos: int, where: Node) -> int:
    """The offset after the string token whose quote is at `pos`."""
    i = pos + 1
    while True:
        m = _STRING_STOP.search(text, i)
        if m is None:
            raise _error("expected the end of the string", text, len(text), where)
        if m.group() == '"':
            return m.end()
        i = m.end() + 1


def _value(text: str, pos: int, parent: Optional[Node], key: Any, key_start: int) -> Tuple[Node, int]:
    """Read a scalar, an empty container, or open a container (its `end` is then -1 and
    the offset returned is that of its first member)."""
    where = parent
    c = text[pos] if pos < len(text) else ""
    if c in ("{", "["):
        node = Node("object" if c == "{" else "array", pos, parent, key, key_start)
        start = _ws(text, pos + 1)
        if text.startswith("}" if c == "{" else "]", start):
            node.end = start + 1
            return node, start + 1
        node.end = -1
        return node, start
    if c == '"':
        node = Node("string", pos, parent, key, key_start)
        end = _string_end(text, pos, node)
    elif c and c in "-0123456789":
        node = Node("number", pos, parent, key, key_start)
        m = _NUMBER.match(text, pos)
        assert m is not None
        end = m.end()
    else:
        m = _WORD.match(text, pos)
        if m is None or m.group() not in ("true", "false", "null"):
            raise _error("expected a JSON value", text, pos, where)
        node = Node("literal", pos, parent, key, key_start)
        end = m.end()
    node.raw = text[pos:end]
    node.end = end
    return node, end
