"""The syntax tree of a pattern: what the reader makes of pattern text, and the compiler
turns into an expression.

    read_pattern(r"[a-z]+(?:\\.[a-z]+)*")  ->  Concat((Repeat(Class, 1, None), Repeat(Concat, 0, None)))

The tree is *semantic*: the reader resolves flags as it goes, so there are no flag or
group nodes.  A group is just its contents; a class node holds its final set (case
folding, negation and set operations done: a `Class` of code points in Unicode mode, a
`ByteClass` of bytes in byte mode `(?-u)`); `(?i)` survives only as `Literal.fold`, which
the compiler applies.  Anchors are kept as nodes, at the ends of the pattern only (the
reader checks it).  `Intersection` and `Complement` come only from the extended syntax.

Nodes are immutable values: equality and hashing ignore offsets (an offset is where the
node starts in the pattern, kept for messages).  Every walk over a tree (equality,
hashing, repr, `dump`, the compiler) is iterative, so 10,000 nested groups are fine.

>>> dump(Alternation((Concat((Literal(97), Literal(98))), Repeat(Literal(99), 0, None))))
"(alt (concat 'a' 'b') (repeat 0 inf 'c'))"
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from . import unicode as uni
from .unicode import Ranges

__all__ = [
    "Alternation", "Anchor", "ByteClass", "ByteLiteral", "Class", "Complement", "Concat",
    "Empty", "Intersection", "Literal", "Node", "Repeat", "dump",
]


class Node:
    """Base class of the AST nodes: immutable values, compared and hashed without recursion.

    Each subclass lists its constructor fields in `_fields` (`offset` last: the index in
    the pattern where the node starts, used only for messages) and which of them hold
    sub-nodes in `_node_fields`.  Two nodes are equal when their types and non-offset
    fields are equal, recursively.
    """

    __slots__ = ("_hash",)
    _hash: Optional[int]
    offset: int
    _fields: Tuple[str, ...] = ()
    _node_fields: Tuple[str, ...] = ()
    _defaults: Dict[str, Any] = {"offset": 0, "fold": False}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Fill the fields from positional and keyword arguments (`offset` defaults to 0)."""
        fields = self._fields
        if len(args) > len(fields):
            raise TypeError("%s takes at most %d arguments" % (type(self).__name__, len(fields)))
        values = dict(zip(fields, args))
        for key, value in kwargs.items():
            if key not in fields or key in values:
                raise TypeError("%s: bad or repeated field %r" % (type(self).__name__, key))
            values[key] = value
        for name in fields:
            if name not in values:
                if name not in self._defaults:
                    raise TypeError("%s: missing field %r" % (type(self).__name__, name))
                values[name] = self._defaults[name]
            object.__setattr__(self, name, values[name])
        object.__setattr__(self, "_hash", None)

    def __setattr__(self, name: str, value: Any) -> None:
        """Nodes are immutable."""
        raise AttributeError("AST nodes are immutable")

    def children(self) -> Tuple["Node", ...]:
        """The direct sub-nodes, in order."""
        out: List[Node] = []
        for name in self._node_fields:
            value = getattr(self, name)
            if isinstance(value, Node):
                out.append(value)
            else:
                out.extend(value)
        return tuple(out)

    def _key(self) -> Tuple[Any, ...]:
        """The fields that are neither sub-nodes nor the offset."""
        return tuple(getattr(self, f) for f in self._fields
                     if f != "offset" and f not in self._node_fields)

    def __eq__(self, other: object) -> bool:
        """Structural equality (offsets ignored), on an explicit stack of node pairs."""
        if not isinstance(other, Node):
            return NotImplemented
        stack = [(self, other)]
        while stack:
            a, b = stack.pop()
            if a is b:
                continue
            if type(a) is not type(b) or a._key() != b._key():
                return False
            ca, cb = a.children(), b.children()
            if len(ca) != len(cb):
                return False
            stack.extend(zip(ca, cb))
        return True

    def __hash__(self) -> int:
        """A hash consistent with `__eq__`, computed once per node, bottom-up without recursion."""
        if self._hash is not None:
            return self._hash
        h = 0
        stack: List[Node] = [self]  # post-order: children's hashes first, `self` last
        while stack:
            node = stack[-1]
            missing = [c for c in node.children() if c._hash is None]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            if node._hash is None:
                h = hash((type(node).__name__, node._key(),
                          tuple(c._hash for c in node.children())))
                object.__setattr__(node, "_hash", h)
        return h  # the last node hashed is `self`

    def __repr__(self) -> str:
        """`Type(field, ..., offset=n)`, expanded on an explicit stack."""
        out: List[str] = []
        stack: List[Any] = [self]  # strings to emit and nodes to expand
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                out.append(item)
                continue
            parts: List[Any] = [type(item).__name__, "("]
            for i, name in enumerate(item._fields):
                if i:
                    parts.append(", ")
                value = getattr(item, name)
                if name in item._node_fields and isinstance(value, tuple):
                    parts.append("(")
                    for j, child in enumerate(value):
                        parts.extend((", ", child) if j else (child,))
                    parts.append(",)" if len(value) == 1 else ")")
                elif name in item._node_fields:
                    parts.append(value)
                else:
                    parts.append("%s=%r" % (name, value) if name == "offset" else repr(value))
            parts.append(")")
            stack.extend(reversed(parts))
        return "".join(out)


