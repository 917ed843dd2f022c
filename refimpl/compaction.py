"""Compacted Earley sets: a key for the parser's state that two states accepting the same
continuations share (the KBNF seed article; docs/earley.md, "Compaction").

What the parser can still do after rows[:top] depends on much less than the rows:

- the *incomplete* items of the top row — those that may still advance (completed items
  have done their work: what they completed is in the row already) — and whether the
  row accepts (the one thing a completed item still says);
- for each item that may one day complete, the row it returns to: completing `A` from row
  i advances exactly `rows[i].waiting[A]` — so of row i only the items waiting for such an
  `A` matter, and, recursively, the rows those items return to.

The key is that reachable part, written with three observations, each switchable so that
tests/test_compaction.py can check each on its own (never changes the allowed bytes or a
later acceptance):

1. **drop** the items that cannot influence what comes next: completed items of the top
   row (but whether it accepts), and in older rows every item not waiting for a symbol
   that may complete there;
2. **renumber** the origins by rank among the rows still referenced (the top row 0, the
   next older 1, ...): which row an origin is, not where it is in the stack, matters;
3. **Leo**: where completing `A` from row i is deterministic (row i's transitive item,
   earley.py), the key records the transitive item — whose origin is further down — and
   skips the rows in between, as the parser does.

>>> from refimpl.grammar.lark import parse_lark
>>> from refimpl.earley import Parser
>>> g = parse_lark('start: "[" item ("," item)* "]"\\nitem: "x" | "[" item "]"').compile()
>>> def after(text):  # the parser after these lexemes (one character each)
...     p = Parser(g)
...     for c in text:
...         p.push(1 << next(i for i, lx in enumerate(g.lexemes) if lx.name == '"%s"' % c))
...     return p
>>> compact(after("[x,x,"), 6) == compact(after("[x,x,x,x,"), 10)    # the same continuations
True
>>> compact(after("[x,x,"), 6) == compact(after("[[x],x,"), 8)       # an item was nested
True
>>> compact(after("[x,x,"), 6) == compact(after("[x,["), 5)           # two "]" to come
False
>>> after("[x,x,").rows[5].items == after("[x,x,x,x,").rows[9].items  # the rows differ (origins)
False
"""
from __future__ import annotations

from typing import Dict, List, Set, Tuple

from .earley import Parser
from .grammar.ir import COMPLETE

#: (row, symbol): completing `symbol` from that row
Return = Tuple[int, int]


def compact(parser: Parser, top: int, drop: bool = True, renumber: bool = True, leo: bool = True) -> Tuple[object, ...]:
    """The compacted key of rows[:top] (hashable). Equal keys: the same continuations."""
    g, rows, shift, mask = parser.g, parser.rows, parser.shift, parser.mask
    j = top - 1
    use_leo = leo and parser.leo
    head = [x for x in rows[j].items if not drop or g.dot_symbol[x & mask] != COMPLETE]
    returns: Dict[Return, Tuple[bool, Tuple[int, ...]]] = {}  # -> (by Leo?, what completing there gives)
    todo: List[Return] = [(x >> shift, g.lhs[x & mask]) for x in head]
    while todo:
        i, symbol = todo.pop()
        if i >= j or (i, symbol) in returns:  # origin j: its items are the head's
            continue
        transitive = parser.transitive_item(i, symbol) if use_leo else None
        if transitive is not None:  # 3: one completed item, from further down
            gives: Tuple[int, ...] = (transitive,)
        else:
            gives = tuple(w + 1 for w in rows[i].waiting.get(symbol, ()))
        returns[(i, symbol)] = (transitive is not None, gives)
        todo.extend((x >> shift, g.lhs[x & mask]) for x in gives)
    if not drop:  # every item of every row returned to, not only those waiting
        for i, _ in list(returns):
            returns[(i, -1)] = (False, tuple(rows[i].items))
    live: Set[int] = {j} | {i for i, _ in returns} | {x >> shift for x in head}
    for _, gives in returns.values():
        live.update(x >> shift for x in gives)
    rank = {row: n for n, row in enumerate(sorted(live, reverse=True))} if renumber else {row: row for row in live}

    def item(x: int) -> Tuple[int, int]:
        return x & mask, rank[x >> shift]

    return (
        rows[j].lexer_start,
        rows[j].accepting,
        tuple(sorted(item(x) for x in head)),
        tuple(sorted((rank[i], symbol, by_leo, tuple(item(x) for x in gives))
                     for (i, symbol), (by_leo, gives) in returns.items())),
    )
