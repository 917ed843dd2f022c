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
intersect, closed transitively), or both start the grammar. The check is one walk per
such pair (L, M): the pairs (L/w, M/w) of derivatives, breadth first, a branch ending
where either is ∅; at each w where L/w matches, M/(w·b) must be ∅ for every following
byte b. (A pair reached again is not walked again — but the start pair, w = ε, is
checked when a non-empty w leads back to it: `[a]* x` with x starting with `a` is found
so, and only so.) FOLLOW sets over the whole grammar over-approximate, so the check is
safe, and sometimes cuts more than needed.

`Conflicts()(ir)` names the lexemes to cut (the compiler makes them finer and checks again):
every lexeme M that goes on, since a lexeme of one code point can never go on after a
whole code point — so cutting always ends.

The compiler runs one `Conflicts` check once per round of cuts (a 14 KB GBNF converted from
SchemaStore's pm2-ecosystem takes 73 rounds), and a round changes few lexemes: the walk
of a pair is a function of the two expressions and L's following bytes — all hash-consed
in the grammar's ExprSet, which every round shares — so the check keeps its answer
(`Conflicts.walks`) and a round walks only the pairs whose triple is new (it counts the
walks and the reuses). Pairs, not L against the union of the lexemes alive with it: a cut
changes that union for most lexemes, but only the pairs of the lexemes it cut; and a
round blames every lexeme that goes on, not those of one path (pm2-ecosystem: 145 rounds
and 27.6 s of CPU with unions, 73 rounds and 13.7 s with pairs, the same grammar).

Some pairs need no walk: lexemes whose first bytes (`_first_bytes`, kept per expression)
are disjoint cannot both take a non-empty string, so no lexeme goes on after the other
(CLEAN), and their languages meet only in ε (the overlap classes). A walk steps only on
the byte classes both derivatives go on with — their first bytes again —, never on a
byte where one of them is ∅; and whether two lexemes overlap is such a walk too
(`_meet`), not the emptiness of their intersection, which derives a new & expression at
every step (pm2-ecosystem: 30,669 walks → 9,904, 2.5–2.9 s in all).
"""
from __future__ import annotations

from collections import deque
from typing import Dict, List, Set, Tuple

from ...grammar.ir import GrammarIR
from ...regex import ExprSet
from ...regex.classes import byte_classes, byte_sets, lowest_byte, partition
from ...regex.derivative import derivative
from ...regex.relevance import check_empty, is_empty

#: pairs of derivatives explored per lexeme before it is cut anyway (bounded work)
MAX_PAIRS = 4000

END = -1


def follow_lexemes(ir: GrammarIR) -> Tuple[Dict[int, Set[int]], Set[int]]:
    """Per lexeme index, the lexemes that may come right after it (END for the end of
    input), and the lexemes that may come first. A lexeme whose regex matches ε is
    transparent, as the compiled grammar makes it optional. The usual FIRST/FOLLOW sets,
    as inclusions between them solved once (`_propagate`), not passes over the rules
    until nothing changes: the check runs once per round of cuts."""
    es = ir.es
    n_nt = len(ir.names)
    n = n_nt + len(ir.lexemes)

    def key(sym: int) -> int:  # nonterminals 0..n-1, lexeme i as n + i
        return sym if sym >= 0 else n_nt + ~sym

    rules = [(lhs, [key(s) for s in rhs]) for lhs, rhs in ir.rules]
    nullable = [False] * n
    for i, lx in enumerate(ir.lexemes):
        nullable[n_nt + i] = lx.tokens is None and es.nullable(lx.expr)
    changed = True
    while changed:
        changed = False
        for lhs, keys in rules:
            if not nullable[lhs] and all(nullable[k] for k in keys):
                nullable[lhs] = changed = True
    # FIRST(lhs) ⊇ FIRST(k) for each k of a rule up to its first non-nullable symbol
    first: List[Set[int]] = [set() for _ in range(n_nt)] + [{i} for i in range(len(ir.lexemes))]
    into: List[List[int]] = [[] for _ in range(n)]
    for lhs, keys in rules:
        for k in keys:
            into[k].append(lhs)
            if not nullable[k]:
                break
    _propagate(first, into)
    # FOLLOW(k) ⊇ FIRST(what comes after k in a rule), and ⊇ FOLLOW(lhs) if that is nullable
    follow: List[Set[int]] = [set() for _ in range(n)]
    follow[ir.start].add(END)
    into = [[] for _ in range(n)]
    for lhs, keys in rules:
        after: Set[int] = set()
        rest_nullable = True
        for k in reversed(keys):
            follow[k] |= after
            if rest_nullable:
                into[lhs].append(k)
            if nullable[k]:
                after = after | first[k]
            else:
                after, rest_nullable = first[k], False
    _propagate(follow, into)
    return {i: follow[n_nt + i] for i in range(len(ir.lexemes))}, first[ir.start]


def _propagate(sets: List[Set[int]], into: List[List[int]]) -> None:
    """The least sets that hold what they hold and sets[v] ⊇ sets[u] for every v in
    into[u] (a worklist: a set is passed on again only when it grew)."""
    todo = [u for u, s in enumerate(sets) if s and into[u]]
    queued = set(todo)
    while todo:
        u = todo.pop()
        queued.discard(u)
        for v in into[u]:
            if not sets[u] <= sets[v]:
                sets[v] |= sets[u]
                if into[v] and v not in queued:
                    queued.add(v)
                    todo.append(v)


def alive_together(ir: GrammarIR, follow: Dict[int, Set[int]], start: Set[int], text: List[int],
                   overlaps: Dict[Tuple[int, int], bool], first: Dict[int, int]) -> Dict[int, Set[int]]:
    """Per text lexeme L, the text lexemes a parser row may allow together with L.
    `overlaps` keeps, per pair of expressions, whether their languages intersect;
    `first`, the first bytes of each expression (`_first_bytes`)."""
    es = ir.es

    def overlap(i: int, j: int) -> bool:
        a, b = ir.lexemes[i].expr, ir.lexemes[j].expr
        if not _first_bytes(es, a, first) & _first_bytes(es, b, first):  # only ε could be common
            return es.nullable(a) and es.nullable(b)
        key = (a, b) if a < b else (b, a)
        got = overlaps.get(key)
        if got is None:
            got = overlaps[key] = _meet(es, a, b, first)
        return got
    cls = {i: i for i in text}  # union-find over lexemes whose languages intersect

    def find(i: int) -> int:
        while cls[i] != i:
            cls[i] = cls[cls[i]]
            i = cls[i]
        return i

    for k, i in enumerate(text):
        for j in text[k + 1:]:
            if find(i) != find(j) and overlap(i, j):
                cls[find(i)] = find(j)
    contexts: Dict[int, Set[int]] = {}
    for i in text:
        contexts.setdefault(find(i), set()).update(m for m in follow[i] if m in cls)
    together: Dict[int, Set[int]] = {i: {i} for i in text}
    for ctx in list(contexts.values()) + [{m for m in start if m in cls}]:
        for m in ctx:
            together[m] |= ctx
    return together


class Conflicts:
    """The check the compiler runs once per round of cuts, with what it keeps across the
    rounds of one compile: the walks done, by (lexeme, other lexeme, following bytes) —
    expressions hash-consed in the ExprSet all rounds share —, and its counts (rounds,
    walks made, walks reused; read by tests and benchmarks)."""

    def __init__(self) -> None:
        self.walks: Dict[Tuple[int, int, int], int] = {}
        self.overlaps: Dict[Tuple[int, int], bool] = {}
        self.first: Dict[int, int] = {}  # expression -> the bytes its matches start with
        self.rounds = self.made = self.reused = 0

    def __call__(self, ir: GrammarIR) -> Set[int]:
        """The text lexemes to cut finer so that greedy lexing is exact (empty: it is):
        every lexeme M that goes on after a match of a lexeme L alive with it, before a
        byte that may follow L — and L itself where that walk grows past MAX_PAIRS."""
        es = ir.es
        self.rounds += 1
        text = [i for i, lx in enumerate(ir.lexemes) if lx.tokens is None]
        if not text:
            return set()
        first_bytes = {i: _first_bytes(es, ir.lexemes[i].expr, self.first) for i in text}
        follow, start = follow_lexemes(ir)
        together = alive_together(ir, follow, start, text, self.overlaps, self.first)
        blamed: Set[int] = set()
        for lexeme in text:
            following = 0
            for m in follow[lexeme]:
                following |= first_bytes.get(m, 0)
            if not following:
                continue
            expr = ir.lexemes[lexeme].expr
            for m in sorted(together[lexeme]):
                if not first_bytes[lexeme] & first_bytes[m]:
                    continue  # CLEAN: m dies on the first byte of every (non-empty) match
                key = (expr, ir.lexemes[m].expr, following)
                answer = self.walks.get(key)
                if answer is None:
                    self.made += 1
                    answer = self.walks[key] = _overrun(es, expr, key[1], following, self.first)
                else:
                    self.reused += 1
                if answer == GOES_ON:
                    blamed.add(m)
                elif answer == TOO_BIG:
                    blamed.add(lexeme)
        return blamed


def _first_bytes(es: ExprSet, e: int, memo: Dict[int, int]) -> int:
    """The bytes a match of e may start with (a bit mask; the union of e's byte classes
    whose derivative is not ∅), kept in `memo`."""
    got = memo.get(e)
    if got is None:
        got = memo[e] = sum(c for c in byte_classes(es, e) if not check_empty(es, derivative(es, e, lowest_byte(c))))
    return got


CLEAN, GOES_ON, TOO_BIG = 1, 2, 3  # the answers of `_overrun`


def _overrun(es: ExprSet, lexeme: int, other: int, following: int, first: Dict[int, int]) -> int:
    """GOES_ON if there is a string w·b where `lexeme` matches w, b is a following byte,
    and `other` goes on with w·b; CLEAN if there is none; TOO_BIG if the walk passes
    MAX_PAIRS. Breadth first over the pairs (lexeme/w, other/w), one byte per byte class
    (bytes of a class have the same derivatives; the classes of the pair are those of
    `lexeme` and `other` together) that both go on with — their first bytes, kept per
    expression in `first` — so that no derivative is ∅ (the branch would end there). The
    derivative cache and the emptiness of expressions without & or ~ (∅ only) are read
    inline: this walk is most of a character grammar's compile."""
    cache, has_boolean, nothing = es.caches[derivative], es.has_boolean, es.NOTHING
    classes = _pair_classes(es, lexeme, other)  # for every pair reached too

    def step(x: int, b: int) -> int:
        d = cache.get(x << 8 | b)
        return derivative(es, x, b) if d is None else d

    def empty(x: int) -> bool:
        return x == nothing if not has_boolean[x] else check_empty(es, x)

    # the start pair is not `seen` until a non-empty w leads back to it: then it is
    # checked like any other (w = ε is not a match: lexemes are not empty)
    seen: Set[Tuple[int, int]] = set()
    queue = deque([(lexeme, other)])
    while queue:
        a, u = queue.popleft()
        both = _first_bytes(es, a, first) & _first_bytes(es, u, first)
        for c in classes:
            if not c & both:
                continue
            b = lowest_byte(c)
            a2, u2 = step(a, b), step(u, b)
            if (a2, u2) in seen:
                continue
            if es.nullable(a2):
                for c2 in byte_classes(es, u2):
                    if c2 & following and not empty(step(u2, lowest_byte(c2 & following))):
                        return GOES_ON
            seen.add((a2, u2))
            if len(seen) > MAX_PAIRS:
                return TOO_BIG
            queue.append((a2, u2))
    return CLEAN


def _meet(es: ExprSet, a: int, b: int, first: Dict[int, int]) -> bool:
    """Do L(a) and L(b) share a string? Breadth first over the pairs (a/w, b/w), on the
    bytes both go on with, until a pair where both match ε — no intersection is built
    (the emptiness of a & b derives a new expression at every step); past MAX_PAIRS
    pairs, that emptiness decides (unknown when its fuel runs out: they may meet)."""
    classes = _pair_classes(es, a, b)
    seen = {(a, b)}
    queue = deque([(a, b)])
    while queue:
        x, y = queue.popleft()
        if es.nullable(x) and es.nullable(y):
            return True
        both = _first_bytes(es, x, first) & _first_bytes(es, y, first)
        for c in classes:
            if c & both:
                byte = lowest_byte(c)
                pair = (derivative(es, x, byte), derivative(es, y, byte))
                if pair not in seen:
                    seen.add(pair)
                    if len(seen) > MAX_PAIRS:
                        return is_empty(es, es.intersection(a, b)) is not True
                    queue.append(pair)
    return False


def _pair_classes(es: ExprSet, a: int, b: int) -> List[int]:
    """The byte classes that both a and b (and so all their derivatives) respect."""
    return partition(es, byte_sets(es, a) | byte_sets(es, b))