class Empty(Node):
    """ε, the empty word: `()`, an empty alternative `a|`, the empty pattern."""
    __slots__ = _fields = ("offset",)


class Literal(Node):
    """One code point, matched as its UTF-8 bytes; `fold`: case-insensitively, `(?i)`."""
    __slots__ = _fields = ("cp", "fold", "offset")
    cp: int
    fold: bool


class ByteLiteral(Node):
    """One raw byte (>= 0x80): `\\xHH` in byte mode `(?-u)`."""
    __slots__ = _fields = ("byte", "offset")
    byte: int


class Class(Node):
    """One code point out of `ranges` (canonical inclusive pairs, no surrogates; () = ∅)."""
    __slots__ = _fields = ("ranges", "offset")
    ranges: Ranges


class ByteClass(Node):
    """One byte out of `mask` (bit b set = byte b): classes, `.` and `(?i)` in byte mode."""
    __slots__ = _fields = ("mask", "offset")
    mask: int


class Anchor(Node):
    """`^`, `$`, `\\A` or `\\z` (the `kind`) where it means nothing: at an end of the pattern."""
    __slots__ = _fields = ("kind", "offset")
    kind: str


class Concat(Node):
    """The items one after the other (at least two)."""
    __slots__ = _fields = ("items", "offset")
    _node_fields = ("items",)
    items: Tuple[Node, ...]


class Alternation(Node):
    """Any one of the items (at least two): `a|b`."""
    __slots__ = _fields = ("items", "offset")
    _node_fields = ("items",)
    items: Tuple[Node, ...]


class Intersection(Node):
    """Words matching every item (at least two): `a&b`, extended syntax only."""
    __slots__ = _fields = ("items", "offset")
    _node_fields = ("items",)
    items: Tuple[Node, ...]


class Complement(Node):
    """Every byte string the item does not match: `~a`, extended syntax only."""
    __slots__ = _fields = ("item", "offset")
    _node_fields = ("item",)
    item: Node


class Repeat(Node):
    """`item{lo,hi}`; `hi` None means unbounded (`*` is 0..None, `+` 1..None, `?` 0..1)."""
    __slots__ = _fields = ("item", "lo", "hi", "offset")
    _node_fields = ("item",)
    item: Node
    lo: int
    hi: Optional[int]


def _char_text(cp: int) -> str:
    """A code point as it appears in `dump`: itself when printable ASCII, else \\u{..}."""
    if 0x21 <= cp < 0x7F:
        return chr(cp)
    return "\\u{%X}" % cp


def _ranges_text(ranges: Ranges) -> str:
    """Ranges as class text for `dump`: `a-z0`."""
    parts = []
    for lo, hi in ranges:
        parts.append(_char_text(lo) if lo == hi else _char_text(lo) + "-" + _char_text(hi))
    return "".join(parts)


def _class_text(ranges: Ranges) -> str:
    """A Unicode class for `dump`: `any`, or `[...]`, shown negated when it holds both 0 and
    0x10FFFF."""
    if ranges == uni.ANY:
        return "any"
    negated = len(ranges) > 1 and ranges[0][0] == 0 and ranges[-1][1] == 0x10FFFF
    shown = uni.negate(ranges) if negated else ranges
    return "[%s%s]" % ("^" if negated else "", _ranges_text(shown))


def _mask_text(mask: int) -> str:
    """A byte class for `dump`: `bytes[\\x00-\\x09\\x0B]`."""
    pairs = []
    b = 0
    while b < 256:
        if (mask >> b) & 1:
            lo = b
            while b < 255 and (mask >> (b + 1)) & 1:
                b += 1
            pairs.append((lo, b))
        b += 1
    return "bytes[%s]" % "".join(
        "\\x%02X" % lo if lo == hi else "\\x%02X-\\x%02X" % (lo, hi) for lo, hi in pairs)


def dump(node: Node) -> str:
    """A compact, offset-free text of the tree, for tests and teaching.

    >>> from refimpl.regex.reader import read_pattern
    >>> dump(read_pattern("(?i)x[^a]"))
    "(concat i'x' [^Aa])"
    >>> print(dump(read_pattern("(?-u)[ab]|a&~b", extended=True)))
    (alt bytes[\\x61-\\x62] (and 'a' (not 'b')))
    """
    out: List[str] = []
    stack: List[Any] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        t = type(item)
        if t is Empty:
            out.append("empty")
        elif t is Literal:
            out.append(("i'%s'" if item.fold else "'%s'") % _char_text(item.cp))
        elif t is ByteLiteral:
            out.append("\\x%02X" % item.byte)
        elif t is Class:
            out.append(_class_text(item.ranges))
        elif t is ByteClass:
            out.append(_mask_text(item.mask))
        elif t is Anchor:
            out.append(item.kind)
        elif t is Complement:
            stack.extend((")", item.item, "(not "))
        elif t is Repeat:
            stack.extend((")", item.item, "(repeat %d %s " % (
                item.lo, "inf" if item.hi is None else item.hi)))
        else:
            name = {Concat: "concat", Alternation: "alt", Intersection: "and"}[t]
            parts: List[Any] = ["(" + name]
            for child in item.items:
                parts.extend((" ", child))
            parts.append(")")
            stack.extend(reversed(parts))
    return "".join(out)
