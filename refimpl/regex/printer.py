"""Printing an expression back as a pattern.

`to_string(es, e)` writes a pattern that `compile_pattern(..., extended=True)` compiles back
to the very same expression id — the basis of teaching traces ("after `a`, the lexer is in
state `[cd]`"). The notation is Rust regex syntax plus two operators of the extended
syntax: `&` (intersection) and a prefix `~` (complement). Bytes are printed as themselves
when printable ASCII, a printable non-ASCII character spelled byte by byte in a
concatenation as that character, and other bytes as `\\xHH`; when such a byte >= 0x80
occurs, the pattern starts with `(?-u)` (Rust's byte mode, where `\\xHH` is a raw byte), because derivatives
can stop in the middle of a UTF-8 sequence. ∅ prints as the empty byte class
`(?-u)[^\\x00-\\xFF]`, and Σ* as `(?-u)[\\x00-\\xFF]*`. An expression compiled from a
Unicode class (compiler.compile_class) prints as that class, not as the alternation of
its UTF-8 byte sequences — `[^"]`, inside `(?u:...)` in byte mode.

>>> from refimpl.regex.exprs import ExprSet
>>> es = ExprSet()
>>> to_string(es, es.concat(es.byte_range(ord("a"), ord("c")), es.star(es.literal(b"xy"))))
'[a-c](?:xy)*'
>>> to_string(es, es.literal("é".encode())), to_string(es, es.literal(b"\\xC3"))
('é', '(?-u)\\\\xC3')
>>> from refimpl.regex.compiler import compile_pattern
>>> from refimpl.regex.derivative import derivative
>>> e = compile_pattern(es, '"[^"]*"')
>>> to_string(es, e), to_string(es, derivative(es, derivative(es, e, ord('"')), 0xC3))
('"[^"]*"', '(?-u)[\\\\x80-\\\\xBF](?u:[^"])*"')
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Set, Tuple, Union

from . import unicode as uni
from .compiler import compile_class
from .exprs import ALL_BYTES, AND, BYTES, CONCAT, NOT, OR, REPEAT, ExprSet

# Precedence levels, loosest first: a sub-expression printed where a tighter level is
# needed is wrapped in (?: ).
ALTERNATION, INTERSECTION, CONCATENATION, COMPLEMENT, REPETITION, ATOM = range(6)

_META = set(b"\\.+*?()|[]{}^$#&-~")
_CLASS_META = set(b"\\[]^-&~")


def _byte(b: int, meta: Set[int]) -> str:
    if b in meta:
        return "\\" + chr(b)
    if 0x20 <= b < 0x7F:
        return chr(b)
    return "\\x%02X" % b


def _byte_class(mask: int, byte_mode: bool) -> str:
    """A byte set as a literal (one byte) or a class; negated when that is shorter."""
    count = bin(mask).count("1")
    if count == 1:
        return _byte(mask.bit_length() - 1, _META)
    negate = byte_mode and 128 < count < 256
    if negate:
        mask ^= ALL_BYTES
    ranges: List[str] = []
    b = 0
    while b < 256:
        if (mask >> b) & 1:
            lo = b
            while b + 1 < 256 and (mask >> (b + 1)) & 1:
                b += 1
            text = _byte(lo, _CLASS_META)
            if b > lo:
                text += ("-" if b > lo + 1 else "") + _byte(b, _CLASS_META)
            ranges.append(text)
        b += 1
    return "[" + ("^" if negate else "") + "".join(ranges) + "]"


def _quantifier(lo: int, hi: Optional[int]) -> str:
    if hi is None:
        return "*" if lo == 0 else "+" if lo == 1 else "{%d,}" % lo
    return "{%d}" % lo if lo == hi else "{%d,%d}" % (lo, hi)


Classes = Dict[int, Tuple[Tuple[int, int], ...]]


def _classes(es: ExprSet) -> Classes:
    """The expressions compiled from a Unicode class with a non-ASCII code point, by id,
    with the class's ranges (compiler.compile_class keeps them in its cache):
    these print as the class, not as the alternation of their UTF-8 byte sequences."""
    out: Classes = {}
    for ranges, e in es.caches[compile_class].items():
        if ranges and ranges[-1][1] >= 0x80:
            out.setdefault(e, ranges)
    return out


def _code_point(cp: int) -> str:
    c = chr(cp)
    if cp < 0x80:
        return _byte(cp, _CLASS_META)
    return c if c.isprintable() and not c.isspace() else "\\x{%X}" % cp


def _unicode_class(ranges: Tuple[Tuple[int, int], ...]) -> str:
    """A class of code points (Unicode mode); negated when that is shorter."""
    negated = uni.negate(ranges)
    shown = negated if negated and len(negated) < len(ranges) else ranges
    parts = [_code_point(lo) + ("" if hi == lo else ("-" if hi > lo + 1 else "") + _code_point(hi)) for lo, hi in shown]
    return "[" + ("^" if shown is negated else "") + "".join(parts) + "]"


def _chain(es: ExprSet, e: int, classes: Classes) -> List[Union[int, str]]:
    """The members of the concatenation e (a class prints whole), where runs of one-byte
    members spelling printable non-ASCII characters are those characters: `é` prints as
    itself, not as `\xC3\xA9` (a literal means its UTF-8 bytes in either mode)."""
    members = []
    node = es.nodes[e]
    while node[0] == CONCAT and e not in classes:
        members.append(node[1])
        e = node[2]
        node = es.nodes[e]
    members.append(e)
    out: List[Union[int, str]] = []
    i = 0
    while i < len(members):
        char = _character(es, members, i)
        if char:
            out.append(char)
            i += len(char.encode("utf-8"))
        else:
            out.append(members[i])
            i += 1
    return out


def _character(es: ExprSet, members: List[int], i: int) -> str:
    """The printable non-ASCII character members[i:] start with, one byte each ('' if none)."""
    spelled = bytearray()
    for m in members[i:i + 4]:
        node = es.nodes[m]
        if node[0] != BYTES or not node[1] or node[1] & (node[1] - 1):
            break
        spelled.append(node[1].bit_length() - 1)
    lead = spelled[0] if spelled else 0
    n = 2 if 0xC2 <= lead < 0xE0 else 3 if 0xE0 <= lead < 0xF0 else 4 if 0xF0 <= lead < 0xF5 else 0
    if not n or len(spelled) < n:
        return ""
    try:
        c = bytes(spelled[:n]).decode("utf-8")
    except UnicodeDecodeError:
        return ""
    return c if c.isprintable() and not c.isspace() else ""


def _needs_byte_mode(es: ExprSet, e: int, classes: Classes) -> bool:
    """Does e read a byte >= 0x80 outside the Unicode classes and the characters of its
    concatenations, or hold ∅ or Σ*?"""
    seen = {e}
    stack = [e]
    while stack:
        x = stack.pop()
        node = es.nodes[x]
        if x in (es.NOTHING, es.EVERYTHING) or (node[0] == BYTES and node[1] >> 128):
            return True
        if x in classes:
            continue
        children = [c for c in _chain(es, x, classes) if not isinstance(c, str)] if node[0] == CONCAT else es.children(x)
        for c in children:
            if c not in seen:
                seen.add(c)
                stack.append(c)
    return False


Part = Union[str, Tuple[int, int]]


def _render(es: ExprSet, e: int, byte_mode: bool, classes: Classes) -> Tuple[int, List[Part]]:
    """The level of e and its text as strings and (child, needed level) pairs."""
    node = es.nodes[e]
    kind = node[0]
    if e in classes:
        text = _unicode_class(classes[e])
        return ATOM, ["(?u:%s)" % text if byte_mode else text]
    if e == es.NOTHING:
        return ATOM, ["[^\\x00-\\xFF]"]
    if e == es.EVERYTHING:
        return REPETITION, ["[\\x00-\\xFF]*"]
    if e == es.EPSILON:
        return ATOM, ["(?:)"]
    if kind == BYTES:
        return ATOM, [_byte_class(node[1], byte_mode)]
    if kind == CONCAT:
        return CONCATENATION, [m if isinstance(m, str) else (m, COMPLEMENT) for m in _chain(es, e, classes)]
    if kind == OR and es.EPSILON in node[1]:
        rest = [c for c in node[1] if c != es.EPSILON]
        if len(rest) == 1:
            return REPETITION, [(rest[0], ATOM), "?"]
        return REPETITION, ["(?:"] + _joined(rest, "|", INTERSECTION) + [")?"]
    if kind == OR:
        return ALTERNATION, _joined(node[1], "|", INTERSECTION)
    if kind == AND:
        return INTERSECTION, _joined(node[1], "&", CONCATENATION)
    if kind == NOT:
        return COMPLEMENT, ["~", (node[1], REPETITION)]
    assert kind == REPEAT
    return REPETITION, [(node[1], ATOM), _quantifier(node[2], node[3])]


def _joined(members: Sequence[int], sep: str, level: int) -> List[Part]:
    parts: List[Part] = []
    for i, c in enumerate(members):
        if i:
            parts.append(sep)
        parts.append((c, level))
    return parts


def to_string(es: ExprSet, e: int, limit: Optional[int] = None) -> str:
    """Print e as a pattern (iteratively: deep expressions are fine). An expression is a
    DAG and its text a tree, exponentially larger at worst: with `limit`, the text stops
    after about that many characters and ends in "…" (for names and messages)."""
    classes = _classes(es)
    byte_mode = _needs_byte_mode(es, e, classes)
    out: List[str] = ["(?-u)"] if byte_mode else []
    stack: List[Part] = [(e, ALTERNATION)]
    length = 0
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            length += len(item)
            if limit is not None and length > limit:
                return "".join(out)[:limit] + "…"
            continue
        x, needed = item
        level, parts = _render(es, x, byte_mode, classes)
        if level < needed:
            parts = ["(?:"] + parts + [")"]
        stack.extend(reversed(parts))
    return "".join(out)
