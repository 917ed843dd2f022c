"""Brzozowski derivatives over bytes.

The derivative of a language L by a byte b is d(L, b) = { w | b·w ∈ L }: what may follow
once b has been read. A word w matches e iff ν(d(...d(d(e, w1), w2)..., wn)), so a regex
engine needs nothing but ν (`ExprSet.nullable`) and d, the rules of Brzozowski (1964):

    d(∅, b)      = ∅
    d(ε, b)      = ∅
    d(S, b)      = ε if b ∈ S else ∅                 (S a byte set)
    d(r·s, b)    = d(r, b)·s | d(s, b)   if ν(r)
                 = d(r, b)·s             otherwise
    d(r|s, b)    = d(r, b) | d(s, b)
    d(r&s, b)    = d(r, b) & d(s, b)
    d(¬r, b)     = ¬d(r, b)
    d(r{lo,hi}, b) = d(r, b)·r{lo-1,hi-1}            (lo-1 floored at 0, ∞-1 = ∞)

Results are cached per (expression, byte) in the ExprSet, in `es.caches[derivative]`
at key e << 8 | b (hot loops elsewhere read it inline, calling `derivative` only on a
miss). The computation uses an explicit stack instead of recursion, so a 10,000-deep
expression is no problem: an expression is pushed, its children's derivatives are
computed first, then its own.

>>> from refimpl.regex.exprs import ExprSet
>>> es = ExprSet()
>>> ab = es.byte_set(0b11 << ord("a"))
>>> derivative(es, es.concat(ab, es.literal(b"c")), ord("a")) == es.literal(b"c")
True
"""
from __future__ import annotations

from typing import Dict

from .exprs import AND, BYTES, CONCAT, NOT, OR, REPEAT, ExprSet


def derivative(es: ExprSet, e: int, byte: int) -> int:
    """d(e, byte), cached; iterative over the expression's structure."""
    cache: Dict[int, int] = es.caches[derivative]  # e << 8 | byte -> d(e, byte)
    known = cache.get(e << 8 | byte)
    if known is not None:
        return known
    nodes = es.nodes
    is_nullable = es.nullable_flags
    stack = [e]
    while stack:
        x = stack[-1]
        key = x << 8 | byte
        if key in cache:
            stack.pop()
            continue
        node = nodes[x]
        kind = node[0]
        if kind == BYTES:
            result = es.EPSILON if (node[1] >> byte) & 1 else es.NOTHING
        elif kind == CONCAT:
            head, tail = node[1], node[2]
            dh = cache.get(head << 8 | byte)
            if dh is None:
                stack.append(head)
                continue
            result = es.concat(dh, tail)
            if is_nullable[head]:
                dt = cache.get(tail << 8 | byte)
                if dt is None:
                    stack.append(tail)
                    continue
                result = es.union(result, dt)
        elif kind == OR or kind == AND:
            missing = [c for c in node[1] if (c << 8 | byte) not in cache]
            if missing:
                stack.extend(missing)
                continue
            parts = [cache[c << 8 | byte] for c in node[1]]
            result = es.union(*parts) if kind == OR else es.intersection(*parts)
        elif kind == NOT:
            d = cache.get(node[1] << 8 | byte)
            if d is None:
                stack.append(node[1])
                continue
            result = es.complement(d)
        elif kind == REPEAT:
            body, lo, hi = node[1], node[2], node[3]
            d = cache.get(body << 8 | byte)
            if d is None:
                stack.append(body)
                continue
            rest = es.repeat(body, max(lo - 1, 0), None if hi is None else hi - 1)
            result = es.concat(d, rest)
        else:  # ∅ and ε
            result = es.NOTHING
        cache[key] = result
        stack.pop()
    return cache[e << 8 | byte]
