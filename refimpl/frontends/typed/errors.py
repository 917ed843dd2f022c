"""The two errors of typed parsing: a Python type with no JSON grammar
(`UnsupportedTypeError`, raised before any text is read) and a text that is not a
value of the type (`ParseError`, with the byte offset and what was expected there)."""
from __future__ import annotations

import sys
from types import FrameType
from typing import Any, Optional

from ...errors import MaskrefError, caret_line


class UnsupportedTypeError(MaskrefError, TypeError):
    """A type (or a marker on it) that maskref cannot turn into a grammar.

    `type` is the offending type, `path` where it sits in the root type (such as
    ``Character.metadata.tags[]``) and `message` says why.
    """

    def __init__(self, message: str, type_: Any, path: str) -> None:
        self.message = message
        self.type = type_
        self.path = path
        super().__init__("%s: %s (at %s)" % (message, _type_name(type_), path))


class ParseError(MaskrefError, ValueError):
    """A text that is not the JSON of a value of the type.

    `offset` is the byte offset (in the UTF-8 text) where the offending token starts,
    `path` the JSON path of the value being read (``$.metadata.age``), `message` what was
    expected there. The text's line and a caret under the offset end the message.
    """

    def __init__(self, message: str, text: str, offset: int, path: str) -> None:
        self.message = message
        self.path = path
        self.offset = len(text[:offset].encode("utf-8", "surrogatepass"))
        self.char_offset = offset
        super().__init__("%s at byte %d (%s)\n%s" % (message, self.offset, path, caret_line(text, offset)))


def _type_name(t: Any) -> str:
    """A readable name of a type: `int`, `Character`, `List[int]` (typing's repr, cut
    short for a deep type)."""
    if isinstance(t, type) and not getattr(t, "__args__", None):
        return t.__qualname__
    try:
        text = _shallow_repr(t).replace("typing.", "")
    except (RecursionError, ValueError):  # typing's repr recurses on depth; an int past 4,300 digits has none
        text = "%s[...]" % getattr(getattr(t, "__origin__", None), "__name__", type(t).__name__)
    return text if len(text) <= 80 else text[:77] + "..."


#: the frames typing's repr may use for a type's name (a deeper or cyclic type is cut short)
REPR_FRAMES = 200


def _shallow_repr(t: Any) -> str:
    """repr(t) within REPR_FRAMES frames of the caller's: typing's repr recurses with the
    type's depth (forever on a cyclic one), and its cost grows faster than the depth, so
    it must not run to a recursion limit a program has raised (PyPy: minutes at 10,000)."""
    depth = 0
    frame: Optional[FrameType] = sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(min(limit, depth + REPR_FRAMES))
    try:
        return repr(t)
    finally:
        sys.setrecursionlimit(limit)
