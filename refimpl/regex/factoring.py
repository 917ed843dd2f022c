"""Left factoring: every alternation of an expression as a trie of its leading bytes.

A derivative of an alternation looks at every member: d(r1|...|rn, b) = d(r1, b)|...|d(rn, b).
The alternation of 20,000 words a pattern like `the|then|there|...` compiles to costs
20,000 steps per byte, for each of the 256 bytes a trie walk asks about at the start of a
lexeme — a minute for one GPT-2 mask. Its left-factored form shares common prefixes,

    the|then|there|a        =  the(|n|re)|a,  as a trie: [t]·[h]·[e]·(ε|[n]|[r]·[e]) | [a]

and a derivative of it looks at the few branches of one trie node (d(…, t) is one
concatenation). The language is the same; only the shape of the expression differs, so
the lexer's states (languages) and every mask are the same too. This is the shape the
JSON-schema frontend gives an `enum` of strings (`ExprSet.words`), built here for any
alternation by `ExprSet.factored` over each member split by `leading_bytes`.

`left_factored(es, e)` rewrites every alternation inside e, bottom-up (explicit stack), each
node once per ExprSet (cached in `es.caches[left_factored]`); the simplifier applies it to
the lexemes of every grammar (grammar/simplify.py, `factor_alternations`). The pattern
compiler does not: `compile_pattern` keeps the structure of the pattern, so that the
printer's output compiles back to the same expression (docs/regex.md).

>>> from refimpl.regex.compiler import compile_pattern
>>> from refimpl.regex.printer import to_string
>>> es = ExprSet()
>>> to_string(es, left_factored(es, compile_pattern(es, "abc|abd|b")))
'b|ab[cd]'
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from .exprs import AND, BYTES, CONCAT, NOT, OR, REPEAT, ExprSet

__all__ = ["leading_bytes", "left_factored"]


def leading_bytes(es: ExprSet, e: int) -> Tuple[List[int], int]:
    """e as (masks, rest) with e = masks·rest: the byte sets e begins with, one per head
    of its concatenation, and what follows them (ε after a literal word).

    >>> es = ExprSet()
    >>> leading_bytes(es, es.literal(b"ab")) == ([1 << ord("a"), 1 << ord("b")], es.EPSILON)
    True
    >>> star = es.star(es.literal(b"b"))
    >>> leading_bytes(es, es.concat(es.literal(b"a"), star)) == ([1 << ord("a")], star)
    True
    """
    nodes = es.nodes
    masks = []
    while True:
        node = nodes[e]
        if node[0] == BYTES:
            masks.append(node[1])
            return masks, es.EPSILON
        if node[0] != CONCAT or nodes[node[1]][0] != BYTES:
            return masks, e
        masks.append(nodes[node[1]][1])
        e = node[2]


def _head(es: ExprSet, e: int) -> Optional[int]:
    """The byte set e begins with, if e is a byte set or a concatenation that begins with one."""
    node = es.nodes[e]
    if node[0] == BYTES:
        return node[1]
    if node[0] == CONCAT and es.nodes[node[1]][0] == BYTES:
        return es.nodes[node[1]][1]
    return None


def _rebuilt(es: ExprSet, e: int, done: Dict[int, int]) -> int:
    """The node e with its children replaced by their factored forms (`done`), and an
    alternation left-factored."""
    node = es.nodes[e]
    kind = node[0]
    if kind == OR:
        members = [done[c] for c in node[1]]
        heads = [h for h in (_head(es, m) for m in members) if h is not None]
        if len(set(heads)) == len(heads):  # no two members begin alike: nothing to share
            return es.union(*members)
        return es.factored(leading_bytes(es, m) for m in members)
    if kind == CONCAT:
        return es.concat(done[node[1]], done[node[2]])
    if kind == AND:
        return es.intersection(*(done[c] for c in node[1]))
    if kind == NOT:
        return es.complement(done[node[1]])
    if kind == REPEAT:
        return es.repeat(done[node[1]], node[2], node[3])
    return e  # ∅, ε, a byte set


def left_factored(es: ExprSet, e: int) -> int:
    """e with every alternation in it left-factored (the same language; see the module
    docstring). Cached per ExprSet; iterative, so a 10,000-deep expression is fine."""
    done: Dict[int, int] = es.caches[left_factored]
    stack = [e]
    while stack:
        x = stack[-1]
        if x in done:
            stack.pop()
            continue
        todo = [c for c in es.children(x) if c not in done]
        if todo:
            stack.extend(todo)
            continue
        stack.pop()
        if es.nodes[x][0] != OR and all(done[c] == c for c in es.children(x)):
            done[x] = x  # nothing below changed (most nodes: no hash-consing lookup)
        else:
            done[x] = _rebuilt(es, x, done)
    return done[e]
