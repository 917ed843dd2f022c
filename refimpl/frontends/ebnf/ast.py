"""The expressions of a character grammar (GBNF and the EBNF dialects), as parsed.

A grammar is a dict from rule name to expression; an expression is a tree of these nodes,
each with the offset in the grammar text where it starts (for errors). Terminals are code
points (`Chars`, `Literal`) or tokens read by id (`Token`); everything else is structure.
The compiler (compiler.py) decides which parts become lexemes.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from ...grammar.ir import TokenSpec
from ...regex import ast as syntax

Ranges = Tuple[Tuple[int, int], ...]  # code points, sorted, disjoint, inclusive

#: every Unicode scalar value (surrogates have no UTF-8 encoding)
ANY_CHAR: Ranges = ((0, 0xD7FF), (0xE000, 0x10FFFF))


class Node:
    __slots__ = ("offset",)
    offset: int


class Chars(Node):
    """One code point out of `ranges` (`[a-z]`, `[^"]`, `.`)."""

    __slots__ = ("ranges",)

    def __init__(self, offset: int, ranges: Ranges) -> None:
        self.offset, self.ranges = offset, ranges


class Literal(Node):
    """A string of code points (`"abc"`)."""

    __slots__ = ("text",)

    def __init__(self, offset: int, text: str) -> None:
        self.offset, self.text = offset, text


class Substring(Node):
    """Any run of consecutive chunks, the empty one included (xgrammar's `Substring(...)`,
    llguidance's `%regex {"substring_chunks": ...}`)."""

    __slots__ = ("chunks",)

    def __init__(self, offset: int, chunks: List[str]) -> None:
        self.offset, self.chunks = offset, chunks


class Pattern(Node):
    """A regular expression matched whole (kbnf's `#"..."`), as refimpl.regex.reader
    read it."""

    __slots__ = ("tree",)

    def __init__(self, offset: int, tree: syntax.Node) -> None:
        self.offset, self.tree = offset, tree


class Shortest(Node):
    """The shortest matches of a regular node: the strings of L(R) no proper prefix of
    which is in L(R), R ∖ R·Σ⁺ (kbnf's `#e"..."`: the terminal ends at its first match)."""

    __slots__ = ("node",)

    def __init__(self, offset: int, node: Node) -> None:
        self.offset, self.node = offset, node


class Excluding(Node):
    """Non-empty text no substring of which matches a regular node, Σ⁺ ∖ Σ*·R·Σ* (kbnf's
    `#ex"..."` and the older `except!(...)`), at most `max_bytes` UTF-8 bytes long if
    given (`except!(..., n)`)."""

    __slots__ = ("node", "max_bytes")

    def __init__(self, offset: int, node: Node, max_bytes: Optional[int] = None) -> None:
        self.offset, self.node, self.max_bytes = offset, node, max_bytes


class Budget(Node):
    """xgrammar's rule budgets on a regular node. `max_chars=N`: the node may not read on
    once it has read N code points where it can end, so its language is
    L ∖ (L ∩ Σ^{≥N})·Σ⁺. `max_tokens=N`: a token budget, kept by the Matcher (it has the
    token boundaries): the node is one lexeme, which must end at the first token boundary
    where it can, once N tokens have given it bytes."""

    __slots__ = ("node", "max_chars", "max_tokens")

    def __init__(self, offset: int, node: Node, max_chars: Optional[int] = None,
                 max_tokens: Optional[int] = None) -> None:
        self.offset, self.node, self.max_chars, self.max_tokens = offset, node, max_chars, max_tokens


class Ref(Node):
    """A reference to the rule `name`."""

    __slots__ = ("name",)

    def __init__(self, offset: int, name: str) -> None:
        self.offset, self.name = offset, name


class Token(Node):
    """One token read by id (`<[5]>`, `<think>`, `!<[5]>`)."""

    __slots__ = ("spec",)

    def __init__(self, offset: int, spec: TokenSpec) -> None:
        self.offset, self.spec = offset, spec


class Seq(Node):
    """`a b c`; the empty sequence is ε."""

    __slots__ = ("items",)

    def __init__(self, offset: int, items: List[Node]) -> None:
        self.offset, self.items = offset, items


class Alt(Node):
    """`a | b`."""

    __slots__ = ("options",)

    def __init__(self, offset: int, options: List[Node]) -> None:
        self.offset, self.options = offset, options


class Repeat(Node):
    """`x*`, `x+`, `x?`, `x{m}`, `x{m,}`, `x{m,n}`: between lo and hi (None: no bound)."""

    __slots__ = ("node", "lo", "hi")

    def __init__(self, offset: int, node: Node, lo: int, hi: Optional[int]) -> None:
        self.offset, self.node, self.lo, self.hi = offset, node, lo, hi


def children(node: Node) -> List[Node]:
    """The sub-expressions of a node (none for terminals and references)."""
    if isinstance(node, Seq):
        return node.items
    if isinstance(node, Alt):
        return node.options
    if isinstance(node, (Repeat, Shortest, Excluding, Budget)):
        return [node.node]
    return []
