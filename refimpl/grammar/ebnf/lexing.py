"""When is greedy lexing exact? The check behind the character-grammar compiler.

maskref's lexer is greedy: a lexeme goes on while any lexeme alive can take the next byte,
and ends only when none can (docs/semantics.md, "Lexing"). For a grammar whose terminals
are characters, grouping characters into lexemes is exact — the lexer and parser then
accept exactly the strings (and the prefixes) of the character grammar — if:

    for every lexeme L, every string w that L matches, and every byte b that may come
    right after L in the grammar (a first byte of a lexeme in FOLLOW(L)):
    no lexeme M may go on with w·b, that is, the derivative of M by w·b is not ∅.

Why: in a character-level derivation, cut into lexemes w1 w2 ..., when the lexer has read
w1 (a match of L1) the next byte is the first byte b of w2, which follows L1; by the
condition every lexeme dies on b, so the lexer ends the lexeme exactly after w1 (with
every lexeme that matches w1: Earley keeps them all). It cannot end earlier, since L1 is
still alive inside w1. So every derivation survives, and the lexer never accepts what the
grammar does not. Only lexemes that may be alive together matter: those a parser row may
allow at once. Every lexeme a row allows follows (FOLLOW) a lexeme that ended where the
row starts, and lexemes that end together match the same bytes, so M and L may be alive
together only if both follow lexemes of one *overlap class* (lexemes whose languages
intersect, closed transitively), or both start the grammar. The union U_L of the lexemes
that may be alive with L makes the check one walk per lexeme: the pairs (L/w, U_L/w) of
derivatives, breadth first; at each w where L/w matches, U_L/(w·b) must be ∅ for every
following byte b. FOLLOW sets over the whole grammar over-approximate, so the check is
safe, and sometimes cuts more than needed.

`conflicts(ir)` names the lexemes to cut (the compiler makes them finer and checks again):
the lexemes M that go on, since a lexeme of one code point can never go on after a whole
code point — so cutting always ends.

The compiler calls `conflicts` once per round of cuts (a 14 KB GBNF converted from
SchemaStore's pm2-ecosystem takes ~145 rounds), and a round changes few lexemes: the walk
of a lexeme is a function of its expression, the union of the lexemes alive with it and
its following bytes — all hash-consed in the grammar's ExprSet, which every round shares
— so its answer is kept per ExprSet (`_walks`) and a round walks only the lexemes whose
triple is new (`stats` counts the walks and the reuses).
"""
from __future__ import annotations

import weakref
from collections import deque
from typing import Dict, List, Optional, Set, Tuple

from ...regex import ExprSet
from ...regex.derivative import derivative
from ...regex.relevance import byte_classes, check_empty, is_empty
from ..ir import GrammarIR

#: pairs of derivatives explored per lexeme before it is cut anyway (bounded work)
MAX_PAIRS = 4000

END = -1

#: per ExprSet, the walks done: (lexeme, union, following) -> `_overrun`'s answer
_walks: "weakref.WeakKeyDictionary[ExprSet, Dict[Tuple[int, int, int], Optional[bytes]]]" = weakref.WeakKeyDictionary()

#: work counters (read by tests and benchmarks): conflict rounds, walks made, walks reused
stats = {"rounds": 0, "walks": 0, "reused": 0}


def follow_lexemes(ir: GrammarIR) -> Tuple[Dict[int, Set[int]], Set[int]]:
    """Per lexeme index, the lexemes that may come right after it (END for the end of
    input), and the lexemes that may come first; by the usual FIRST/FOLLOW fixpoint. A
    lexeme whose regex matches ε is transparent, as the compiled grammar makes it optional."""
    es = ir.es
    n_nt = len(ir.names)

    def key(sym: int) -> int:  # nonterminals 0..n-1, lexeme i as n + i
        return sym if sym >= 0 else n_nt + ~sym

    nullable = [False] * (n_nt + len(ir.lexemes))
    for i, lx in enumerate(ir.lexemes):
        nullable[n_nt + i] = lx.tokens is None and es.nullable(lx.expr)
    first: List[Set[int]] = [set() for _ in range(n_nt)] + [{i} for i in range(len(ir.lexemes))]
    follow: List[Set[int]] = [set() for _ in range(n_nt + len(ir.lexemes))]
    follow[ir.start].add(END)
    rules = [(lhs, [key(s) for s in rhs]) for lhs, rhs in ir.rules]
    changed = True
    while changed:
        changed = False
        for lhs, keys in rules:
            if not nullable[lhs] and all(nullable[k] for k in keys):
                nullable[lhs] = changed = True
            for k in keys:
                if not first[k] <= first[lhs]:
                    first[lhs] |= first[k]
                    changed = True
                if not nullable[k]:
                    break
            trailer = set(follow[lhs])
            for k in reversed(keys):
                if not trailer <= follow[k]:
                    follow[k] |= trailer
                    changed = True
                trailer = (trailer | first[k]) if nullable[k] else set(first[k])
    return {i: follow[n_nt + i] for i in range(len(ir.lexemes))}, first[ir.start]


