"""Compiling the syntax tree of a pattern (ast.py) into a hash-consed expression of an ExprSet.

    compile_pattern(es, "(?i)k[0-9]+")  ->  an int: [Kk\\u212A]·[0-9]{1,}, over bytes

The engine works on bytes, so every character becomes its UTF-8 encoding:

* a literal code point is the concatenation of its bytes (under `(?i)` it is the class
  of its simple case folding: 'k' is {k, K, U+212A KELVIN SIGN});
* a Unicode class is the union, over `unicode.utf8_sequences` of its ranges, of
  concatenations of byte ranges, built as a trie by `ExprSet.words`: common leading
  bytes are shared, and sibling byte ranges followed by the same rest are merged into
  one byte set -- `\\w` (770 ranges) becomes a few hundred nodes instead of thousands
  (the same trick as derivre's `handle_unicode_ranges`);
* byte-mode classes and bytes are single byte sets;
* anchors (validated by the reader) are ε; `&`, `~` and repetitions map to
  `es.intersection`, `es.complement` and `es.repeat`.

The walk over the AST is iterative (post-order on an explicit stack), and nested
concatenations, alternations and intersections are flattened into one n-ary call each,
so `(a(b(c(...))))` 10,000 deep compiles in linear time.  Compiled classes are cached
per ExprSet (in `es.caches[compile_class]`), since a pattern full of `\\w` or `.` would otherwise
redo the same work for every occurrence; and each class's trie is built once per process,
in an ExprSet of its own, and copied into every set that needs it (`class_trie`,
`ExprSet.copy`: every grammar of a fuzz campaign compiles its `\\w` again).
"""
from __future__ import annotations

import functools
from typing import Dict, List, Optional, Tuple

from ..limits import Limits
from . import unicode as uni
from .ast import (
    Alternation,
    Anchor,
    ByteClass,
    ByteLiteral,
    Class,
    Complement,
    Concat,
    Empty,
    Intersection,
    Literal,
    Node,
    Repeat,
)
from .exprs import ExprSet, byte_mask
from .reader import read_pattern
from .unicode import Ranges

__all__ = ["compile_ast", "compile_class", "compile_pattern"]


def compile_class(es: ExprSet, ranges: Ranges) -> int:
    """The expression matching the UTF-8 encoding of any code point in `ranges` (cached
    per ExprSet, in `es.caches[compile_class]`: the printer reads it to print such an
    expression as its class): the class's trie, built once per process (`class_trie`),
    copied into es."""
    cache: Dict[Ranges, int] = es.caches[compile_class]
    got = cache.get(ranges)
    if got is None:
        got = cache[ranges] = es.copy(*class_trie(ranges))
    return got


@functools.lru_cache(maxsize=256)
def class_trie(ranges: Ranges) -> Tuple[ExprSet, int]:
    """The class's UTF-8 sequences as a trie (`ExprSet.words`), in an ExprSet of its own,
    built once per process (kept for the 256 classes used last; read-only): `\\w` costs
    ~16,000 sequences to build, a few hundred nodes to copy, and every grammar of a fuzz
    campaign or a server compiles it again."""
    own = ExprSet()
    return own, own.words(
        [byte_mask(lo, hi) for lo, hi in seq]
        for first, last in ranges
        for seq in uni.utf8_sequences(first, last)
    )


def _compile_literal(es: ExprSet, node: Literal) -> int:
    """A code point as its UTF-8 bytes; under (?i) the class of its case folding."""
    if node.fold:
        folded = uni.case_fold(((node.cp, node.cp),))
        if folded != ((node.cp, node.cp),):
            return compile_class(es, folded)
    return es.literal(chr(node.cp).encode("utf-8"))


def _operands(node: Node) -> List[Node]:
    """The operands of an n-ary node, seeing through nested nodes of the same type.

    Concatenation, alternation and intersection are associative, so `a(b(cd))` is the one
    concatenation a·b·c·d; flattening here keeps compilation linear for deep nesting.
    """
    if isinstance(node, (Complement, Repeat)):
        return [node.item]
    assert isinstance(node, (Concat, Alternation, Intersection)), node
    t = type(node)
    out: List[Node] = []
    stack = list(reversed(node.items))
    while stack:
        item = stack.pop()
        if isinstance(item, t):
            stack.extend(reversed(item.items))
        else:
            out.append(item)
    return out


def _leaf(es: ExprSet, node: Node) -> int:
    """The expression of a node without sub-nodes."""
    if isinstance(node, Literal):
        return _compile_literal(es, node)
    if isinstance(node, Class):
        return compile_class(es, node.ranges)
    if isinstance(node, ByteClass):
        return es.byte_set(node.mask)
    if isinstance(node, ByteLiteral):
        return es.byte_set(1 << node.byte)
    if isinstance(node, (Empty, Anchor)):  # anchors were checked to be at the ends: no-ops
        return es.EPSILON
    raise TypeError("not an AST node: %r" % (node,))


_INNER = (Concat, Alternation, Intersection, Complement, Repeat)


def _inner(es: ExprSet, node: Node, args: List[int]) -> int:
    """The expression of a node with sub-nodes, given the expressions of its operands."""
    if isinstance(node, Concat):
        return es.concat(*args)
    if isinstance(node, Alternation):
        return es.union(*args)
    if isinstance(node, Intersection):
        return es.intersection(*args)
    if isinstance(node, Complement):
        return es.complement(args[0])
    assert isinstance(node, Repeat), node
    return es.repeat(args[0], node.lo, node.hi)


def compile_ast(es: ExprSet, node: Node) -> int:
    """The expression of an AST, built bottom-up with an explicit stack (no recursion)."""
    done: Dict[int, int] = {}  # id(node) -> expression; the tree keeps the nodes alive
    stack: List[Tuple[Node, Optional[List[Node]]]] = [(node, None)]
    while stack:
        current, operands = stack.pop()
        key = id(current)
        if key in done:
            continue
        if not isinstance(current, _INNER):
            done[key] = _leaf(es, current)
            continue
        if operands is None:  # first visit: operands first, then this node again
            operands = _operands(current)
            stack.append((current, operands))
            stack.extend((child, None) for child in reversed(operands) if id(child) not in done)
            continue
        done[key] = _inner(es, current, [done[id(child)] for child in operands])
    return done[id(node)]


def compile_pattern(es: ExprSet, pattern: str, *, extended: bool = False,
                    limits: Optional[Limits] = None) -> int:
    """Read `pattern` and compile it into `es` (limits default to the ExprSet's).

    >>> es = ExprSet()
    >>> e = compile_pattern(es, "ab|c")
    >>> e == es.union(es.literal(b"ab"), es.literal(b"c"))
    True
    """
    return compile_ast(es, read_pattern(pattern, extended=extended, limits=es.limits if limits is None else limits))