def alive_together(ir: GrammarIR, follow: Dict[int, Set[int]], start: Set[int], text: List[int]) -> Dict[int, Set[int]]:
    """Per text lexeme L, the text lexemes a parser row may allow together with L."""
    es = ir.es
    cls = {i: i for i in text}  # union-find over lexemes whose languages intersect

    def find(i: int) -> int:
        while cls[i] != i:
            cls[i] = cls[cls[i]]
            i = cls[i]
        return i

    for k, i in enumerate(text):
        for j in text[k + 1:]:
            if find(i) != find(j) and is_empty(es, es.intersection(ir.lexemes[i].expr, ir.lexemes[j].expr)) is not True:
                cls[find(i)] = find(j)
    contexts: Dict[int, Set[int]] = {}
    for i in text:
        contexts.setdefault(find(i), set()).update(m for m in follow[i] if m in cls)
    together: Dict[int, Set[int]] = {i: {i} for i in text}
    for ctx in list(contexts.values()) + [{m for m in start if m in cls}]:
        for m in ctx:
            together[m] |= ctx
    return together


def conflicts(ir: GrammarIR) -> Set[int]:
    """The text lexemes to cut finer so that greedy lexing is exact (empty: it is)."""
    es = ir.es
    text = [i for i, lx in enumerate(ir.lexemes) if lx.tokens is None]
    if not text:
        return set()
    first_bytes = {i: _first_bytes(es, ir.lexemes[i].expr) for i in text}
    follow, start = follow_lexemes(ir)
    together = alive_together(ir, follow, start, text)
    blamed: Set[int] = set()
    walks = _walks.setdefault(es, {})
    stats["rounds"] += 1
    for lexeme in text:
        following = 0
        for m in follow[lexeme]:
            following |= first_bytes.get(m, 0)
        if following:
            union = es.union(*(ir.lexemes[m].expr for m in sorted(together[lexeme])))
            key = (ir.lexemes[lexeme].expr, union, following)
            if key in walks:
                stats["reused"] += 1
                path = walks[key]
            else:
                stats["walks"] += 1
                path = walks[key] = _overrun(es, key[0], union, following)
            if path is not None:
                blamed |= _going_on(ir, sorted(together[lexeme]), path) or {lexeme}
    return blamed


def _first_bytes(es: ExprSet, e: int) -> int:
    """The bytes a match of e may start with (a bit mask)."""
    return sum(c for c in byte_classes(es, e) if not check_empty(es, derivative(es, e, _lowest(c))))


def _lowest(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _overrun(es: ExprSet, lexeme: int, union: int, following: int) -> Optional[bytes]:
    """A string w·b where the lexeme matches w, b is a following byte and some lexeme
    goes on with w·b; None if there is none (or the path so far, if the walk passes
    MAX_PAIRS). One byte per byte class: bytes of a class have the same derivatives."""
    start = (lexeme, union)
    parent: Dict[Tuple[int, int], Tuple[Optional[Tuple[int, int]], int]] = {start: (None, -1)}
    queue = deque([start])
    while queue:
        pair = queue.popleft()
        a, u = pair
        for c in byte_classes(es, es.concat(a, u)):
            b = _lowest(c)
            a2 = derivative(es, a, b)
            if check_empty(es, a2):
                continue
            nxt = (a2, derivative(es, u, b))
            if nxt in parent:
                continue
            parent[nxt] = (pair, b)
            if len(parent) > MAX_PAIRS:
                return _path(parent, nxt)
            queue.append(nxt)
            if es.nullable(a2):
                u2 = nxt[1]
                for c2 in byte_classes(es, u2):
                    if c2 & following and not check_empty(es, derivative(es, u2, _lowest(c2 & following))):
                        return _path(parent, nxt) + bytes([_lowest(c2 & following)])
    return None


def _path(parent: Dict[Tuple[int, int], Tuple[Optional[Tuple[int, int]], int]], pair: Tuple[int, int]) -> bytes:
    out = bytearray()
    node: Optional[Tuple[int, int]] = pair
    while node is not None:
        prev, b = parent[node]
        if b >= 0:
            out.append(b)
        node = prev
    return bytes(reversed(out))


def _going_on(ir: GrammarIR, text: List[int], path: bytes) -> Set[int]:
    """The lexemes whose derivative by `path` is not ∅."""
    es = ir.es
    out = set()
    for i in text:
        e = ir.lexemes[i].expr
        for b in path:
            e = derivative(es, e, b)
            if check_empty(es, e):
                break
        else:
            out.add(i)
    return out
